package solve

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
)

// balanced is a synchronous speed model (global batch 32) in which both
// more workers (compute 0.32/w s per step) and more PS (push/pull 0.01·w/p
// s) help for a while, so that hand-made cases have a clear optimum.
var balanced = fit.SpeedModel{Mode: fit.Sync, GlobalBatch: 32, Theta: [5]float64{0.01, 0.01, 0.01, 0.001, 0.001}}

// balancedJob is a job of the balanced model with demands on (gpu, cpu): a
// worker takes 1 GPU and 2 cores, a PS 4 cores; remaining steps are in
// thousands.
func balancedJob(name string, arrival, ksteps float64) Job {
	return Job{Name: name, Arrival: arrival, Weight: 1, Remaining: 1000 * ksteps, Speed: balanced,
		Worker: []float64{1, 2}, PS: []float64{0, 4}}
}

var resources = []string{"gpu", "cpu"}

// resnet is the resnet-50 speed model fitted to the embedded measurements.
func model(t testing.TB, name string) datasets.JobModel {
	t.Helper()
	models, err := datasets.JobModels()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no model %q", name)
	return datasets.JobModel{}
}

// simpleJob is a job of the given model with demands on (gpu, cpu): a
// worker takes 1 GPU and 2 cores, a PS 4 cores.
func simpleJob(t testing.TB, name string, arrival, epochs float64) Job {
	m := model(t, "resnet-50")
	return Job{Name: name, Arrival: arrival, Weight: 1, Remaining: epochs * float64(m.EpochSteps), Speed: m.Speed,
		Worker: []float64{1, 2}, PS: []float64{0, 4}}
}

