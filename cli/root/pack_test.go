package root

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// placed compares an allocation with its plan: for every job solve runs,
// whether place left it waiting or placed fewer tasks, and the tasks lost.
type placed struct {
	running, tasks           int // jobs solve runs, their tasks
	waiting, reduced, lost   int // of those: left waiting, placed short, tasks not placed
	problems                 []string
	solveMethod, evenMethods int     // jobs placed where solve fitted them, by the even split
	jobsPlaced               int     // jobs placed
	cross                    float64 // sum of their cross-server traffic shares
}

func comparePlan(alloc, plan *table.Table) placed {
	var s placed
	type got struct {
		status, method string
		ps, workers    int64
		cross          float64
	}
	byJob := map[string]got{}
	status, method, methodOK := plan.Strings("status"), plan.Strings("job_method"), plan.Valid("job_method")
	jps, jw, cross := plan.Int64s("job_ps"), plan.Int64s("job_workers"), plan.Float64s("job_cross_traffic")
	for i, j := range plan.Strings("job") {
		m := ""
		if methodOK[i] {
			m = method[i]
		}
		byJob[j] = got{status[i], m, jps[i], jw[i], cross[i]}
	}
	aps, aw, astatus := alloc.Int64s("alloc_ps"), alloc.Int64s("alloc_workers"), alloc.Strings("status")
	for i, j := range alloc.Strings("job") {
		if astatus[i] != "running" {
			continue
		}
		s.running++
		s.tasks += int(aps[i] + aw[i])
		g := byJob[j]
		if g.status == "running" {
			s.jobsPlaced++
			s.cross += g.cross
		}
		switch {
		case g.status != "running":
			s.waiting++
			s.lost += int(aps[i] + aw[i])
			s.problems = append(s.problems, fmt.Sprintf("%s waits (solve: %d PS + %d workers)", j, aps[i], aw[i]))
		case g.ps < aps[i] || g.workers < aw[i]:
			s.reduced++
			s.lost += int(aps[i] + aw[i] - g.ps - g.workers)
			s.problems = append(s.problems, fmt.Sprintf("%s placed %d+%d of %d+%d", j, g.ps, g.workers, aps[i], aw[i]))
		}
		switch g.method {
		case place.MethodSolve:
			s.solveMethod++
		case place.MethodEven:
			s.evenMethods++
		}
	}
	return s
}

