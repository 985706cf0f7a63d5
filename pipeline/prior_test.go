package pipeline_test

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/pipeline"
)

// A declared schedule sets a job's total epochs; a finished job of the
// family (its own fit says it has converged by now) lends its epochs to a
// fair fit, and prior_weight says by how much.
func TestPredictScheduleAndFamilyPrior(t *testing.T) {
	quick := fitted(t, fit.QualityGood, 0.02)
	slow := fitted(t, fit.QualityFair, 0.0005)
	done := float64(fit.PredictConvergence(*quick, 100, fit.DefaultRule).P50)
	own := float64(fit.PredictConvergence(*slow, 100, fit.DefaultRule).P50)
	if own <= done+5 {
		t.Fatalf("the fits do not differ enough to test the prior: %v, %v", own, done)
	}
	jobs := []pipeline.JobState{
		{Job: "finished", Model: "m", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: int64(done*100) + 100},
		{Job: "fair", Model: "m", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: 100},
		{Job: "alone", Model: "other", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: 100},
		{Job: "scheduled", Model: "m", Mode: fit.Sync, EpochSteps: 100, ProgressSteps: 100, ScheduleEndSteps: 4250},
	}
	models := map[string]pipeline.Model{
		"finished": {Job: "finished", Loss: quick}, "fair": {Job: "fair", Loss: slow},
		"alone": {Job: "alone", Loss: slow}, "scheduled": {Job: "scheduled", Loss: slow},
	}
	preds, err := pipeline.Predict(jobs, models, fit.DefaultRule, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := preds[0]; p.Source != pipeline.SourceFit || p.PriorWeight != 0 || p.TotalEpochs[1] != done {
		t.Errorf("finished: %s, prior %v, %v epochs; want its own fit, %v", p.Source, p.PriorWeight, p.TotalEpochs[1], done)
	}
	if p := preds[1]; p.Source != pipeline.SourceFit || p.PriorWeight != 0.5 || !(p.TotalEpochs[1] < own) {
		t.Errorf("fair: %s, prior %v, %v epochs; want leaning half on the family (%v), below its own %v", p.Source, p.PriorWeight, p.TotalEpochs[1], done, own)
	}
	if p := preds[2]; p.PriorWeight != 0 || p.TotalEpochs[1] != own {
		t.Errorf("alone: prior %v, %v epochs; want its own fit's %v", p.PriorWeight, p.TotalEpochs[1], own)
	}
	if p := preds[3]; p.Source != pipeline.SourceSchedule || p.TotalEpochs != [3]float64{43, 43, 43} || !math.IsNaN(p.PriorWeight) {
		t.Errorf("scheduled: %s, %v, prior %v; want schedule, 43 epochs", p.Source, p.TotalEpochs, p.PriorWeight)
	}
}