func mustSolve(t *testing.T, p *Problem, opts Options) *Result {
	t.Helper()
	res, err := Solve(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkInvariants verifies what every plan of every policy must satisfy:
// capacity never exceeded on any resource (recomputed from the decisions),
// limits kept, running jobs with at least 1 PS and 1 worker, waiting and
// done jobs with none, and the reported totals.
func checkInvariants(t *testing.T, p *Problem, res *Result) {
	t.Helper()
	capacity := make([]float64, len(p.Resources))
	for _, n := range p.Nodes {
		for r, c := range n {
			capacity[r] += c
		}
	}
	used := make([]float64, len(p.Resources))
	objective := 0.0
	for j, d := range res.Decisions {
		job := &p.Jobs[j]
		for r := range used {
			used[r] += float64(d.Workers)*job.Worker[r] + float64(d.PS)*job.PS[r]
		}
		switch d.Status {
		case Running:
			if d.PS < job.minPS() || d.Workers < 1 || job.allReduce() && d.PS != 0 {
				t.Errorf("%s: running with %d PS and %d workers (all-reduce: %t)", job.Name, d.PS, d.Workers, job.allReduce())
			}
			if job.MaxPS > 0 && d.PS > job.MaxPS || job.MaxWorkers > 0 && d.Workers > job.MaxWorkers {
				t.Errorf("%s: %d PS + %d workers beyond its limits %d + %d", job.Name, d.PS, d.Workers, job.MaxPS, job.MaxWorkers)
			}
			objective += job.Weight * job.Remaining / job.Speed.Speed(d.PS, d.Workers)
		case Waiting, Done:
			if d.PS != 0 || d.Workers != 0 {
				t.Errorf("%s: %s with %d PS and %d workers", job.Name, d.Status, d.PS, d.Workers)
			}
			if d.Reason == "" {
				t.Errorf("%s: %s without a reason", job.Name, d.Status)
			}
		default:
			t.Errorf("%s: status %q", job.Name, d.Status)
		}
	}
	for r, u := range used {
		if u > capacity[r]*(1+1e-9)+1e-9 {
			t.Errorf("%s: %v used of %v", p.Resources[r], u, capacity[r])
		}
		if math.Abs(u-res.Used[r]) > 1e-6*math.Max(1, u) {
			t.Errorf("%s: reported use %v, recomputed %v", p.Resources[r], res.Used[r], u)
		}
	}
	if math.Abs(objective-res.Objective) > 1e-9*math.Max(1, objective) {
		t.Errorf("objective %v, recomputed %v", res.Objective, objective)
	}
	checkPacking(t, p, res)
}

// checkPacking verifies, for a plan checked node by node, that its packing
// holds every running job's tasks, and no other, within every node's
// capacity.
func checkPacking(t *testing.T, p *Problem, res *Result) {
	t.Helper()
	if res.CapacityCheck == AggregateCapacity {
		if res.Packing != nil {
			t.Errorf("aggregate capacity with a packing")
		}
		return
	}
	if len(res.Packing) != len(p.Jobs) {
		t.Fatalf("packing of %d jobs for %d", len(res.Packing), len(p.Jobs))
	}
	used := make([][]float64, len(p.Nodes))
	for i := range used {
		used[i] = make([]float64, len(p.Resources))
	}
	for j, d := range res.Decisions {
		job := &p.Jobs[j]
		var ps, w int
		seen := map[int]bool{}
		for _, s := range res.Packing[j] {
			if seen[s.Node] || s.PS < 0 || s.Workers < 0 || s.PS+s.Workers == 0 {
				t.Errorf("%s: packing entry %+v (node listed twice or no task)", job.Name, s)
			}
			seen[s.Node] = true
			ps += s.PS
			w += s.Workers
			for r := range p.Resources {
				used[s.Node][r] += float64(s.PS)*job.PS[r] + float64(s.Workers)*job.Worker[r]
			}
		}
		if ps != d.PS || w != d.Workers {
			t.Errorf("%s: packing holds %d PS + %d workers, the plan %d + %d", job.Name, ps, w, d.PS, d.Workers)
		}
	}
	for i, u := range used {
		for r, x := range u {
			if c := p.Nodes[i][r]; x > c*(1+1e-9)+1e-9 {
				t.Errorf("node %d: %s %v packed on %v", i, p.Resources[r], x, c)
			}
		}
	}
}

// randomProblem is a realistic instance with running jobs: a third of the
// jobs run now at a random allocation, some beyond what fits. In one
// problem in 16, half the jobs are all-reduce jobs of Pollux's
// applications (pollux plans only those: without them its plans would all
// be empty; its search on them is most of the time such a problem takes).
func randomProblem(t testing.TB, rng *rand.Rand) *Problem {
	p := realisticProblem(t, rng, 2+rng.IntN(12), 8, rng.IntN(2) == 0)
	for range rng.IntN(4) {
		p.Nodes = append(p.Nodes, []float64{8, 64, 512, 50})
	}
	withAllReduce := rng.IntN(16) == 0
	for j := range p.Jobs {
		if withAllReduce && rng.IntN(2) == 0 {
			models := allReduceModels(t)
			sm := models[rng.IntN(len(models))]
			f := 0.9 + 0.2*rng.Float64()
			for k := range sm.Theta {
				sm.Theta[k] /= f
			}
			p.Jobs[j].Speed = sm
			p.Jobs[j].Remaining = float64(100 + rng.IntN(20000))
		}
		if rng.IntN(3) == 0 {
			p.Jobs[j].CurPS, p.Jobs[j].CurWorkers = 1+rng.IntN(5), 1+rng.IntN(5)
			if p.Jobs[j].allReduce() && rng.IntN(4) != 0 {
				p.Jobs[j].CurPS = 0
			}
		}
		if rng.IntN(4) == 0 {
			p.Jobs[j].MaxPS, p.Jobs[j].MaxWorkers = 0, 0
		}
	}
	return p
}

// allReduceModels are the all-reduce speed models of Pollux's
// applications at their first profiled batch, on nodes of 4 GPUs (fitted
// once).
var allReduceModels = func() func(t testing.TB) []fit.SpeedModel {
	var once sync.Once
	var models []fit.SpeedModel
	var err error
	return func(t testing.TB) []fit.SpeedModel {
		t.Helper()
		once.Do(func() {
			var profiles map[string]*datasets.PolluxProfile
			if profiles, err = datasets.PolluxProfiles(); err != nil {
				return
			}
			for _, app := range slices.Sorted(maps.Keys(profiles)) {
				pr := profiles[app]
				var f fit.SpeedFit
				if f, err = datasets.PolluxTrueModel(pr, pr.Batches[0], 16, 4, 4); err != nil {
					err = fmt.Errorf("%s: %w", app, err)
					return
				}
				models = append(models, f.Model)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return models
	}
}()

func TestEveryPolicyKeepsCapacityAndLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	// The restart cost varies for the policies that read it (their knobs
	// say which): for the others a plan does not depend on it, and solving
	// again at another cost would repeat the same work (Pollux's search is
	// most of this test's time).
	restartCosts := map[Policy][]float64{}
	for _, e := range PolicyEntries() {
		restartCosts[e.Name] = []float64{DefaultRestartCost}
		if slices.Contains(e.Knobs, restartCostKnob) {
			restartCosts[e.Name] = []float64{0, 300, 1e9}
		}
	}
	running := map[Policy]int{}
	for i := range 300 {
		p := randomProblem(t, rng)
		if i < 10 {
			checkRestartCostIgnored(t, p, restartCosts)
		}
		for _, policy := range Policies {
			for _, rc := range restartCosts[policy] {
				for _, capacity := range CapacityChecks {
					t.Run(fmt.Sprintf("%d/%s/restart=%g/%s", i, policy, rc, capacity), func(t *testing.T) {
						res := mustSolve(t, p, Options{Policy: policy, RestartCost: rc, TetrisSRTFWeight: 0.5, Capacity: capacity})
						checkInvariants(t, p, res)
						for _, d := range res.Decisions {
							if d.Status == Running {
								running[policy]++
							}
						}
					})
				}
			}
		}
	}
	// Every policy plans some job in some problem (pollux only all-reduce
	// ones): the invariants are checked on plans that hold tasks.
	t.Logf("running decisions by policy: %v", running)
	for _, policy := range Policies {
		if running[policy] == 0 {
			t.Errorf("%s ran no job in any problem", policy)
		}
	}
}

// checkRestartCostIgnored fails unless each policy solved at one restart
// cost (restartCosts) plans p at costs 0 and 1e9 exactly as at the default.
func checkRestartCostIgnored(t *testing.T, p *Problem, restartCosts map[Policy][]float64) {
	t.Helper()
	for _, policy := range Policies {
		if len(restartCosts[policy]) > 1 {
			continue
		}
		for _, capacity := range CapacityChecks {
			opts := Options{Policy: policy, RestartCost: DefaultRestartCost, TetrisSRTFWeight: 0.5, Capacity: capacity}
			want := fmt.Sprintf("%+v", *mustSolve(t, p, opts))
			for _, rc := range []float64{0, 1e9} {
				opts.RestartCost = rc
				if got := fmt.Sprintf("%+v", *mustSolve(t, p, opts)); got != want {
					t.Fatalf("%s, %s capacity: restart cost %g changes the plan of a policy without the restart-cost knob:\n%s\n%s", policy, capacity, rc, got, want)
				}
			}
		}
	}
}

func TestIdenticalInputGivesIdenticalPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		p := randomProblem(t, rng)
		for _, policy := range Policies {
			for _, capacity := range CapacityChecks {
				opts := Options{Policy: policy, RestartCost: 300, TetrisSRTFWeight: 0.5, Capacity: capacity}
				a := fmt.Sprintf("%+v", *mustSolve(t, p, opts))
				b := fmt.Sprintf("%+v", *mustSolve(t, p, opts))
				if a != b {
					t.Fatalf("%s, %s capacity: two solves of the same problem differ:\n%s\n%s", policy, capacity, a, b)
				}
			}
		}
	}
}

// A job that cannot be planned waits with a reason saying why; the other
// jobs are still planned.
func TestOneJobsProblemOnlyMakesThatJobWait(t *testing.T) {
	nodes := [][]float64{{4, 16}, {4, 16}, {0, 64}}
	cases := []struct {
		name   string
		edit   func(j *Job)
		status Status
		reason string
	}{
		{"worker larger than every node", func(j *Job) { j.Worker = []float64{5, 2} }, Waiting,
			"one worker (gpu 5, cpu 2) fits on no node: the largest gpu of a node is 4"},
		{"PS larger than every node in two resources at once", func(j *Job) { j.PS = []float64{1, 32} }, Waiting,
			"one PS (gpu 1, cpu 32) fits on no node: no node has enough of all of them at once"},
		{"task demanding nothing", func(j *Job) { j.PS = []float64{0, 0} }, Waiting,
			"one PS demands nothing of any resource"},
		{"missing prediction", func(j *Job) { j.Invalid = "no prediction: remaining_steps_p50 is null (stdin row 2)" }, Waiting,
			"no prediction: remaining_steps_p50 is null (stdin row 2)"},
		{"remaining steps not a number", func(j *Job) { j.Remaining = math.NaN() }, Waiting,
			"no usable prediction: remaining steps NaN"},
		{"speed model of zeros", func(j *Job) { j.Speed.Theta = [5]float64{} }, Waiting,
			"no usable speed model: it predicts +Inf steps/s"},
		{"zero weight", func(j *Job) { j.Weight = 0 }, Waiting, "weight 0: must be a finite number > 0"},
		{"finished", func(j *Job) { j.Remaining = 0 }, Done, "no remaining steps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, policy := range psPolicies() {
				p := &Problem{Resources: resources, Nodes: nodes, Jobs: []Job{
					simpleJob(t, "a", 0, 10), simpleJob(t, "bad", 1, 10), simpleJob(t, "c", 2, 10)}}
				for j := range p.Jobs {
					// Requests, so that the baselines do not give all to one job.
					p.Jobs[j].MaxPS, p.Jobs[j].MaxWorkers = 2, 2
				}
				tc.edit(&p.Jobs[1])
				res := mustSolve(t, p, Options{Policy: policy, RestartCost: 300, TetrisSRTFWeight: 0.5})
				checkInvariants(t, p, res)
				bad := res.Decisions[1]
				if bad.Status != tc.status || !strings.Contains(bad.Reason, tc.reason) {
					t.Errorf("%s: bad job: %s %q, want %s containing %q", policy, bad.Status, bad.Reason, tc.status, tc.reason)
				}
				for _, j := range []int{0, 2} {
					if d := res.Decisions[j]; d.Status != Running {
						t.Errorf("%s: job %s is %s (%s): the bad job must not stop the others", policy, p.Jobs[j].Name, d.Status, d.Reason)
					}
				}
			}
		})
	}
}

