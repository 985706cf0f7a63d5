// Package place puts the tasks of an allocation (how many parameter servers
// and workers each job gets, from package solve) onto the cluster's nodes:
// the placement half of Optimus (Peng et al., EuroSys 2018, section 4.2),
// the Kubernetes-like baselines it is compared with, and the balancing of
// parameter blocks over a job's parameter servers (section 5, AssignBlocks).
//
// Place is pure planning: it reads a snapshot (a Problem) and returns the
// plan; it does no I/O. `optimus place` builds the Problem from the
// allocation, cluster and current plan tables.
//
// # The placement theorem
//
// A worker exchanges an equal share of its parameters with every PS every
// step. With p PS and w workers spread over k servers, n_i of the PS and m_i
// of the workers on server i, the share of that traffic that crosses servers
// is
//
//	1 - Σ_i n_i·m_i / (p·w)
//
// which, for a given k, is smallest when every server holds p/k PS and w/k
// workers, where it is 1 - 1/k; and fewer servers are better. Hence the
// paper's theorem (section 4.2): on homogeneous servers a job trains fastest
// on the fewest servers that can hold it with the same number of PS and the
// same number of workers on each.
package place

import (
	"fmt"
	"math"
	"slices"

	"github.com/optimus-sched/optimus/layout"
)

// Role of a task.
type Role uint8

// Roles.
const (
	PS Role = iota
	Worker
)

func (r Role) String() string {
	if r == PS {
		return "ps"
	}
	return "worker"
}

// Status of a job after placement.
type Status string

// Statuses, as in package solve.
const (
	Running Status = "running"
	Waiting Status = "waiting"
	Done    Status = "done"
)

// Task is one task of a job on a node.
type Task struct {
	Role  Role
	Index int
	Node  int // index into Problem.Nodes; -1 for a node the cluster lacks
}

// Job is one job of the allocation.
type Job struct {
	Name string
	// PS and Workers are the allocation to place.
	PS, Workers int
	// PSDemand and WorkerDemand are one task's demand of each resource.
	PSDemand, WorkerDemand []float64
	// Status is Running for a job to place; a Waiting or Done job is passed
	// through with its Reason.
	Status Status
	Reason string
	// Current lists where the job's tasks run now. When it holds exactly
	// the allocation (PS tasks 0..PS-1 and workers 0..Workers-1, on nodes
	// with room for them) the tasks stay where they are: no needless moves.
	Current []Task
	// Packing, optional, is where solve's node-level capacity check fitted
	// the job's tasks (solve.Result.Packing; the allocation table's
	// alloc_nodes). The optimus policy falls back to it when its own
	// placement leaves a job waiting or short (see Place). It is ignored
	// unless it lists distinct nodes of the Problem and its counts add up
	// to PS and Workers.
	Packing []layout.Slot
}

// Problem is the snapshot a placement is computed from.
type Problem struct {
	Resources []string
	// Nodes names the nodes; Capacity[i] is node i's capacity of each
	// resource.
	Nodes    []string
	Capacity [][]float64
	Jobs     []Job
}

// Options tune a placement.
type Options struct {
	// Policy is a placement policy of the registry (Policies; "":
	// Optimus).
	Policy Policy
	// Candidates is how many of the nodes with the most free capacity the
	// optimus and spread policies consider for a job before falling back to
	// a first-fit search over all nodes (at least the job's task count).
	// Every node is a candidate on clusters no larger than this, which makes
	// the optimus policy's choice exact there. 0 means DefaultCandidates.
	Candidates int
}

// The placement methods of Place itself, whatever the policy
// (JobPlacement.Method); each policy adds its own (PolicyEntry.Methods).
const (
	MethodKept  = "kept"  // the job's tasks stayed where they ran
	MethodSolve = "solve" // where solve's node-level check fitted them
)

// DefaultCandidates is Options.Candidates when it is 0.
const DefaultCandidates = 64

// Placed is one task of the plan.
type Placed struct {
	Job   int // index into Problem.Jobs
	Role  Role
	Index int
	Node  int
	// Kept reports that the task stays on the node it runs on now.
	Kept bool
}

