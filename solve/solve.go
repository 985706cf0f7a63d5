// Package solve decides how many parameter servers (PS) and workers every
// training job gets: the allocation half of Optimus (Peng, Bao, Chen, Wu,
// Guo: "Optimus: an efficient dynamic resource scheduler for deep learning
// clusters", EuroSys 2018, section 4.1) and the baselines the paper compares
// it with (section 6.1): DRF, Tetris, and first-in-first-out.
//
// Solve is pure planning: it reads a snapshot (a Problem) and returns a plan
// (a Result); it does no I/O. The command `optimus solve` builds the Problem
// from the predictions and cluster tables.
//
// # The objective
//
// Job j has Q_j steps left, trains at f_j(p, w) steps per second with p PS
// and w workers (fit.SpeedModel, paper section 3.2), and weight W_j. Its
// predicted remaining time is
//
//	T_j(p, w) = Q_j / f_j(p, w)
//
// and the allocation minimises the weighted sum Σ_j W_j·T_j(p_j, w_j)
// subject to, for every resource r of the cluster,
//
//	Σ_j (w_j·O_j^r + p_j·N_j^r) <= C^r
//
// where O_j and N_j are one worker's and one PS's demand and C^r the
// cluster's total capacity (paper, problem (3) of section 4.1).
//
// # Node-level capacity: a deviation from the paper
//
// The paper constrains only the cluster's total of each resource and leaves
// the nodes to the placement. Its allocations may then not pack: on the
// paper's own testbed (13 servers, 10 Gbit/s each) the greedy uses all 130
// Gbit/s, the PS of some jobs take the network of the GPU servers, and
// `optimus place` has to leave a job the solver said runs waiting. By
// default (Options.Capacity = NodeCapacity) every policy therefore also
// keeps an incremental placement of the tasks it allocates on a copy of the
// nodes' capacities, and a task (or a unit of tasks) that fits on no node
// does not fit, exactly as one that exceeds the total: the greedy goes on
// to the next candidate. The placement rule (nodes.go) keeps a job's tasks
// on few nodes and puts tasks that need no GPU on servers without GPUs
// first. Result.Packing returns that placement. AggregateCapacity is the
// paper's check, totals only.
package solve

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/optimus-sched/optimus/fit"

	"github.com/optimus-sched/optimus/layout"
)

// Status of a job in the plan.
type Status string

// Job statuses.
const (
	Running Status = "running" // the job gets at least 1 PS and 1 worker (an all-reduce job: 1 worker)
	Waiting Status = "waiting" // the job gets nothing this round; Reason says why
	Done    Status = "done"    // no remaining work: the job needs nothing
)

// Job is one training job as the solver sees it.
type Job struct {
	Name string
	// Arrival orders jobs where order matters (first come, first served);
	// ties keep the order of Problem.Jobs.
	Arrival float64
	// Weight multiplies the job's remaining time in the objective (> 0).
	Weight float64
	// Remaining is Q, the steps left to train (the quantile of the
	// prediction the caller plans with: optimus solve --remaining).
	Remaining float64
	// Speed is f(p, w).
	Speed fit.SpeedModel
	// Worker and PS are one worker's and one PS's demand of each resource of
	// Problem.Resources.
	Worker, PS []float64
	// CurPS and CurWorkers are what the job runs with now (0 when it is not
	// running).
	CurPS, CurWorkers int
	// MaxPS and MaxWorkers limit the allocation; 0 means no limit.
	MaxPS, MaxWorkers int
	// Invalid, when not empty, says why the job cannot be planned (missing
	// predictions, say): it waits with this reason and the others are
	// planned.
	Invalid string
	// For Tiresias: Attained is the service the job has had, in
	// worker-seconds (seconds run x workers: GPU-seconds when a worker is
	// a GPU); Executed the seconds it has run and Waited the seconds it has
	// waited since it last ran (the starvation guard); RequestWorkers
	// the workers it asks for (0: as FIFO's request).
	Attained, Executed, Waited float64
	RequestWorkers             int
}

// Running reports whether the job runs now.
func (j *Job) running() bool { return j.CurPS >= j.minPS() && j.CurWorkers > 0 }

// allReduce reports whether the job trains by all-reduce: workers only,
// no parameter servers (its speed model's mode says so).
func (j *Job) allReduce() bool { return j.Speed.Mode == fit.AllReduce }