// Phase 1 of the greedy: 1 PS + 1 worker per job in arrival order; a job
// for which they do not fit waits, and later jobs that fit still run.
func TestFirstTasksInArrivalOrder(t *testing.T) {
	big := simpleJob(t, "big-early", 0, 10)
	big.Worker = []float64{3, 2}
	late := simpleJob(t, "late", 2, 1)
	mid := simpleJob(t, "mid", 1, 10)
	mid.Worker = []float64{2, 2}
	cpuOnly := simpleJob(t, "cpu-only", 3, 10)
	cpuOnly.Worker = []float64{0, 2}
	// Jobs listed out of arrival order: the order is by arrival_s.
	p := &Problem{Resources: resources, Nodes: [][]float64{{4, 64}}, Jobs: []Job{late, cpuOnly, big, mid}}
	res := mustSolve(t, p, Options{Policy: Optimus})
	checkInvariants(t, p, res)
	want := map[string]Status{"big-early": Running, "mid": Waiting, "late": Running, "cpu-only": Running}
	for j, d := range res.Decisions {
		if d.Status != want[p.Jobs[j].Name] {
			t.Errorf("%s: %s (%s), want %s", p.Jobs[j].Name, d.Status, d.Reason, want[p.Jobs[j].Name])
		}
	}
	if r := res.Decisions[3].Reason; !strings.Contains(r, "1 PS + 1 worker did not fit") {
		t.Errorf("mid waits for %q", r)
	}
}