// The testbed through the real pipeline (datasets export, fit, predict,
// solve, place, as scripts/demo.sh runs it): with node-level capacity (the
// default) every job solve runs is placed with its whole allocation, for
// every policy of solve. With the paper's aggregate check optimus's plan
// does not pack: a job waits (logged, not required).
func TestTestbedPipelinePlacesEverySolvedJob(t *testing.T) {
	tb := exportTestbed(t)
	dir := t.TempDir()
	models, preds := filepath.Join(dir, "models.parquet"), filepath.Join(dir, "predictions.parquet")
	if code, _, stderr := run(t, nil, "fit", "-i", filepath.Join(tb, "loss.parquet"), "--speed", filepath.Join(tb, "speed.parquet"),
		"--jobs", filepath.Join(tb, "jobs.parquet"), "-o", models); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "predict", "-i", filepath.Join(tb, "jobs.parquet"), "--models", models, "-o", preds); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	cluster := filepath.Join(tb, "cluster.parquet")
	for _, capacity := range []string{"nodes", "aggregate"} {
		for _, policy := range []string{"optimus", "drf", "tetris", "fifo"} {
			alloc := filepath.Join(dir, capacity+"-"+policy+"-allocation.parquet")
			plan := filepath.Join(dir, capacity+"-"+policy+"-plan.parquet")
			code, _, stderr := run(t, nil, "solve", "--cluster", cluster, "-i", preds, "--policy", policy, "--capacity", capacity, "-o", alloc, "-v")
			if code != 0 {
				t.Fatalf("solve: exit %d: %s", code, stderr)
			}
			solveLine := stderr
			if code, _, stderr = run(t, nil, "place", "--cluster", cluster, "-i", alloc, "-o", plan, "-v"); code != 0 {
				t.Fatalf("place: exit %d: %s", code, stderr)
			}
			s := comparePlan(mustRead(t, alloc, schema.Allocation), mustRead(t, plan, schema.Plan))
			t.Logf("%s capacity, %s: %d jobs run with %d tasks; place: %d waiting, %d short, %d tasks lost %v; %d by the even split, %d where solve fitted them\n  %s  %s",
				capacity, policy, s.running, s.tasks, s.waiting, s.reduced, s.lost, s.problems, s.evenMethods, s.solveMethod, solveLine, stderr)
			if capacity == "nodes" && (s.waiting > 0 || s.reduced > 0) {
				t.Errorf("%s: node-level capacity, yet place left jobs short: %v", policy, s.problems)
			}
			if capacity == "nodes" && policy == "optimus" && s.running != 9 {
				t.Errorf("optimus runs %d of the 9 jobs", s.running)
			}
		}
	}
	// The defaults are node-level, and a pipe gives the same plan as files.
	a, err := os.ReadFile(filepath.Join(dir, "nodes-optimus-allocation.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	code, stream, stderr := run(t, nil, "solve", "--cluster", cluster, "-i", preds)
	if code != 0 {
		t.Fatal(stderr)
	}
	piped := filepath.Join(dir, "piped.parquet")
	if code, _, stderr = run(t, stream, "place", "--cluster", cluster, "-o", piped); code != 0 {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(piped)
	want, _ := os.ReadFile(filepath.Join(dir, "nodes-optimus-plan.parquet"))
	if len(a) == 0 || !bytes.Equal(b, want) {
		t.Error("solve | place (defaults) differs from solve --capacity nodes -o, place -i")
	}
}

// Over many generated workloads on clusters small enough for capacity to
// bind, through the allocation table (alloc_nodes) as `optimus solve |
// optimus place` would: with node-level capacity place's optimus policy
// leaves no job that solve runs waiting or short; with the paper's
// aggregate check it does, and the log says how often, and how much smaller
// node-level allocations are.
func TestGeneratedWorkloadsPlaceEverySolvedJob(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(17, 18))
	type totals struct {
		placed
		workloads, shortWorkloads, binding int
		objective                          float64
	}
	var byCheck [2]totals
	checks := []solve.CapacityCheck{solve.NodeCapacity, solve.AggregateCapacity}
	for w := range n {
		tasks := 50 + rng.IntN(400)
		cfg := datatables.WorkloadConfig{Seed: uint64(1000 + w), Tasks: tasks, Nodes: max(2, int(float64(tasks)*(0.03+0.1*rng.Float64()))),
			Running: 0.3 * rng.Float64(), MaxJobWorkers: 4 + rng.IntN(29)}
		cluster, pred, err := datatables.Workload(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c, prob, err := adapt.SolveProblem(pred, cluster, "p50")
		if err != nil {
			t.Fatal(err)
		}
		var running [2]int
		for k, check := range checks {
			opts := solve.DefaultOptions()
			opts.Capacity = check
			res, err := solve.Solve(prob, opts)
			if err != nil {
				t.Fatal(err)
			}
			alloc, err := adapt.AllocationTable(pred, res, c.Nodes)
			if err != nil {
				t.Fatal(err)
			}
			pp, err := adapt.PlaceProblem(alloc, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			pres, err := place.Place(pp, place.Options{Policy: place.Optimus})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := adapt.PlanTable(pp, pres)
			if err != nil {
				t.Fatal(err)
			}
			s := comparePlan(alloc, plan)
			tot := &byCheck[k]
			tot.workloads++
			tot.running += s.running
			tot.tasks += s.tasks
			tot.waiting += s.waiting
			tot.reduced += s.reduced
			tot.lost += s.lost
			tot.solveMethod += s.solveMethod
			tot.evenMethods += s.evenMethods
			tot.jobsPlaced += s.jobsPlaced
			tot.cross += s.cross
			tot.objective += res.Objective
			running[k] = s.running
			if s.waiting+s.reduced > 0 {
				tot.shortWorkloads++
			}
			for _, d := range res.Decisions {
				if d.Status == solve.Waiting || d.Status == solve.Running && d.NextGain > 0 {
					tot.binding++
					break
				}
			}
			if check == solve.NodeCapacity && s.waiting+s.reduced > 0 {
				t.Errorf("workload %d (%+v): node-level capacity, yet place left jobs short: %v", w, cfg, s.problems)
			}
		}
		if running[0] != running[1] {
			t.Logf("workload %d: %d jobs run with node-level capacity, %d with aggregate", w, running[0], running[1])
		}
	}
	for k, check := range checks {
		tot := byCheck[k]
		t.Logf("%s capacity, %d workloads (capacity binding in %d): solve runs %d jobs with %d tasks (objective %.6g s); place (optimus) left %d jobs waiting and %d short (%d tasks) in %d workloads; %d jobs placed by the even split, %d where solve fitted them; mean cross-server traffic share %.3f",
			check, tot.workloads, tot.binding, tot.running, tot.tasks, tot.objective, tot.waiting, tot.reduced, tot.lost, tot.shortWorkloads, tot.evenMethods, tot.solveMethod, tot.cross/float64(tot.jobsPlaced))
	}
	if byCheck[1].shortWorkloads == 0 {
		t.Error("aggregate capacity never left a job short: the workloads do not bind")
	}
}
