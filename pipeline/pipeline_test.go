package pipeline_test

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// testbed returns the embedded testbed's tables by name, validated as a
// reader would.
func testbed(t *testing.T) map[string]*table.Table {
	t.Helper()
	named, err := datatables.Testbed(datatables.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*table.Table{}
	for _, n := range named {
		c, err := table.Conform(n.Table)
		if err != nil {
			t.Fatal(err)
		}
		out[n.Name] = c
	}
	return out
}

// round is one scheduling round in memory, as the simulator runs it: fit,
// predict, solve, place.
type round struct {
	models []pipeline.Model
	preds  []pipeline.Prediction
	prob   *solve.Problem
	res    *solve.Result
	pp     *place.Problem
	pres   *place.Result
}

func runRound(t *testing.T, tb map[string]*table.Table, c *pipeline.Cluster, jobs []pipeline.JobState, current map[string][]place.Task) round {
	t.Helper()
	in, err := adapt.FitInputs(tb["loss"], tb["speed"], tb["jobs"])
	if err != nil {
		t.Fatal(err)
	}
	var r round
	r.models = pipeline.FitJobs(in, 2, nil)
	byJob := map[string]pipeline.Model{}
	for _, m := range r.models {
		byJob[m.Job] = m
	}
	if r.preds, err = pipeline.Predict(jobs, byJob, fit.DefaultRule, nil); err != nil {
		t.Fatal(err)
	}
	demandW, err := adapt.Demands(tb["jobs"], "worker_", c)
	if err != nil {
		t.Fatal(err)
	}
	demandP, _ := adapt.Demands(tb["jobs"], "ps_", c)
	arrival, weight := tb["jobs"].Float64s("arrival_s"), tb["jobs"].Float64s("weight")
	reqs := make([]pipeline.Request, len(jobs))
	for i, j := range jobs {
		p := r.preds[i]
		reqs[i] = pipeline.Request{Job: j.Job, Arrival: arrival[i], Weight: weight[i], Remaining: p.Remaining[1],
			Worker: demandW[i], PS: demandP[i], CurPS: j.PS, CurWorkers: j.Workers}
		if p.Speed != nil {
			reqs[i].Speed = *p.Speed
		} else {
			reqs[i].SpeedMissing = "no speed model"
		}
		if math.IsNaN(p.Remaining[1]) {
			reqs[i].RemainingMissing = "no prediction"
		}
	}
	r.prob = pipeline.SolveProblem(c, reqs)
	if r.res, err = solve.Solve(r.prob, solve.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if r.pp, err = pipeline.PlaceProblem(c, pipeline.Assignments(r.prob, r.res), current); err != nil {
		t.Fatal(err)
	}
	if r.pres, err = place.Place(r.pp, place.Options{Policy: place.Optimus}); err != nil {
		t.Fatal(err)
	}
	return r
}

// The in-memory pipeline decides what the commands decide through tables,
// and a second round on its own current state keeps every task of a job
// whose allocation did not change where it runs.
func TestInMemoryRoundsMatchTheTables(t *testing.T) {
	tb := testbed(t)
	c, err := adapt.Cluster(tb["cluster"])
	if err != nil {
		t.Fatal(err)
	}
	jobs := adapt.JobStates(tb["jobs"])
	r := runRound(t, tb, c, jobs, nil)

	// Through the tables, as fit | predict | solve | place do.
	models := adapt.ModelsTable(r.models)
	pred, err := adapt.Predict(tb["jobs"], models, fit.DefaultRule, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pred, err = table.ConformTo(pred, schema.Predictions); err != nil {
		t.Fatal(err)
	}
	_, prob, err := adapt.SolveProblem(pred, tb["cluster"], "p50")
	if err != nil {
		t.Fatal(err)
	}
	res, err := solve.Solve(prob, solve.DefaultOptions())
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
	running := 0
	for j, d := range r.res.Decisions {
		if d2 := res.Decisions[j]; d.PS != d2.PS || d.Workers != d2.Workers || d.Status != d2.Status {
			t.Errorf("%s: in memory %d PS + %d workers (%s), through tables %d + %d (%s)",
				r.prob.Jobs[j].Name, d.PS, d.Workers, d.Status, d2.PS, d2.Workers, d2.Status)
		}
		if d.Status == solve.Running {
			running++
		}
	}
	if running != len(jobs) {
		t.Errorf("%d of %d testbed jobs run, want all", running, len(jobs))
	}
	if len(r.pres.Tasks) != len(pres.Tasks) {
		t.Fatalf("%d tasks placed in memory, %d through tables", len(r.pres.Tasks), len(pres.Tasks))
	}
	for i, task := range r.pres.Tasks {
		if task != pres.Tasks[i] {
			t.Errorf("task %d: in memory %+v, through tables %+v", i, task, pres.Tasks[i])
		}
	}

	// Round two: the jobs run what round one placed.
	state := pipeline.CurrentState(r.pp, r.pres)
	next := make([]pipeline.JobState, len(jobs))
	copy(next, jobs)
	for i := range next {
		s := state[next[i].Job]
		next[i].PS, next[i].Workers = s.PS, s.Workers
	}
	r2 := runRound(t, tb, c, next, pipeline.CurrentTasks(state))
	kept := 0
	for j, d := range r2.res.Decisions {
		name := r2.prob.Jobs[j].Name
		if d.Status != solve.Running || d.Changed {
			continue
		}
		kept++
		if jp := r2.pres.Jobs[j]; jp.Method != place.MethodKept {
			t.Errorf("%s: same allocation as round one, placed by %q in round two, want kept", name, jp.Method)
		}
		var moved int
		for _, task := range r2.pres.Tasks {
			if task.Job == j && !task.Kept {
				moved++
			}
		}
		if moved > 0 || len(state[name].Tasks) != d.PS+d.Workers {
			t.Errorf("%s: %d of its tasks moved; round one ran %d", name, moved, len(state[name].Tasks))
		}
	}
	t.Logf("round two: %d of %d jobs kept their allocation and their nodes", kept, len(jobs))
	if kept < len(jobs)/2 {
		t.Errorf("only %d of %d jobs kept their allocation in round two", kept, len(jobs))
	}
}