// When the best candidate does not fit the greedy tries the next: with the
// GPUs gone, a worker would gain most, but the jobs still get the PS (CPU
// only) that speed them up. The authors' code stops at that worker.
func TestGreedyTriesTheNextCandidate(t *testing.T) {
	p := &Problem{Resources: resources, Nodes: [][]float64{{2, 64}}, Jobs: []Job{balancedJob("a", 0, 40), balancedJob("b", 1, 40)}}
	res := mustSolve(t, p, Options{Policy: Optimus})
	checkInvariants(t, p, res)
	for j, d := range res.Decisions {
		if d.Workers != 1 || d.PS < 2 {
			t.Errorf("%s: %d PS + %d workers; want 1 worker (the GPUs are gone) and more PS", p.Jobs[j].Name, d.PS, d.Workers)
		}
		if !strings.HasPrefix(d.Reason, "workers: cluster full (one more would gain") {
			t.Errorf("%s: reason %q", p.Jobs[j].Name, d.Reason)
		}
	}
	in := newInstance(p)
	in.stopAtFirstMisfit = true
	paper := in.greedy(nil)
	if paper.ps[0] != 1 || paper.ps[1] != 1 {
		t.Errorf("stopping at the first misfit gave %v PS, want 1 each", paper.ps)
	}
}