// minPS is the fewest PS the job runs with: 1, or 0 for all-reduce.
func (j *Job) minPS() int {
	if j.allReduce() {
		return 0
	}
	return 1
}

// CapacityCheck says what an allocation is checked against.
type CapacityCheck string

// Capacity checks.
const (
	// NodeCapacity checks that every task fits on some node, on top of the
	// totals: the tasks allocated so far are placed on a copy of the nodes'
	// capacities as they are added (the default; a deviation from the
	// paper, see the package documentation).
	NodeCapacity CapacityCheck = "nodes"
	// AggregateCapacity checks the cluster's total of each resource only,
	// as the paper does.
	AggregateCapacity CapacityCheck = "aggregate"
)

// Capacities lists the capacity checks, the default first.
var CapacityChecks = []CapacityCheck{NodeCapacity, AggregateCapacity}

// ParseCapacity returns the capacity check called name.
func ParseCapacity(name string) (CapacityCheck, error) {
	for _, c := range CapacityChecks {
		if string(c) == name {
			return c, nil
		}
	}
	return "", fmt.Errorf("no capacity check %q (there are: nodes, aggregate)", name)
}

// Problem is the snapshot a plan is computed from.
type Problem struct {
	// Resources names the resource kinds (gpu, cpu, memory_gb, ...).
	Resources []string
	// Nodes holds each node's capacity of each resource. Their sum is the
	// capacity C of the constraint; each job's single task must also fit on
	// at least one node, or the job waits; with NodeCapacity all the tasks
	// of the plan must fit on the nodes together.
	Nodes [][]float64
	Jobs  []Job
}

// Options tune a solve.
type Options struct {
	// Policy is a policy of the registry (Policies; "": Optimus).
	Policy Policy
	// RestartCost is what changing a running job's allocation costs it, in
	// seconds: a checkpoint, a stop, a restart from the checkpoint. A
	// running job's allocation changes only when the predicted gain beats
	// it (see Solve). The paper reports about a minute to stop a job and
	// minutes to restore it; DefaultRestartCost is 300 s. 0 re-solves from
	// scratch every time, as the paper does.
	RestartCost float64
	// TetrisSRTFWeight is the share of Tetris's score that favours the job
	// with the shortest remaining time, against the packing score (0: pure
	// packing, 1: pure shortest-remaining-time-first).
	TetrisSRTFWeight float64
	// BaselineCap is the most PS and the most workers DRF and Tetris give a
	// job that has no limit of its own (max_ps, max_workers): they do not
	// know when more tasks stop helping, so, as in the authors' simulator, a
	// job is capped (0: DefaultBaselineCap).
	BaselineCap int
	// Capacity is what every policy checks an added task against: the
	// nodes (NodeCapacity, also when "") or the cluster's totals only
	// (AggregateCapacity, the paper's problem).
	Capacity CapacityCheck
	// TiresiasThresholds are the attained service, in worker-seconds, at
	// which a job moves to the next lower-priority queue (ascending; nil:
	// DefaultTiresiasThresholds). TiresiasStarve, when > 0, is the
	// starvation guard: a job that has waited at least TiresiasStarve
	// times the seconds it has run goes back to the highest queue.
	TiresiasThresholds []float64
	TiresiasStarve     float64
	// SRTFExponent and RestartPayback tune the optimus-srtf policy: each
	// job's weight is multiplied by (mean T1 / its T1)^SRTFExponent, T1 its
	// remaining time on one worker (and one PS), and a running job's change
	// must save RestartPayback times RestartCost (0: DefaultRestartPayback;
	// see policy_optimus_srtf.go). DefaultOptions sets the three to
	// DefaultSRTFExponent, DefaultRestartPayback and DefaultSRTFHysteresis;
	// a zero SRTFExponent or SRTFHysteresis turns that part off.
	// SRTFHysteresis keeps, for optimus-srtf, a running job's allocation
	// when the plan would change it by at most that fraction.
	SRTFExponent, RestartPayback, SRTFHysteresis float64
}

// Defaults.
const (
	DefaultRestartCost      = 300.0
	DefaultTetrisSRTFWeight = 0.5
	DefaultBaselineCap      = 16
	DefaultSRTFExponent     = 2.0
	DefaultRestartPayback   = 4.0
	DefaultSRTFHysteresis   = 0.25
)