// JobPlacement sums up one job's placement.
type JobPlacement struct {
	// PS and Workers are the tasks placed (at most the allocation).
	PS, Workers int
	// Servers is the number of distinct nodes used.
	Servers int
	// CrossTraffic is the estimated share of the job's PS-worker traffic
	// that crosses servers (see the package documentation); NaN when the
	// job does not run.
	CrossTraffic float64
	// Method says how the job's tasks were placed: MethodKept (left where
	// they ran), MethodSolve (where solve's node-level check fitted them,
	// Job.Packing), or one of the policy's PolicyEntry.Methods (the optimus
	// policy's MethodEven split and MethodFallback, MethodSpread,
	// MethodPack); "" for a job not running.
	Method string
	// Even reports that the tasks lie evenly: on each of the job's nodes
	// ⌊p/k⌋ or ⌈p/k⌉ PS and ⌊w/k⌋ or ⌈w/k⌉ workers (k nodes), whatever the
	// method.
	Even bool
	// Kept reports that the job's tasks stayed where they ran.
	Kept   bool
	Status Status
	// Reason says why the job waits or runs with fewer tasks than
	// allocated, or why its tasks could not stay where they were.
	Reason string
}

// Result is a placement.
type Result struct {
	Policy Policy
	// Tasks are the placed tasks, by job (in Problem order), PS before
	// workers, by index.
	Tasks []Placed
	// Jobs sums up each job's placement, in Problem order.
	Jobs []JobPlacement
	// Free is each node's free capacity after placement.
	Free [][]float64
	// Order lists the running jobs in the order they were placed: kept
	// jobs first, then the others.
	Order []int
}

// Place places every running job's tasks.
//
// First, the tasks of jobs whose allocation did not change (Job.Current
// holds exactly the allocation) stay where they are, if their nodes still
// have room for them. Then the other running jobs are placed in ascending
// order of task count (ties in Problem order), by the policy:
//
//   - optimus: take the nodes with the most free capacity (Candidates of
//     them, or all) and, for k = 1, 2, ..., max(p, w), look for k of them
//     that hold an even split: every node ⌊p/k⌋ or ⌈p/k⌉ PS (exactly p/k
//     when k divides p) and ⌊w/k⌋ or ⌈w/k⌉ workers. The first k that
//     works is used: the fewest nodes with the same number of PS and of
//     workers on each, the paper's theorem. The choice among the candidates
//     is exact: nodes are classed by which of the four per-node shapes
//     (⌈p/k⌉ or ⌊p/k⌋ PS with ⌈w/k⌉ or ⌊w/k⌋ workers) they can hold and the
//     counts are matched. If no k works, the job's tasks are placed one by
//     one, alternating PS and worker, each on the first candidate where it
//     fits, else the first node in cluster order (the paper's fallback).
//   - spread: tasks one by one (alternating PS and worker), each on the node
//     with the most free capacity where it fits.
//   - pack: tasks one by one, each on the first node in cluster order where
//     it fits.
//
// A job placed one by one that got at least 1 PS and 1 worker runs with what
// was placed (a reduced allocation, with a reason); otherwise its tasks are
// removed and it waits.
//
// Smallest jobs first can leave a larger one without room: on a cluster of
// GPU and CPU servers the PS of small jobs split evenly onto GPU servers
// take the cores a later job's workers needed there. So when the optimus
// policy leaves a job waiting or reduced, it places again with the jobs
// that failed first (at most twice more) and keeps the best placement:
// fewest jobs waiting, then most tasks placed, then least cross-server
// traffic.
//
// If a job is still left waiting or short and the jobs carry the layout
// solve's node-level capacity check found for them (Job.Packing, from
// `optimus solve --capacity nodes`, the default), the optimus policy places
// again with the jobs that failed exactly there first and the others as
// above; while no more jobs fail than in the pass before, those that fail
// join them (at most packingPasses passes); otherwise the last pass puts
// every job with a layout there first. The best placement by the order
// above is kept. Solve's layouts fit the nodes together, so with the same
// cluster and no kept tasks in the way every job solve runs is placed with
// its whole allocation; the jobs placed where solve fitted them have method
// MethodSolve. Each such pass costs about as much as the first.
//
// A node's free capacity counts as Σ_r free^r / (largest capacity of r over
// the nodes). Costs: O(log n) per heap or first-fit step over n nodes, and
// for the optimus policy O(Candidates·k·resources) per job tried on k nodes.
func Place(p *Problem, opts Options) (*Result, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	opts = opts.WithDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	res, failed := pass(p, opts, nil, nil)
	if !LookupPolicy(opts.Policy).Repair || len(failed) == 0 {
		return res, nil
	}
	// Repair: jobs smallest first can leave a larger job without room
	// (their PS took the cores a GPU node's workers needed, say). Place the
	// jobs that failed first and keep the better of the passes.
	promote := failed
	for range repairPasses {
		again, failedAgain := pass(p, opts, promote, nil)
		if again.worse(res) >= 0 {
			break
		}
		res, failed = again, failedAgain
		if len(failedAgain) == 0 {
			break
		}
		for _, j := range failedAgain {
			if !slices.Contains(promote, j) {
				promote = append(promote, j)
			}
		}
	}
	// Solve's layout: the failed jobs there first, then every job there.
	packed := make([]bool, len(p.Jobs))
	anyPacked := false
	for j := range p.Jobs {
		packed[j] = p.validPacking(j)
		anyPacked = anyPacked || packed[j]
	}
	if len(failed) == 0 || !anyPacked {
		return res, nil
	}
	// The jobs that failed go where solve fitted them, the others by the
	// policy; jobs that fail then join them while no more fail than in the
	// pass before; otherwise (or after packingPasses passes) every job with
	// a layout goes there.
	use := make([]bool, len(p.Jobs))
	for k := 0; ; k++ {
		grew := false
		for _, j := range failed {
			if packed[j] && !use[j] {
				use[j], grew = true, true
			}
		}
		last := !grew || k == packingPasses-1
		if last {
			use = packed
		}
		again, failedAgain := pass(p, opts, nil, use)
		if again.worse(res) < 0 {
			res = again
		}
		if len(failedAgain) == 0 || last {
			break
		}
		if len(failedAgain) > len(failed) {
			failedAgain = nil // more jobs fail: all of them, next
		}
		failed = failedAgain
	}
	return res, nil
}