func TestLimitsAndWeights(t *testing.T) {
	a, b := balancedJob("a", 0, 40), balancedJob("b", 1, 40)
	a.MaxPS, a.MaxWorkers = 2, 3
	p := &Problem{Resources: resources, Nodes: [][]float64{{16, 256}}, Jobs: []Job{a, b}}
	res := mustSolve(t, p, Options{Policy: Optimus})
	checkInvariants(t, p, res)
	if d := res.Decisions[0]; d.PS != 2 || d.Workers != 3 || d.Reason != "workers: at the job's maximum; PS: at the job's maximum" {
		t.Errorf("limited job: %d PS + %d workers, %q", d.PS, d.Workers, d.Reason)
	}
	// Equal jobs, one three times as important, competing for 6 GPUs: the
	// heavier one gets at least as many workers.
	heavy, light := balancedJob("heavy", 0, 40), balancedJob("light", 1, 40)
	heavy.Weight = 3
	p = &Problem{Resources: resources, Nodes: [][]float64{{6, 256}}, Jobs: []Job{light, heavy}}
	res = mustSolve(t, p, Options{Policy: Optimus})
	checkInvariants(t, p, res)
	if res.Decisions[1].Workers <= res.Decisions[0].Workers {
		t.Errorf("weight 3 got %d workers, weight 1 got %d", res.Decisions[1].Workers, res.Decisions[0].Workers)
	}
}

// The stability rule: a running job's allocation changes only when the
// predicted gain beats the restart cost.
func TestRestartCostKeepsRunningJobsUnlessWorthIt(t *testing.T) {
	running := simpleJob(t, "running", 0, 20)
	running.CurPS, running.CurWorkers = 1, 1
	p := &Problem{Resources: resources, Nodes: [][]float64{{8, 128}}, Jobs: []Job{running}}
	free := mustSolve(t, p, Options{Policy: Optimus, RestartCost: 0})
	saves := free.Decisions[0].ChangeSaves
	if !(saves > 0) || !free.Decisions[0].Changed {
		t.Fatalf("from scratch the lone job should grow: %+v", free.Decisions[0])
	}
	cases := []struct {
		name    string
		cost    float64
		changed bool
		reason  string
	}{
		{"no restart cost: re-solved from scratch", 0, true, ""},
		{"gain above the cost: grows", 0.9 * saves, true, ""},
		{"gain below the cost: kept", 1.1 * saves, false, "kept 1 PS + 1 workers: changing to"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := mustSolve(t, p, Options{Policy: Optimus, RestartCost: tc.cost})
			checkInvariants(t, p, res)
			d := res.Decisions[0]
			if d.Changed != tc.changed || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("changed %v (%d PS + %d workers, %q), want %v and a reason containing %q",
					d.Changed, d.PS, d.Workers, d.Reason, tc.changed, tc.reason)
			}
			if tc.changed && (d.PS != free.Decisions[0].PS || d.Workers != free.Decisions[0].Workers) {
				t.Errorf("changed to %d+%d, the plan from scratch says %d+%d", d.PS, d.Workers, free.Decisions[0].PS, free.Decisions[0].Workers)
			}
		})
	}

	// A new job must not wait because a running job keeps GPUs it got when
	// the cluster was empty, whatever the restart cost.
	hog := simpleJob(t, "hog", 0, 20)
	hog.CurPS, hog.CurWorkers = 2, 4
	newcomer := simpleJob(t, "newcomer", 1, 20)
	p = &Problem{Resources: resources, Nodes: [][]float64{{4, 128}}, Jobs: []Job{hog, newcomer}}
	res := mustSolve(t, p, Options{Policy: Optimus, RestartCost: 1e9})
	checkInvariants(t, p, res)
	if res.Decisions[1].Status != Running || !res.Decisions[0].Changed {
		t.Errorf("newcomer %s, hog changed %v: the newcomer must run", res.Decisions[1].Status, res.Decisions[0].Changed)
	}

	// With an enormous restart cost a running job changes only when keeping
	// every running job would leave more jobs waiting.
	rng := rand.New(rand.NewPCG(5, 6))
	restarts, forced := 0, 0
	for range 200 {
		p := randomProblem(t, rng)
		res := mustSolve(t, p, Options{Policy: Optimus, RestartCost: 1e12})
		checkInvariants(t, p, res)
		in := prepare(p, Options{Policy: Optimus, RestartCost: 1e12})
		pinAll := make([]bool, len(p.Jobs))
		for j := range p.Jobs {
			pinAll[j] = in.pinnable(j)
		}
		keepAll := in.greedy(pinAll)
		in.chargeRestarts(keepAll, 1e12)
		keepWaiting, _ := in.objective(keepAll)
		resWaiting := 0.0
		for j, d := range res.Decisions {
			if d.Status == Waiting && in.pre[j] == "" {
				resWaiting += p.Jobs[j].Weight
			}
		}
		if resWaiting > keepWaiting || resWaiting == keepWaiting && res.RestartCost > keepAll.restartCost {
			t.Errorf("plan with %v waiting and restart cost %v; keeping every running job that fits: %v waiting, %v",
				resWaiting, res.RestartCost, keepWaiting, keepAll.restartCost)
		}
		if resWaiting < keepWaiting {
			forced++
		}
		restarts += res.Restarts
	}
	t.Logf("restart cost 1e12, 200 instances: %d restarts; %d plans restart jobs to let waiting jobs run", restarts, forced)
}