// DefaultOptions returns the options `optimus solve` starts from.
func DefaultOptions() Options {
	return Options{Policy: Optimus, RestartCost: DefaultRestartCost, TetrisSRTFWeight: DefaultTetrisSRTFWeight, BaselineCap: DefaultBaselineCap,
		SRTFExponent: DefaultSRTFExponent, RestartPayback: DefaultRestartPayback, SRTFHysteresis: DefaultSRTFHysteresis,
		Capacity: NodeCapacity, TiresiasThresholds: slices.Clone(DefaultTiresiasThresholds)}
}

// Decision is the plan for one job.
type Decision struct {
	PS, Workers int
	// Speed is f(PS, Workers) in steps/s and Completion the predicted
	// remaining time Q/f in seconds; NaN when the job does not run.
	Speed, Completion float64
	// Gain is the marginal gain of the last task the optimus policy gave the
	// job (weighted seconds of remaining time saved per unit of dominant
	// share), NextGain the gain of the best task it did not get; NaN when
	// there is none or the policy does not use gains.
	Gain, NextGain float64
	// DominantShare is the largest share of any resource of the cluster that
	// the job's tasks take.
	DominantShare float64
	// Changed reports that a running job's allocation differs from what it
	// runs with now: applying the plan restarts it.
	Changed bool
	// ChangeSaves is, for a job running now, T(current) - T(planned): the
	// seconds the change saves the job itself (negative when it slows it
	// down); NaN for a job not running.
	ChangeSaves float64
	Status      Status
	// Reason says why a job waits, or what limited its allocation.
	Reason string
}

// Result is a plan: one Decision per job of the Problem, in the same order.
type Result struct {
	Policy Policy
	// CapacityCheck is what the plan was checked against.
	CapacityCheck CapacityCheck
	Decisions     []Decision
	// Packing is, with NodeCapacity, where the plan's tasks fit: per job
	// (in Problem order) the nodes it has tasks on and how many of each
	// role, every node within its capacity. nil with AggregateCapacity.
	Packing [][]layout.Slot
	// Capacity and Used are the cluster's total and the plan's use of each
	// resource.
	Capacity, Used []float64
	// Objective is Σ weight·Completion over running jobs, in seconds, and
	// RestartCost what the plan's restarts add to it (Restarts jobs changed
	// times Options.RestartCost, weighted).
	Objective, RestartCost float64
	Restarts               int
	Running, Waiting, Done int
	Tasks                  int // PS plus workers over all jobs
}

// Solve computes the allocation of every job with the policy of opts.
//
// Before any policy runs, each job is checked on its own: a job with no
// usable prediction (Job.Invalid, no speed model), whose single worker or PS
// fits on no node, or whose limits forbid a task waits, with the reason; a
// job with no remaining work is done. The others are planned.
//
// Stability (optimus policy, RestartCost > 0): re-solving from scratch would
// restart running jobs for tiny gains. Solve therefore compares the plan
// from scratch with plans that keep some running jobs at their current
// allocation (pinned; the greedy then fills the rest of the cluster around
// them):
//
//   - fromScratch: nothing kept (the paper's plan);
//   - growNoPay: kept, the running jobs that fromScratch grows without
//     saving themselves more than the restart cost,
//     T_j(current) - T_j(fromScratch_j) <= RestartCost;
//   - noPay: kept, every running job whose change in fromScratch does not
//     save itself more than the restart cost (shrinks and reshapes
//     included);
//   - all: every running job kept.
//
// It picks the one with the fewest (weighted) waiting jobs and then the
// lowest objective counting restarts, Σ_j W_j·(T_j + RestartCost·[j
// restarted]), preferring the more stable plan on ties. So a change is made
// only when the gain it is predicted to bring (to the job itself, or to the
// others through the resources it frees) beats its restart cost, or when it
// lets a waiting job run. The baselines re-decide from scratch, as the
// paper's do; FIFO's requests are stable by construction.
func Solve(p *Problem, opts Options) (*Result, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	opts = opts.WithDefaults()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	in := prepare(p, opts)
	pl := LookupPolicy(opts.Policy).plan(in, opts)
	return in.result(pl, opts), nil
}