// packingPasses bounds the optimus policy's passes that use solve's layout.
const packingPasses = 4

// validPacking reports whether job j runs and carries a Packing of
// distinct nodes of the Problem whose counts add up to its allocation.
func (p *Problem) validPacking(j int) bool {
	job := &p.Jobs[j]
	if job.Status != Running || len(job.Packing) == 0 {
		return false
	}
	var ps, w int
	seen := make(map[int]bool, len(job.Packing))
	for _, s := range job.Packing {
		if s.Node < 0 || s.Node >= len(p.Nodes) || seen[s.Node] || s.PS < 0 || s.Workers < 0 {
			return false
		}
		seen[s.Node] = true
		ps += s.PS
		w += s.Workers
	}
	return ps == job.PS && w == job.Workers
}

// repairPasses bounds the extra passes of the optimus policy.
const repairPasses = 2

// pass places every running job: kept tasks first, then the jobs of
// packed (in Problem order) where Job.Packing says if their nodes have room
// for that, then the others in ascending order of task count with the jobs
// of promote first (in that order). It returns the placement and the
// running jobs that ended waiting or with fewer tasks than allocated.
func pass(p *Problem, opts Options, promote []int, packed []bool) (*Result, []int) {
	pl := &placer{p: p, opts: opts, nr: len(p.Resources), st: newNodeState(p.Capacity, len(p.Resources))}
	pl.tasks = make([][]Placed, len(p.Jobs))
	pl.jobs = make([]JobPlacement, len(p.Jobs))
	// Every job's tasks in one array, each job's share sized to its
	// allocation (no job is placed more tasks than that).
	total := 0
	for j := range p.Jobs {
		if p.Jobs[j].Status == Running {
			total += p.Jobs[j].PS + p.Jobs[j].Workers
		}
	}
	tasks := make([]Placed, total)
	pl.taskArray = tasks
	for j := range p.Jobs {
		if job := &p.Jobs[j]; job.Status == Running {
			n := job.PS + job.Workers
			pl.tasks[j], tasks = tasks[:0:n], tasks[n:]
		}
	}
	var order []int
	for j := range p.Jobs {
		job := &p.Jobs[j]
		pl.jobs[j] = JobPlacement{Status: job.Status, Reason: job.Reason, CrossTraffic: math.NaN()}
		if job.Status != Running {
			continue
		}
		if len(job.Current) > 0 {
			why := pl.keep(j)
			if why == "" {
				pl.order = append(pl.order, j)
				continue
			}
			pl.jobs[j].Reason = "moved: " + why
		}
		order = append(order, j)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return (p.Jobs[a].PS + p.Jobs[a].Workers) - (p.Jobs[b].PS + p.Jobs[b].Workers)
	})
	if len(promote) > 0 {
		rest := slices.DeleteFunc(slices.Clone(order), func(j int) bool { return slices.Contains(promote, j) })
		order = append(slices.Clone(promote), rest...)
	}
	if packed != nil {
		var rest []int
		for _, j := range slices.Sorted(slices.Values(order)) {
			if packed[j] && pl.placePacking(j) {
				pl.order = append(pl.order, j)
			}
		}
		for _, j := range order {
			if pl.jobs[j].Method != MethodSolve {
				rest = append(rest, j)
			}
		}
		order = rest
	}
	var failed []int
	placeJob := LookupPolicy(opts.Policy).placeJob
	for _, j := range order {
		pl.order = append(pl.order, j)
		placeJob(pl, j)
		if pl.jobs[j].Status != Running || len(pl.tasks[j]) < p.Jobs[j].PS+p.Jobs[j].Workers {
			failed = append(failed, j)
		}
	}
	return pl.result(), failed
}

