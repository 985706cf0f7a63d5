package pipeline_test

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/pipeline"
)

// An all-reduce job (workers, no PS) that runs has a speed now and an ETA
// from its model, as a parameter-server job has: here workload-1's first
// cifar10 job of Pollux's import with the model fitted to its profile.
// Not running (no workers), or given PS it cannot have, it has neither.
func TestPredictSpeedAllReduce(t *testing.T) {
	jobs, profiles, err := datasets.PolluxWorkload1()
	if err != nil {
		t.Fatal(err)
	}
	var job datasets.PolluxJob
	for _, j := range jobs {
		if j.App == "cifar10" {
			job = j
			break
		}
	}
	f, err := datasets.PolluxTrueModel(profiles["cifar10"], job.Batch, 64, datasets.PolluxGPUsPerNode, datasets.PolluxNodes)
	if err != nil {
		t.Fatal(err)
	}
	sm := f.Model
	models := map[string]pipeline.Model{job.Name: {Job: job.Name, Speed: &f}}
	budget := float64(job.Epochs)
	for _, c := range []struct {
		name        string
		ps, workers int
		running     bool
	}{
		{"1 GPU", 0, 1, true},
		{"4 GPUs on one node", 0, 4, true},
		{"8 GPUs on two nodes", 0, 8, true},
		{"not running", 0, 0, false},
		{"given a PS it cannot have", 1, 4, false},
	} {
		js := []pipeline.JobState{{Job: job.Name, Model: job.App, Mode: fit.AllReduce, EpochSteps: job.EpochSteps,
			EpochBudget: budget, HasBudget: true, ProgressSteps: job.EpochSteps, PS: c.ps, Workers: c.workers}}
		preds, err := pipeline.Predict(js, models, fit.DefaultRule, []fit.Config{{PS: 0, Workers: 2}})
		if err != nil {
			t.Fatal(err)
		}
		p := preds[0]
		remaining := (budget - 1) * float64(job.EpochSteps)
		if p.Remaining[1] != remaining {
			t.Errorf("%s: remaining %v, want %v", c.name, p.Remaining[1], remaining)
		}
		if p.At[0] != sm.Speed(0, 2) || !(p.At[0] > 0) {
			t.Errorf("%s: speed at 2 workers %v, want %v", c.name, p.At[0], sm.Speed(0, 2))
		}
		if !c.running {
			if !math.IsNaN(p.SpeedNow) || !math.IsNaN(p.ETA) {
				t.Errorf("%s: speed now %v ETA %v, want NaN", c.name, p.SpeedNow, p.ETA)
			}
			continue
		}
		now := sm.Speed(0, c.workers)
		if !(now > 0) || p.SpeedNow != now || p.ETA != remaining/now {
			t.Errorf("%s: speed now %v ETA %v; want %v, %v", c.name, p.SpeedNow, p.ETA, now, remaining/now)
		}
	}
}