func (p *Problem) check() error {
	nr := len(p.Resources)
	if nr == 0 {
		return fmt.Errorf("solve: no resources")
	}
	for i, n := range p.Nodes {
		if len(n) != nr {
			return fmt.Errorf("solve: node %d has %d capacities for %d resources", i, len(n), nr)
		}
		for r, c := range n {
			if !(c >= 0) || math.IsInf(c, 0) {
				return fmt.Errorf("solve: node %d: capacity of %s is %v", i, p.Resources[r], c)
			}
		}
	}
	for i := range p.Jobs {
		j := &p.Jobs[i]
		if len(j.Worker) != nr || len(j.PS) != nr {
			return fmt.Errorf("solve: job %q: demands for %d and %d resources, the problem has %d", j.Name, len(j.Worker), len(j.PS), nr)
		}
		for r := range nr {
			if !(j.Worker[r] >= 0) || !(j.PS[r] >= 0) || math.IsInf(j.Worker[r], 0) || math.IsInf(j.PS[r], 0) {
				return fmt.Errorf("solve: job %q: demand of %s is not a finite number >= 0", j.Name, p.Resources[r])
			}
		}
		if j.CurPS < 0 || j.CurWorkers < 0 || j.MaxPS < 0 || j.MaxWorkers < 0 {
			return fmt.Errorf("solve: job %q: negative task count", j.Name)
		}
		if max(j.CurPS, j.CurWorkers, j.MaxPS, j.MaxWorkers) > layout.MaxJobTasks {
			return fmt.Errorf("solve: job %q: a task count beyond %d", j.Name, layout.MaxJobTasks)
		}
	}
	return nil
}

// Roles of a task.
const (
	worker = 0
	ps     = 1
)

var roleNames = [2]string{"worker", "PS"}

// instance is a Problem prepared for the policies: totals, per-job task
// shares, eligibility, arrival order.
type instance struct {
	p        *Problem
	capacity []float64
	eps      []float64 // tolerance of capacity checks, per resource
	// demand[j][role] is the demand vector of one task; demands holds
	// them side by side (job j's worker at 2j·nr, its PS after it), which
	// dem reads without loading demand[j]'s slice headers first.
	demand  [][2][]float64
	demands []float64
	nr      int
	// share[j][role] is the dominant share max_r d_r / C^r of one task.
	share [][2]float64
	// limit[j][role] is the most tasks of the role (math.MaxInt: none).
	limit [][2]int
	// minPS[j] is the fewest PS job j runs with (Job.minPS).
	minPS []int
	// remaining and speed are the jobs' Remaining and Speed side by side:
	// the greedy evaluates T of jobs picked by gain, anywhere in the
	// problem, at every step.
	remaining []float64
	speed     []fit.SpeedModel
	// order lists job indices in arrival order.
	order []int
	// rank[j] is j's position in order (the tie-breaker everywhere).
	rank []int
	// status and reason before any policy: Waiting or Done for jobs that
	// cannot or need not run, "" for jobs to plan.
	pre       []Status
	preReason []string
	// baselineCap bounds, for DRF and Tetris, the roles a job sets no limit
	// on.
	baselineCap int
	// stopAtFirstMisfit makes the greedy stop at the first candidate that
	// does not fit, as the authors' code does (for comparison in tests).
	stopAtFirstMisfit bool
	// noGuess turns off the stability rule's guessed candidates, and
	// guessUsed records that a guessed candidate was used (for tests).
	noGuess, guessUsed bool
	// concurrent makes the candidate plans be computed at the same time
	// whatever the problem's size (for tests).
	concurrent bool
	// hot is the greedy's hotJobs, made once (hotOnce), and byID the
	// distinct demand vectors its records number, side by side.
	hot     []hotJob
	byID    []float64
	hotOnce sync.Once
	// packer, when not nil, makes every plan check its tasks node by node
	// (NodeCapacity).
	packer *packer
}

// prepare makes the instance the policies of opts work on.
func prepare(p *Problem, opts Options) *instance {
	in := newInstance(p)
	in.baselineCap = opts.BaselineCap
	if in.baselineCap == 0 {
		in.baselineCap = DefaultBaselineCap
	}
	if opts.Capacity != AggregateCapacity {
		in.packer = newPacker(in)
	}
	return in
}