// DRF equalises dominant shares; FIFO serves requests in arrival order;
// Tetris with a full shortest-remaining-time bias serves the short job
// first.
func TestBaselines(t *testing.T) {
	t.Run("drf equal shares", func(t *testing.T) {
		a, b := simpleJob(t, "a", 0, 10), simpleJob(t, "b", 1, 60)
		p := &Problem{Resources: resources, Nodes: [][]float64{{8, 256}}, Jobs: []Job{a, b}}
		res := mustSolve(t, p, Options{Policy: DRF})
		checkInvariants(t, p, res)
		if da, db := res.Decisions[0], res.Decisions[1]; da.Workers != 4 || db.Workers != 4 || da.PS != 4 || db.PS != 4 {
			t.Errorf("drf gave %d+%d and %d+%d, want 4 PS + 4 workers each", da.PS, da.Workers, db.PS, db.Workers)
		}
	})
	t.Run("drf weights", func(t *testing.T) {
		a, b := simpleJob(t, "a", 0, 10), simpleJob(t, "b", 1, 60)
		a.Weight = 3
		p := &Problem{Resources: resources, Nodes: [][]float64{{8, 256}}, Jobs: []Job{a, b}}
		res := mustSolve(t, p, Options{Policy: DRF})
		if da, db := res.Decisions[0], res.Decisions[1]; da.Workers != 6 || db.Workers != 2 {
			t.Errorf("drf weights 3:1 gave %d and %d workers, want 6 and 2", da.Workers, db.Workers)
		}
	})
	t.Run("fifo requests in order", func(t *testing.T) {
		a, b, c := simpleJob(t, "a", 0, 10), simpleJob(t, "b", 1, 10), simpleJob(t, "c", 2, 10)
		a.MaxPS, a.MaxWorkers = 2, 3
		b.MaxPS, b.MaxWorkers = 1, 4 // does not fit after a
		c.CurPS, c.CurWorkers = 1, 1 // no limits: asks for what it runs with
		p := &Problem{Resources: resources, Nodes: [][]float64{{5, 256}}, Jobs: []Job{a, b, c}}
		res := mustSolve(t, p, Options{Policy: FIFO})
		checkInvariants(t, p, res)
		got := fmt.Sprintf("%d+%d %s, %d+%d %s, %d+%d %s", res.Decisions[0].PS, res.Decisions[0].Workers, res.Decisions[0].Status,
			res.Decisions[1].PS, res.Decisions[1].Workers, res.Decisions[1].Status, res.Decisions[2].PS, res.Decisions[2].Workers, res.Decisions[2].Status)
		if want := "2+3 running, 0+0 waiting, 1+1 running"; got != want {
			t.Errorf("fifo: %s, want %s", got, want)
		}
	})
	t.Run("tetris shortest remaining first", func(t *testing.T) {
		long, short := simpleJob(t, "long", 0, 60), simpleJob(t, "short", 1, 2)
		p := &Problem{Resources: resources, Nodes: [][]float64{{4, 256}}, Jobs: []Job{long, short}}
		res := mustSolve(t, p, Options{Policy: Tetris, TetrisSRTFWeight: 1})
		checkInvariants(t, p, res)
		if res.Decisions[1].Workers <= res.Decisions[0].Workers {
			t.Errorf("tetris with full SRTF bias gave the short job %d workers, the long one %d", res.Decisions[1].Workers, res.Decisions[0].Workers)
		}
	})
}