// worse compares two placements of the same problem: negative when r is
// better than o (fewer jobs waiting, then fewer tasks left out, then less
// cross-server traffic in all), 0 when as good.
func (r *Result) worse(o *Result) int {
	score := func(x *Result) (waiting, placed int, cross float64) {
		for _, jp := range x.Jobs {
			switch jp.Status {
			case Waiting:
				waiting++
			case Running:
				placed += jp.PS + jp.Workers
				cross += jp.CrossTraffic
			}
		}
		return
	}
	rw, rp, rc := score(r)
	ow, op, oc := score(o)
	switch {
	case rw != ow:
		return rw - ow
	case rp != op:
		return op - rp
	case rc < oc-1e-12:
		return -1
	case rc > oc+1e-12:
		return 1
	}
	return 0
}

func (p *Problem) check() error {
	nr := len(p.Resources)
	if len(p.Capacity) != len(p.Nodes) {
		return fmt.Errorf("place: %d node names for %d capacity vectors", len(p.Nodes), len(p.Capacity))
	}
	for i, c := range p.Capacity {
		if len(c) != nr {
			return fmt.Errorf("place: node %q has %d capacities for %d resources", p.Nodes[i], len(c), nr)
		}
		for r, x := range c {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("place: node %q: capacity of %s is %v", p.Nodes[i], p.Resources[r], x)
			}
		}
	}
	for i := range p.Jobs {
		j := &p.Jobs[i]
		if len(j.PSDemand) != nr || len(j.WorkerDemand) != nr {
			return fmt.Errorf("place: job %q: demands for %d and %d resources, the problem has %d", j.Name, len(j.PSDemand), len(j.WorkerDemand), nr)
		}
		for r := range nr {
			if !(j.PSDemand[r] >= 0) || !(j.WorkerDemand[r] >= 0) || math.IsInf(j.PSDemand[r]+j.WorkerDemand[r], 0) {
				return fmt.Errorf("place: job %q: demand of %s is not a finite number >= 0", j.Name, p.Resources[r])
			}
		}
		if j.PS < 0 || j.Workers < 0 {
			return fmt.Errorf("place: job %q: negative task count", j.Name)
		}
		if j.PS > layout.MaxJobTasks || j.Workers > layout.MaxJobTasks {
			return fmt.Errorf("place: job %q: %d PS and %d workers, more than %d", j.Name, j.PS, j.Workers, layout.MaxJobTasks)
		}
		switch j.Status {
		case Running, Waiting, Done:
		default:
			return fmt.Errorf("place: job %q: status %q", j.Name, j.Status)
		}
	}
	return nil
}

