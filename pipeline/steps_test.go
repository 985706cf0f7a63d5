package pipeline_test

import (
	"math"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
)

// fitted is a convergence fit of quality q whose curve meets the default
// rule at a definite epoch (epochs of 100 steps).
func fitted(t *testing.T, q string, b0 float64) *fit.LossFit {
	t.Helper()
	var pts []fit.LossPoint
	for k := 100.0; k <= 2000; k += 100 {
		pts = append(pts, fit.LossPoint{Step: k, Value: 1/(b0*k+1) + 0.1})
	}
	lf, err := fit.FitLoss(pts, fit.DefaultLossOptions)
	if err != nil {
		t.Fatal(err)
	}
	lf.Quality = q
	return &lf
}

// Where each job's total epochs come from: its budget, its own fit, its
// family's median when its fit is poor or missing, or nowhere.
func TestPredictSources(t *testing.T) {
	good := fitted(t, fit.QualityGood, 0.002)
	p50 := float64(fit.PredictConvergence(*good, 100, fit.DefaultRule).P50)
	jobs := []pipeline.JobState{
		{Job: "budget", Model: "m", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: 500, EpochBudget: 30, HasBudget: true},
		{Job: "good", Model: "m", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: 200},
		{Job: "poor", Model: "m", Mode: fit.Sync, EpochSteps: 100},
		{Job: "none", Model: "m", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: 100},
		{Job: "alone", Model: "other", Mode: fit.Sync, EpochSteps: 100},
		{Job: "poor-alone", Model: "third", Mode: fit.Sync, EpochSteps: 100},
	}
	models := map[string]pipeline.Model{
		"budget":     {Job: "budget", Loss: good},
		"good":       {Job: "good", Loss: good},
		"poor":       {Job: "poor", Loss: fitted(t, fit.QualityPoor, 0.02)},
		"none":       {Job: "none", LossNote: "no loss points"},
		"poor-alone": {Job: "poor-alone", Loss: fitted(t, fit.QualityPoor, 0.002)},
	}
	preds, err := pipeline.Predict(jobs, models, fit.DefaultRule, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		source    string
		total     float64 // p50 epochs; NaN: unknown
		remaining float64
		quality   string
	}{
		{pipeline.SourceBudget, 30, 30*100 - 500, fit.QualityGood},
		{pipeline.SourceFit, p50, p50*100 - 200, fit.QualityGood},
		{pipeline.SourceModel, p50, p50 * 100, fit.QualityPoor},
		{pipeline.SourceModel, p50, p50*100 - 100, fit.QualityInsufficient},
		{pipeline.SourceUnknown, math.NaN(), math.NaN(), ""},
		{pipeline.SourceFit, float64(fit.PredictConvergence(*models["poor-alone"].Loss, 100, fit.DefaultRule).P50), math.NaN(), fit.QualityPoor},
	} {
		p := preds[i]
		name := jobs[i].Job
		if p.Source != want.source || p.LossQuality != want.quality {
			t.Errorf("%s: source %s, quality %q; want %s, %q", name, p.Source, p.LossQuality, want.source, want.quality)
		}
		if !same(p.TotalEpochs[1], want.total) {
			t.Errorf("%s: p50 total %v epochs, want %v", name, p.TotalEpochs[1], want.total)
		}
		if !math.IsNaN(want.remaining) && !same(p.Remaining[1], want.remaining) {
			t.Errorf("%s: p50 remaining %v steps, want %v", name, p.Remaining[1], want.remaining)
		}
		if !math.IsNaN(p.SpeedNow) || !math.IsNaN(p.ETA) || p.Speed != nil {
			t.Errorf("%s: no speed model, yet speed %v, ETA %v", name, p.SpeedNow, p.ETA)
		}
	}
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// Speed now and ETA come from the speed model at the running allocation;
// a speed model of another mode than the job is an error.
func TestPredictSpeed(t *testing.T) {
	sm := fit.SpeedModel{Mode: fit.Async, Theta: [5]float64{0.5, 0.1, 0.01, 0.01}}
	models := map[string]pipeline.Model{"a": {Job: "a", Speed: &fit.SpeedFit{Model: sm}}}
	jobs := []pipeline.JobState{{Job: "a", Mode: fit.Async, EpochSteps: 10, EpochBudget: 10, HasBudget: true, ProgressSteps: 40, PS: 2, Workers: 3}}
	preds, err := pipeline.Predict(jobs, models, fit.DefaultRule, []fit.Config{{PS: 1, Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p := preds[0]
	if now := sm.Speed(2, 3); p.SpeedNow != now || p.ETA != 60/now || p.At[0] != sm.Speed(1, 1) {
		t.Errorf("speed now %v ETA %v at(1,1) %v; want %v, %v, %v", p.SpeedNow, p.ETA, p.At[0], now, 60/now, sm.Speed(1, 1))
	}
	jobs[0].Mode = fit.Sync
	if _, err := pipeline.Predict(jobs, models, fit.DefaultRule, nil); err == nil || !strings.Contains(err.Error(), `job "a" has a async speed model but is sync`) {
		t.Errorf("mode mismatch: %v", err)
	}
}

// Which reason a job that cannot be planned waits with.
func TestSolveProblemReasons(t *testing.T) {
	c := &pipeline.Cluster{Resources: []string{"gpu"}, Nodes: []string{"n"}, Capacity: [][]float64{{4}}}
	sm := fit.SpeedModel{Mode: fit.Async, Theta: [5]float64{1}}
	for _, tc := range []struct {
		name    string
		req     pipeline.Request
		invalid string
		nan     bool
	}{
		{"plannable", pipeline.Request{Remaining: 10, Speed: sm}, "", false},
		{"no speed model", pipeline.Request{Remaining: 10, SpeedMissing: "no speed"}, "no speed", false},
		{"no prediction wins", pipeline.Request{RemainingMissing: "no pred", SpeedMissing: "no speed"}, "no pred", true},
		{"done needs nothing", pipeline.Request{Remaining: 0, SpeedMissing: "no speed", Foreign: "tpu"}, "", false},
		{"foreign resource", pipeline.Request{Remaining: 10, Speed: sm, Foreign: "tpu"}, "tpu", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Job, tc.req.Weight, tc.req.Worker, tc.req.PS = "j", 1, []float64{1}, []float64{0}
			j := pipeline.SolveProblem(c, []pipeline.Request{tc.req}).Jobs[0]
			if j.Invalid != tc.invalid || math.IsNaN(j.Remaining) != tc.nan {
				t.Errorf("invalid %q remaining %v; want %q (NaN %v)", j.Invalid, j.Remaining, tc.invalid, tc.nan)
			}
		})
	}
}

func TestPlaceProblem(t *testing.T) {
	c := &pipeline.Cluster{Resources: []string{"gpu"}, Nodes: []string{"a", "b"}, Capacity: [][]float64{{4}, {4}}}
	d := []float64{1}
	packing := []layout.Slot{{Node: 1, PS: 1, Workers: 1}}
	cur := map[string][]place.Task{"run": {{Role: place.PS, Index: 0, Node: 1}, {Role: place.Worker, Index: 0, Node: 1}}}
	prob, err := pipeline.PlaceProblem(c, []pipeline.Assignment{
		{Job: "run", PS: 1, Workers: 1, Status: place.Running, Reason: "ignored", PSDemand: d, WorkerDemand: d, Packing: packing},
		{Job: "wait", Status: place.Waiting, Reason: "cluster full", PSDemand: d, WorkerDemand: d},
		{Job: "foreign", PS: 1, Workers: 1, Status: place.Running, Foreign: "needs tpu", PSDemand: d, WorkerDemand: d, Packing: packing},
	}, cur)
	if err != nil {
		t.Fatal(err)
	}
	if j := prob.Jobs[0]; j.Reason != "" || len(j.Packing) != 1 || len(j.Current) != 2 {
		t.Errorf("running job: %+v", j)
	}
	if j := prob.Jobs[1]; j.Status != place.Waiting || j.Reason != "cluster full" {
		t.Errorf("waiting job: %+v", j)
	}
	if j := prob.Jobs[2]; j.Status != place.Waiting || j.Reason != "needs tpu" || j.PS != 0 || j.Packing != nil {
		t.Errorf("job needing a resource the cluster lacks: %+v", j)
	}
	_, err = pipeline.PlaceProblem(c, []pipeline.Assignment{{Job: "x", Status: place.Running, PS: 0, Workers: 2}}, nil)
	if ae, ok := err.(*pipeline.AssignmentError); !ok || ae.Index != 0 || !strings.Contains(ae.Msg, "needs at least 1 of each") {
		t.Errorf("running with no PS: %v", err)
	}
}

func TestClusterCheck(t *testing.T) {
	for _, tc := range []struct {
		c    pipeline.Cluster
		want string
	}{
		{pipeline.Cluster{Source: "c.csv", Resources: []string{"gpu"}}, "c.csv: no nodes"},
		{pipeline.Cluster{Source: "c.csv", Resources: []string{"gpu", "cpu"}, Nodes: []string{"a"}, Capacity: [][]float64{{0, 0}}}, "c.csv: every node has zero capacity of every resource (gpu, cpu)"},
		{pipeline.Cluster{Source: "c.csv", Resources: []string{"gpu"}, Nodes: []string{"a"}, Capacity: [][]float64{{1}}}, ""},
	} {
		err := tc.c.Check()
		if got := ""; err != nil {
			got = err.Error()
			if !strings.HasPrefix(got, tc.want) || tc.want == "" {
				t.Errorf("%v: %q, want %q", tc.c, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%v: no error, want %q", tc.c, tc.want)
		}
	}
}

// ForEach does every index once, and a worker's panic reaches the caller.
func TestForEach(t *testing.T) {
	seen := make([]int, 100)
	calls := 0
	pipeline.ForEach(len(seen), 3, func(i int) { seen[i]++ }, func(done, total int) { calls++ })
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("index %d done %d times", i, n)
		}
	}
	if calls != 100 {
		t.Errorf("progress called %d times", calls)
	}
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v, want the worker's panic", v)
		}
	}()
	pipeline.ForEach(50, 4, func(i int) {
		if i == 17 {
			panic("boom")
		}
	}, nil)
	t.Error("no panic")
}