func newInstance(p *Problem) *instance {
	nr, nj := len(p.Resources), len(p.Jobs)
	in := &instance{
		p: p, capacity: make([]float64, nr), eps: make([]float64, nr),
		demand: make([][2][]float64, nj), share: make([][2]float64, nj), limit: make([][2]int, nj),
		rank: make([]int, nj), pre: make([]Status, nj), preReason: make([]string, nj), minPS: make([]int, nj),
		remaining: make([]float64, nj), speed: make([]fit.SpeedModel, nj),
	}
	for _, n := range p.Nodes {
		for r, c := range n {
			in.capacity[r] += c
		}
	}
	for r, c := range in.capacity {
		in.eps[r] = 1e-9 * math.Max(1, c)
	}
	in.order = make([]int, nj)
	for i := range in.order {
		in.order[i] = i
	}
	slices.SortStableFunc(in.order, func(a, b int) int {
		return cmpFloat(p.Jobs[a].Arrival, p.Jobs[b].Arrival)
	})
	for k, j := range in.order {
		in.rank[j] = k
	}
	frontier := paretoFrontier(p.Nodes)
	// The demands side by side in one array: the greedy reads those of a
	// job picked by gain, anywhere in the problem, at every step.
	demands := make([]float64, 2*nj*nr)
	in.demands, in.nr = demands, nr
	for j := range p.Jobs {
		job := &p.Jobs[j]
		dw, dp := demands[2*j*nr:(2*j+1)*nr:(2*j+1)*nr], demands[(2*j+1)*nr:(2*j+2)*nr:(2*j+2)*nr]
		copy(dw, job.Worker)
		copy(dp, job.PS)
		in.demand[j] = [2][]float64{dw, dp}
		in.limit[j] = [2]int{limitOf(job.MaxWorkers), limitOf(job.MaxPS)}
		in.minPS[j] = job.minPS()
		in.remaining[j], in.speed[j] = job.Remaining, job.Speed
		if job.allReduce() {
			in.limit[j][ps] = 0
		}
		for role := range 2 {
			in.share[j][role] = in.dominantShare(in.demand[j][role])
		}
		in.pre[j], in.preReason[j] = in.eligibility(job, j, frontier)
	}
	return in
}