type placer struct {
	p     *Problem
	opts  Options
	nr    int
	st    *nodeState
	tasks [][]Placed
	jobs  []JobPlacement
	order []int
	// perNode counts one job's tasks of each role per node; its nodes
	// are listed in the order first met (startCount).
	perNode [][2]int
	nodes   []int
	// pool is placeOptimus's buffer of candidate nodes.
	pool []int
	// taskArray holds every job's tasks (pl.tasks[j] is a share of it), and
	// then the result's.
	taskArray []Placed
}

// startCount clears the counts of countTask: pl.nodes lists the nodes
// counted, in the order first met, and pl.perNode[i] holds node i's count
// of each role, until the next startCount.
func (pl *placer) startCount() {
	if pl.perNode == nil {
		pl.perNode = make([][2]int, len(pl.p.Nodes))
	}
	for _, i := range pl.nodes {
		pl.perNode[i] = [2]int{}
	}
	pl.nodes = pl.nodes[:0]
}

// countTask counts a task of the role on node i.
func (pl *placer) countTask(i int, role Role) {
	c := &pl.perNode[i]
	if c[PS] == 0 && c[Worker] == 0 {
		pl.nodes = append(pl.nodes, i)
	}
	c[role]++
}

func (pl *placer) demand(j int, role Role) []float64 {
	if role == PS {
		return pl.p.Jobs[j].PSDemand
	}
	return pl.p.Jobs[j].WorkerDemand
}

// keep leaves job j's current tasks where they are when they are exactly
// its allocation and their nodes have room; else it says why not.
func (pl *placer) keep(j int) string {
	job := &pl.p.Jobs[j]
	var seen [2][]bool
	seen[PS], seen[Worker] = make([]bool, job.PS), make([]bool, job.Workers)
	for _, t := range job.Current {
		if t.Node < 0 || t.Node >= len(pl.p.Nodes) {
			return "a node it ran on is no longer in the cluster"
		}
		if t.Index < 0 || t.Index >= len(seen[t.Role]) || seen[t.Role][t.Index] {
			return fmt.Sprintf("its allocation changed (now %d PS + %d workers)", job.PS, job.Workers)
		}
		seen[t.Role][t.Index] = true
	}
	if len(job.Current) != job.PS+job.Workers {
		return fmt.Sprintf("its allocation changed (now %d PS + %d workers)", job.PS, job.Workers)
	}
	pl.startCount()
	for _, t := range job.Current {
		pl.countTask(t.Node, t.Role)
	}
	nodes := pl.nodes
	slices.Sort(nodes)
	for _, n := range nodes {
		c := pl.perNode[n]
		if !pl.st.fitsMix(n, job.PSDemand, c[PS], job.WorkerDemand, c[Worker]) {
			return fmt.Sprintf("node %s no longer has room for its %d PS + %d workers there", pl.p.Nodes[n], c[PS], c[Worker])
		}
	}
	for _, n := range nodes {
		c := pl.perNode[n]
		pl.st.take(n, job.PSDemand, c[PS])
		pl.st.take(n, job.WorkerDemand, c[Worker])
	}
	for _, t := range job.Current {
		pl.tasks[j] = append(pl.tasks[j], Placed{Job: j, Role: t.Role, Index: t.Index, Node: t.Node, Kept: true})
	}
	pl.jobs[j].Kept, pl.jobs[j].Method = true, MethodKept
	return ""
}

func (pl *placer) release(pool []int) {
	for _, i := range pool {
		pl.st.push(i)
	}
}