func TestBadOptions(t *testing.T) {
	p := &Problem{Resources: resources, Nodes: [][]float64{{4, 16}}, Jobs: []Job{simpleJob(t, "a", 0, 1)}}
	for _, opts := range []Options{{Policy: "sjf"}, {RestartCost: -1}, {RestartCost: math.Inf(1)}, {TetrisSRTFWeight: 2}} {
		if _, err := Solve(p, opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
	bad := &Problem{Resources: resources, Nodes: [][]float64{{4}}, Jobs: p.Jobs}
	if _, err := Solve(bad, Options{}); err == nil {
		t.Error("a node with too few capacities: no error")
	}
}

// The paper checks the cluster's totals only; node by node an allocation
// that fits the totals may not pack. Two nodes of 1 GPU and 4 cores; a
// worker takes 1 GPU and 3 cores, a PS 2 cores: in total 1 PS and 2
// workers fit (8 cores), but then the PS fits on neither node.
func TestNodeCapacityKeepsTheAllocationPackable(t *testing.T) {
	job := balancedJob("a", 0, 40)
	job.Worker, job.PS = []float64{1, 3}, []float64{0, 2}
	job.MaxPS, job.MaxWorkers = 1, 2
	p := &Problem{Resources: resources, Nodes: [][]float64{{1, 4}, {1, 4}}, Jobs: []Job{job}}
	in := prepare(p, Options{Capacity: AggregateCapacity})
	for _, policy := range []Policy{Optimus, FIFO} {
		agg := mustSolve(t, p, Options{Policy: policy, Capacity: AggregateCapacity})
		checkInvariants(t, p, agg)
		if d := agg.Decisions[0]; d.PS != 1 || d.Workers != 2 || agg.Packing != nil || packs(in, allocOf(agg)) {
			t.Errorf("%s, aggregate: %d PS + %d workers (packing %v), want 1 + 2, which does not pack", policy, d.PS, d.Workers, agg.Packing)
		}
		res := mustSolve(t, p, Options{Policy: policy})
		checkInvariants(t, p, res)
		d := res.Decisions[0]
		if res.CapacityCheck != NodeCapacity || !strings.Contains(d.Reason, "no node has room") {
			t.Errorf("%s, nodes: %s, %d PS + %d workers, %q", policy, d.Status, d.PS, d.Workers, d.Reason)
		}
		if policy == Optimus && (d.PS != 1 || d.Workers != 1 || fmt.Sprint(res.Packing[0]) != "[{0 0 1} {1 1 0}]") {
			t.Errorf("optimus, nodes: %d PS + %d workers on %v, want the worker on node 0 and the PS on node 1", d.PS, d.Workers, res.Packing[0])
		}
	}
	// Every policy: of two jobs of 1 PS + 1 worker that fit in total, only
	// one packs (b's PS takes a whole node's cores and a worker needs the
	// other node's GPU).
	a, b := balancedJob("a", 0, 40), balancedJob("b", 1, 40)
	a.Worker, a.PS, b.Worker, b.PS = []float64{1, 1}, []float64{0, 1}, []float64{1, 1}, []float64{0, 4}
	a.MaxPS, a.MaxWorkers, b.MaxPS, b.MaxWorkers = 1, 1, 1, 1
	q := &Problem{Resources: resources, Nodes: p.Nodes, Jobs: []Job{a, b}}
	for _, policy := range psPolicies() {
		res := mustSolve(t, q, Options{Policy: policy, TetrisSRTFWeight: 0.5})
		checkInvariants(t, q, res)
		waiting := res.Decisions[0]
		if waiting.Status != Waiting {
			waiting = res.Decisions[1]
		}
		if res.Running != 1 || !strings.Contains(waiting.Reason, "no node has room") {
			t.Errorf("%s: %d running, the other %s %q; want one running and the other waiting for room on the nodes",
				policy, res.Running, waiting.Status, waiting.Reason)
		}
		if agg := mustSolve(t, q, Options{Policy: policy, TetrisSRTFWeight: 0.5, Capacity: AggregateCapacity}); agg.Running != 2 {
			t.Errorf("%s, aggregate: %d running, want both (7 cores of 8)", policy, agg.Running)
		}
	}
}

// Where the incremental placement puts tasks: next to the job's own tasks
// when there is room, else PS on servers without GPUs first; workers on
// GPU servers only.
func TestPackingRules(t *testing.T) {
	nodes := [][]float64{{4, 16}, {4, 16}, {0, 32}}
	a, b := balancedJob("a", 0, 40), balancedJob("b", 1, 40)
	for _, j := range []*Job{&a, &b} {
		j.MaxPS, j.MaxWorkers = 2, 2
	}
	b.MaxPS, b.MaxWorkers = 6, 1
	p := &Problem{Resources: resources, Nodes: nodes, Jobs: []Job{a, b}}
	res := mustSolve(t, p, Options{Policy: FIFO})
	checkInvariants(t, p, res)
	// a: 2 workers + 2 PS (4 + 8 cores) together on node 0; b: its worker
	// on node 0 too (2 GPUs and 4 cores left there), its PS (4 cores each)
	// next to it if there were room (2 cores left: no), so on the server
	// without GPUs, not on node 1.
	want := "[[{0 2 2}] [{0 0 1} {2 6 0}]]"
	if got := fmt.Sprint(res.Packing); got != want {
		t.Errorf("packing %s, want %s", got, want)
	}
}

// The policies add tasks one by one; when the incremental placement has no
// room for one although the totals do, every task is placed again from
// scratch (first fit decreasing, then an exhaustive search on small
// clusters) and the task fits if they all do.
func TestRepackWhenFragmented(t *testing.T) {
	// Node 0: 2 GPUs, 5 cores; node 1: no GPU, 3 cores. Workers need 1 GPU
	// and 2 cores, PS 3 cores. The first PS goes next to the first worker
	// on node 0: the second worker then has no room, but with the PS on
	// node 1 both workers fit on node 0 (first fit decreasing finds it).
	a := balancedJob("a", 0, 40)
	a.Worker, a.PS = []float64{1, 2}, []float64{0, 3}
	a.MaxPS, a.MaxWorkers = 1, 2
	p := &Problem{Resources: resources, Nodes: [][]float64{{2, 5}, {0, 3}}, Jobs: []Job{a}}
	for _, policy := range []Policy{FIFO, Optimus} {
		res := mustSolve(t, p, Options{Policy: policy})
		checkInvariants(t, p, res)
		if d := res.Decisions[0]; d.PS != 1 || d.Workers != 2 || fmt.Sprint(res.Packing[0]) != "[{0 0 2} {1 1 0}]" {
			t.Errorf("%s: %d PS + %d workers on %v, want 1 + 2, the workers on node 0", policy, d.PS, d.Workers, res.Packing[0])
		}
	}
	// Two nodes of 10 cores; workers of 5, 4, 4, 3, 2 and 2 cores (PS need
	// memory only). First fit decreasing puts 5+4 and 4+3+2 together and
	// has no room for the last 2; 5+3+2 and 4+4+2 fit (the exhaustive
	// search finds it), so every job runs, as within the totals.
	res2 := []string{"cpu", "memory_gb"}
	var jobs []Job
	for k, w := range []struct {
		cores float64
		n     int
	}{{5, 1}, {4, 2}, {3, 1}, {2, 2}} {
		j := balancedJob(fmt.Sprint("j", k), float64(k), 40)
		j.Worker, j.PS = []float64{w.cores, 0}, []float64{0, 1}
		j.MaxPS, j.MaxWorkers = 1, w.n
		jobs = append(jobs, j)
	}
	q := &Problem{Resources: res2, Nodes: [][]float64{{10, 64}, {10, 64}}, Jobs: jobs}
	res := mustSolve(t, q, Options{Policy: FIFO})
	checkInvariants(t, q, res)
	if res.Running != 4 {
		t.Errorf("%d jobs run, want 4: %v", res.Running, res.Packing)
	}
}

func TestBadCapacityOption(t *testing.T) {
	p := &Problem{Resources: resources, Nodes: [][]float64{{4, 16}}, Jobs: []Job{simpleJob(t, "a", 0, 1)}}
	if _, err := Solve(p, Options{Capacity: "rack"}); err == nil || !strings.Contains(err.Error(), `no capacity check "rack"`) {
		t.Errorf("error %v", err)
	}
}

// psPolicies are the policies that plan parameter-server jobs (all but
// those that adapt the batch, Pollux, which plans all-reduce jobs only).
func psPolicies() []Policy {
	var out []Policy
	for _, e := range PolicyEntries() {
		if !e.AdaptsBatch {
			out = append(out, e.Name)
		}
	}
	return out
}