func limitOf(max int) int {
	if max <= 0 {
		return math.MaxInt
	}
	return max
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dominantShare is max_r d_r / C^r, +Inf when d asks for a resource the
// cluster has none of.
func (in *instance) dominantShare(d []float64) float64 {
	s := 0.0
	for r, x := range d {
		if x <= 0 {
			continue
		}
		if in.capacity[r] <= 0 {
			return math.Inf(1)
		}
		s = math.Max(s, x/in.capacity[r])
	}
	return s
}

// eligibility checks a job on its own, before any policy: "" when it is to
// be planned, else Waiting or Done and why.
func (in *instance) eligibility(job *Job, j int, frontier [][]float64) (Status, string) {
	if job.Invalid != "" {
		return Waiting, job.Invalid
	}
	if !(job.Remaining >= 0) || math.IsInf(job.Remaining, 0) {
		return Waiting, fmt.Sprintf("no usable prediction: remaining steps %v", job.Remaining)
	}
	if job.Remaining == 0 {
		return Done, "no remaining steps"
	}
	if !(job.Weight > 0) || math.IsInf(job.Weight, 0) {
		return Waiting, fmt.Sprintf("weight %v: must be a finite number > 0", job.Weight)
	}
	if job.allReduce() && job.CurPS != 0 {
		return Waiting, fmt.Sprintf("an allreduce job has no parameter servers, but it runs with %d now", job.CurPS)
	}
	if s := job.Speed.Speed(job.minPS(), 1); !(s > 0) || math.IsInf(s, 0) {
		return Waiting, fmt.Sprintf("no usable speed model: it predicts %v steps/s with %d PS and 1 worker", s, job.minPS())
	}
	for role := range 2 {
		if role == ps && job.allReduce() {
			continue
		}
		d := in.demand[j][role]
		if in.share[j][role] == 0 {
			return Waiting, fmt.Sprintf("one %s demands nothing of any resource (%s): give its demands", roleNames[role], in.describe(d))
		}
		if !fitsSomeNode(d, frontier, in.eps) {
			return Waiting, fmt.Sprintf("one %s (%s) fits on no node: %s", roleNames[role], in.describe(d), in.whyNoNode(d))
		}
	}
	return "", ""
}

// describe writes a demand vector as "gpu 1, cpu 4" (zero demands left out).
func (in *instance) describe(d []float64) string {
	var parts []string
	for r, x := range d {
		if x != 0 {
			parts = append(parts, fmt.Sprintf("%s %g", in.p.Resources[r], x))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// whyNoNode names the resources no node has enough of, or says that no node
// has enough of all of them at once.
func (in *instance) whyNoNode(d []float64) string {
	var parts []string
	for r, x := range d {
		most := 0.0
		for _, n := range in.p.Nodes {
			most = math.Max(most, n[r])
		}
		if x > most+in.eps[r] {
			parts = append(parts, fmt.Sprintf("the largest %s of a node is %g", in.p.Resources[r], most))
		}
	}
	if len(in.p.Nodes) == 0 {
		return "the cluster has no nodes"
	}
	if len(parts) == 0 {
		return "no node has enough of all of them at once"
	}
	return strings.Join(parts, "; ")
}

// paretoFrontier returns the distinct node capacity vectors that no other
// node's vector dominates: a task fits on some node exactly when it fits on
// one of these.
func paretoFrontier(nodes [][]float64) [][]float64 {
	distinct := make([][]float64, 0, len(nodes))
	for _, n := range nodes {
		distinct = append(distinct, n)
	}
	slices.SortFunc(distinct, func(a, b []float64) int { return -slices.Compare(a, b) })
	distinct = slices.CompactFunc(distinct, func(a, b []float64) bool { return slices.Equal(a, b) })
	var front [][]float64
	for _, n := range distinct {
		dominated := false
		for _, f := range front {
			if dominates(f, n) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, n)
		}
	}
	return front
}

func dominates(a, b []float64) bool {
	for r := range a {
		if a[r] < b[r] {
			return false
		}
	}
	return true
}

func fitsSomeNode(d []float64, frontier [][]float64, eps []float64) bool {
	for _, n := range frontier {
		ok := true
		for r, x := range d {
			if x > n[r]+eps[r] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// T is job j's predicted remaining time with p PS and w workers, Q/f(p, w);
// +Inf when it does not run.
func (in *instance) T(j, p, w int) float64 {
	if p < in.minPS[j] || w < 1 {
		return math.Inf(1)
	}
	return in.remaining[j] / in.speed[j].Speed(p, w)
}

// plan is a policy's allocation before it becomes a Result.
type plan struct {
	ps, wk     []int
	status     []Status
	reason     []string
	gain, next []float64
	kept       []bool // pinned at the current allocation by the stability rule
	// byLimits[j] says that job j's reason is limitReason(limits[j]), the
	// greedy's account of why it stopped growing the job: it is written
	// out only for the plan chosen (result), not for every candidate plan.
	byLimits    []bool
	limits      [][2]roleState
	used        []float64
	restartCost float64  // weighted restart cost the plan pays
	pack        *packing // the tasks on the nodes (NodeCapacity), else nil
}

func (in *instance) newPlan() *plan {
	nj, nr := len(in.p.Jobs), len(in.capacity)
	// Slices of one type share an array (every candidate plan makes them).
	ints, floats := make([]int, 2*nj), make([]float64, nr+2*nj)
	pl := &plan{
		ps: ints[:nj:nj], wk: ints[nj:], status: slices.Clone(in.pre), reason: slices.Clone(in.preReason),
		used: floats[:nr:nr], gain: floats[nr : nr+nj : nr+nj], next: floats[nr+nj:], kept: make([]bool, nj),
	}
	for j := range nj {
		pl.gain[j], pl.next[j] = math.NaN(), math.NaN()
	}
	if in.packer != nil {
		pl.pack = in.packer.newPacking(nj)
	}
	return pl
}

// reasonOf is job j's reason in the plan.
func (pl *plan) reasonOf(j int) string {
	if pl.byLimits != nil && pl.byLimits[j] {
		return limitReason(pl.limits[j])
	}
	return pl.reason[j]
}

// Outcomes of tryAdd.
const (
	fitted      = iota
	misfitTotal // beyond the cluster's total of some resource
	misfitNodes // within the totals, but no node has room (NodeCapacity)
)

// tryAdd gives job j nw more workers and np more PS if they fit in what the
// plan leaves free: in the cluster's totals and, with NodeCapacity, on the
// nodes. It returns fitted, or why they did not fit (and then changes
// nothing).
func (in *instance) tryAdd(pl *plan, j, nw, np int) int {
	if !in.fits(pl, j, nw, np) {
		return misfitTotal
	}
	if pl.pack != nil && !pl.pack.add(in, j, nw, np) && !pl.pack.repack(in, pl, j, nw, np) {
		return misfitNodes
	}
	in.add(pl, j, nw, np)
	return fitted
}

// full says why tasks did not fit: "cluster full" (its totals) or "no node
// has room".
func full(misfit int) string {
	if misfit == misfitNodes {
		return "no node has room"
	}
	return "cluster full"
}

// fits reports whether nw more workers and np more PS of job j fit in the
// cluster's totals that the plan leaves free.
func (in *instance) fits(pl *plan, j, nw, np int) bool {
	return in.fitsDemands(pl, in.dem(j, worker), in.dem(j, ps), nw, np)
}

// fitsDemands is fits for a job of worker and PS demands dw and dp.
func (in *instance) fitsDemands(pl *plan, dw, dp []float64, nw, np int) bool {
	for r, c := range in.capacity {
		if pl.used[r]+float64(nw)*dw[r]+float64(np)*dp[r] > c+in.eps[r] {
			return false
		}
	}
	return true
}

// dem is in.demand[j][role], from the array that holds them side by side.
func (in *instance) dem(j, role int) []float64 {
	i := (2*j + role) * in.nr
	return in.demands[i : i+in.nr : i+in.nr]
}

// add gives job j nw more workers and np more PS.
func (in *instance) add(pl *plan, j, nw, np int) {
	dw, dp := in.dem(j, worker), in.dem(j, ps)
	for r := range pl.used {
		pl.used[r] += float64(nw)*dw[r] + float64(np)*dp[r]
	}
	pl.wk[j] += nw
	pl.ps[j] += np
}

// objective is Σ W_j·T_j over running jobs plus the weighted restart cost,
// and the weight of the plannable jobs left waiting.
func (in *instance) objective(pl *plan) (waitingWeight, total float64) {
	for j := range in.p.Jobs {
		switch {
		case pl.status[j] == Running:
			total += in.p.Jobs[j].Weight * in.T(j, pl.ps[j], pl.wk[j])
		case in.pre[j] == "":
			waitingWeight += in.p.Jobs[j].Weight
		}
	}
	return waitingWeight, total + pl.restartCost
}

func (in *instance) result(pl *plan, opts Options) *Result {
	res := &Result{Policy: opts.Policy, CapacityCheck: opts.Capacity, Capacity: in.capacity, Used: pl.used, RestartCost: pl.restartCost}
	if pl.pack != nil {
		res.Packing = pl.pack.layout()
	}
	res.Decisions = make([]Decision, len(in.p.Jobs))
	for j := range in.p.Jobs {
		job := &in.p.Jobs[j]
		d := Decision{
			PS: pl.ps[j], Workers: pl.wk[j], Status: pl.status[j], Reason: pl.reasonOf(j),
			Gain: pl.gain[j], NextGain: pl.next[j],
			Speed: math.NaN(), Completion: math.NaN(), ChangeSaves: math.NaN(),
		}
		if d.Status == Running {
			d.Speed = job.Speed.Speed(d.PS, d.Workers)
			d.Completion = in.T(j, d.PS, d.Workers)
			res.Objective += job.Weight * d.Completion
			res.Running++
			for r, c := range in.capacity {
				if c > 0 {
					d.DominantShare = math.Max(d.DominantShare, (float64(d.Workers)*job.Worker[r]+float64(d.PS)*job.PS[r])/c)
				}
			}
		}
		if d.Status == Waiting {
			res.Waiting++
		}
		if d.Status == Done {
			res.Done++
		}
		if job.running() {
			d.Changed = d.PS != job.CurPS || d.Workers != job.CurWorkers
			if d.Changed {
				res.Restarts++
			}
			if in.pre[j] == "" {
				d.ChangeSaves = in.T(j, job.CurPS, job.CurWorkers) - in.T(j, d.PS, d.Workers)
				if math.IsInf(d.ChangeSaves, 0) || math.IsNaN(d.ChangeSaves) {
					d.ChangeSaves = math.NaN()
				}
			}
		}
		res.Tasks += d.PS + d.Workers
		res.Decisions[j] = d
	}
	return res
}