// placeOptimus places job j by the even split on the fewest nodes, or by the
// one-by-one fallback.
func (pl *placer) placeOptimus(j int) {
	job := &pl.p.Jobs[j]
	if job.PS == 0 {
		pl.placeAllReduce(j)
		return
	}
	// k = 1 first, on the candidates in order as they come out of the heap:
	// most jobs fit on one node, and then the first that holds them is the
	// one, without taking out the other candidates.
	n := min(len(pl.p.Nodes), max(pl.opts.Candidates, job.PS+job.Workers))
	pool := pl.pool[:0]
	defer func() {
		pl.release(pool)
		pl.pool = pool[:0]
	}()
	for len(pool) < n && job.PS > 0 && job.Workers > 0 {
		i := pl.st.popBest()
		if i < 0 {
			break
		}
		pool = append(pool, i)
		if pl.st.fitsMix(i, job.PSDemand, job.PS, job.WorkerDemand, job.Workers) {
			pl.placeSplit(j, []layout.Slot{{Node: i, PS: job.PS, Workers: job.Workers}})
			return
		}
	}
	if split := pl.evenSplit(j, pool, 2); split != nil {
		pl.placeSplit(j, split)
		return
	}
	pl.jobs[j].Method = MethodFallback
	inPool := make(map[int]bool, len(pool))
	for _, i := range pool {
		inPool[i] = true
	}
	pl.placeOneByOne(j, pool, func(d []float64, pool []int) int {
		for _, i := range pool {
			if pl.st.fits(i, d, 1) {
				return i
			}
		}
		return pl.st.firstFit(d, func(i int) bool { return inPool[i] })
	})
}

// placePacking puts job j's tasks where its Packing says, if every node
// there has room for them, and reports whether it did.
func (pl *placer) placePacking(j int) bool {
	job := &pl.p.Jobs[j]
	for _, s := range job.Packing {
		if !pl.st.fitsMix(s.Node, job.PSDemand, s.PS, job.WorkerDemand, s.Workers) {
			return false
		}
	}
	pl.placeSplit(j, job.Packing)
	pl.jobs[j].Method = MethodSolve
	return true
}

// placeSplit puts job j's tasks on the nodes of an even split.
func (pl *placer) placeSplit(j int, split []layout.Slot) {
	job := &pl.p.Jobs[j]
	var next [2]int
	for _, c := range split {
		pl.st.take(c.Node, job.PSDemand, c.PS)
		pl.st.take(c.Node, job.WorkerDemand, c.Workers)
		for range c.PS {
			pl.tasks[j] = append(pl.tasks[j], Placed{Job: j, Role: PS, Index: next[PS], Node: c.Node})
			next[PS]++
		}
		for range c.Workers {
			pl.tasks[j] = append(pl.tasks[j], Placed{Job: j, Role: Worker, Index: next[Worker], Node: c.Node})
			next[Worker]++
		}
	}
	pl.jobs[j].Method = MethodEven
}

// Per-node shapes of an even split on k nodes: c is the ceiling count, f
// the floor.
const (
	shapeCC = iota // ⌈p/k⌉ PS, ⌈w/k⌉ workers
	shapeCF        // ⌈p/k⌉ PS, ⌊w/k⌋ workers
	shapeFC        // ⌊p/k⌋ PS, ⌈w/k⌉ workers
	shapeFF        // ⌊p/k⌋ PS, ⌊w/k⌋ workers
)

// evenSplit finds the fewest nodes, at least kmin, among pool (in pool order
// of preference) that hold an even split of job j, or returns nil.
//
// For k nodes, rP = p mod k of them hold ⌈p/k⌉ PS and the others ⌊p/k⌋,
// and rW = w mod k hold ⌈w/k⌉ workers. Say x nodes get shape CC (both
// ceilings): then rP-x get CF (the PS ceiling, the worker floor), rW-x get
// FC and k-rP-rW+x get FF (both floors), for some x in
// [max(0, rP+rW-k), min(rP, rW)]. A node that holds a shape holds every
// smaller one, so nodes fall into classes by the shapes they hold: CC and
// so all (class A, nA), CF and FC but not CC (B, nB), CF only (C1, nC1),
// FC only (C2, nC2), FF only (D, nD). For a given x the split exists
// exactly when x <= nA, the CF and FC nodes fit in C1 and C2 and, beyond
// them, in the flexible nodes (B plus the rest of A: isFlex in buildSplit),
// and the FF nodes in whatever is left; the matching is then built
// greedily in that order.
func (pl *placer) evenSplit(j int, pool []int, kmin int) []layout.Slot {
	job := &pl.p.Jobs[j]
	p, w := job.PS, job.Workers
	if p < 1 || w < 1 {
		return nil
	}
	kmax := min(max(p, w), len(pool))
	holds := make([][4]bool, len(pool))
	for k := kmin; k <= kmax; k++ {
		qP, rP, qW, rW := p/k, p%k, w/k, w%k
		shapes := [4][2]int{{qP + 1, qW + 1}, {qP + 1, qW}, {qP, qW + 1}, {qP, qW}}
		var nA, nB, nC1, nC2, nD int
		for i, n := range pool {
			h := &holds[i]
			h[shapeFF] = pl.st.fitsMix(n, job.PSDemand, qP, job.WorkerDemand, qW)
			if !h[shapeFF] {
				h[shapeCC], h[shapeCF], h[shapeFC] = false, false, false
				continue
			}
			h[shapeCF] = rP > 0 && pl.st.fitsMix(n, job.PSDemand, qP+1, job.WorkerDemand, qW)
			h[shapeFC] = rW > 0 && pl.st.fitsMix(n, job.PSDemand, qP, job.WorkerDemand, qW+1)
			h[shapeCC] = h[shapeCF] && h[shapeFC] && pl.st.fitsMix(n, job.PSDemand, qP+1, job.WorkerDemand, qW+1)
			switch {
			case h[shapeCC]:
				nA++
			case h[shapeCF] && h[shapeFC]:
				nB++
			case h[shapeCF]:
				nC1++
			case h[shapeFC]:
				nC2++
			default:
				nD++
			}
		}
		for x := min(rP, rW); x >= max(0, rP+rW-k); x-- {
			needCC, needCF, needFC, needFF := x, rP-x, rW-x, k-rP-rW+x
			if needCC > nA {
				continue
			}
			flex := nB + nA - needCC
			useC1, useC2 := min(needCF, nC1), min(needFC, nC2)
			extraCF, extraFC := needCF-useC1, needFC-useC2
			if extraCF+extraFC > flex {
				continue
			}
			if needFF > nD+(nC1-useC1)+(nC2-useC2)+(flex-extraCF-extraFC) {
				continue
			}
			return pl.buildSplit(pool, holds, shapes, needCC, useC1, extraCF, useC2, extraFC, needFF)
		}
	}
	return nil
}

// buildSplit picks the nodes of a feasible even split (see evenSplit), each
// class in pool order.
func (pl *placer) buildSplit(pool []int, holds [][4]bool, shapes [4][2]int, needCC, useC1, extraCF, useC2, extraFC, needFF int) []layout.Slot {
	used := make([]bool, len(pool))
	shapeOf := make([]int, len(pool))
	pick := func(count, shape int, class func(h [4]bool) bool) {
		for i := 0; i < len(pool) && count > 0; i++ {
			if !used[i] && class(holds[i]) {
				used[i], shapeOf[i] = true, shape
				count--
			}
		}
	}
	isA := func(h [4]bool) bool { return h[shapeCC] }
	isC1 := func(h [4]bool) bool { return h[shapeCF] && !h[shapeFC] }
	isC2 := func(h [4]bool) bool { return h[shapeFC] && !h[shapeCF] }
	isFlex := func(h [4]bool) bool { return h[shapeCF] && h[shapeFC] }
	pick(needCC, shapeCC, isA)
	pick(useC1, shapeCF, isC1)
	pick(extraCF, shapeCF, isFlex)
	pick(useC2, shapeFC, isC2)
	pick(extraFC, shapeFC, isFlex)
	pick(needFF, shapeFF, func(h [4]bool) bool { return h[shapeFF] })
	var split []layout.Slot
	for i, n := range pool {
		if used[i] {
			s := shapes[shapeOf[i]]
			split = append(split, layout.Slot{Node: n, PS: s[0], Workers: s[1]})
		}
	}
	return split
}

// placeOneByOne places job j's tasks one at a time, alternating PS and
// worker, each on the node choose returns (-1: none). A job that ends with
// at least 1 PS and 1 worker runs with what was placed; otherwise its tasks
// are removed and it waits.
func (pl *placer) placeOneByOne(j int, pool []int, choose func(d []float64, pool []int) int) {
	job := &pl.p.Jobs[j]
	var placed [2]int
	// Free capacity only shrinks here, so once a role finds no room it
	// never will again: stop trying it.
	var full [2]bool
	for i := 0; i < max(job.PS, job.Workers) && !(full[PS] && full[Worker]); i++ {
		for _, role := range []Role{PS, Worker} {
			want := job.PS
			if role == Worker {
				want = job.Workers
			}
			if i >= want {
				full[role] = true
				continue
			}
			if full[role] {
				continue
			}
			d := pl.demand(j, role)
			n := choose(d, pool)
			if n < 0 {
				full[role] = true
				continue
			}
			pl.st.take(n, d, 1)
			pl.tasks[j] = append(pl.tasks[j], Placed{Job: j, Role: role, Index: placed[role], Node: n})
			placed[role]++
		}
	}
	res := &pl.jobs[j]
	if placed[PS] >= min(1, job.PS) && placed[Worker] >= 1 {
		if placed[PS] < job.PS || placed[Worker] < job.Workers {
			res.Reason = joinReason(res.Reason, fmt.Sprintf("reduced: placed %d of %d PS and %d of %d workers; no node had room for the rest",
				placed[PS], job.PS, placed[Worker], job.Workers))
		}
		return
	}
	for _, t := range pl.tasks[j] {
		pl.st.take(t.Node, pl.demand(j, t.Role), -1)
	}
	pl.tasks[j] = nil
	res.Status, res.Method = Waiting, ""
	if job.PS == 0 {
		res.Reason = joinReason(res.Reason, "no room for a worker")
		return
	}
	res.Reason = joinReason(res.Reason, fmt.Sprintf("no room for at least 1 PS and 1 worker (placed %d PS, %d workers, then removed them)", placed[PS], placed[Worker]))
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// spreadNode is the node with the most free capacity where a task of
// demand d fits: the best of the Candidates most free nodes, else the first
// fit in cluster order.
func (pl *placer) spreadNode(d []float64, _ []int) int {
	var popped []int
	defer func() {
		for _, i := range popped {
			pl.st.push(i)
		}
	}()
	for range pl.opts.Candidates {
		i := pl.st.popBest()
		if i < 0 {
			break
		}
		popped = append(popped, i)
		if pl.st.fits(i, d, 1) {
			return i
		}
	}
	return pl.st.firstFit(d, nil)
}

// packNode is the first node in cluster order where a task of demand d
// fits.
func (pl *placer) packNode(d []float64, _ []int) int {
	return pl.st.firstFit(d, nil)
}

func (pl *placer) result() *Result {
	res := &Result{Policy: pl.opts.Policy, Jobs: pl.jobs, Order: pl.order}
	// The tasks move to the front of the array they were placed in, job
	// after job: a job's share starts at or after where its tasks go, and
	// append moves memory that overlaps.
	tasks := pl.taskArray[:0]
	for j := range pl.p.Jobs {
		slices.SortFunc(pl.tasks[j], func(a, b Placed) int {
			if a.Role != b.Role {
				return int(a.Role) - int(b.Role)
			}
			return a.Index - b.Index
		})
		start := len(tasks)
		tasks = append(tasks, pl.tasks[j]...)
		ts := tasks[start:]
		jr := &res.Jobs[j]
		if jr.Status != Running {
			continue
		}
		pl.startCount()
		for _, t := range ts {
			pl.countTask(t.Node, t.Role)
			if t.Role == PS {
				jr.PS++
			} else {
				jr.Workers++
			}
		}
		jr.Servers = len(pl.nodes)
		jr.Even, jr.CrossTraffic = JobSpread(len(pl.nodes), func(i int) (int, int) {
			c := pl.perNode[pl.nodes[i]]
			return c[PS], c[Worker]
		})
	}
	res.Tasks = tasks[:len(tasks):len(tasks)]
	res.Free = make([][]float64, len(pl.p.Nodes))
	free := slices.Clone(pl.st.free)
	for i := range res.Free {
		res.Free[i] = free[i*pl.nr : (i+1)*pl.nr : (i+1)*pl.nr]
	}
	return res
}
