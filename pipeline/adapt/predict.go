package adapt

import (
	"fmt"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

// EpochBudgets is each job's declared epoch budget (epoch_budget, valid
// where declared; none declared when the table has no such column): the
// user's stopping point, as predict and eval convergence --budgets read it.
func EpochBudgets(jobs *table.Table) ([]float64, []bool) {
	if !jobs.Has(col.EpochBudget) {
		return make([]float64, jobs.NumRows()), make([]bool, jobs.NumRows())
	}
	return jobs.Float64s(col.EpochBudget), jobs.Valid(col.EpochBudget)
}

// JobStates reads what predict needs of each job of a jobs table, in row
// order.
func JobStates(jobs *table.Table) []pipeline.JobState {
	names := jobs.Strings(col.Job)
	model, mode := jobs.Strings(col.Model), jobs.Strings(col.Mode)
	epochSteps, progress := jobs.Int64s(col.EpochSteps), jobs.Int64s(col.ProgressSteps)
	budget, budgetOK := EpochBudgets(jobs)
	ps, workers := jobs.Int64s(col.PS), jobs.Int64s(col.Workers)
	var schedEnd []int64
	var schedOK []bool
	if jobs.Has(col.ScheduleEndSteps) {
		schedEnd, schedOK = jobs.Int64s(col.ScheduleEndSteps), jobs.Valid(col.ScheduleEndSteps)
	}
	out := make([]pipeline.JobState, len(names))
	for i, j := range names {
		out[i] = pipeline.JobState{Job: j, Model: model[i], Mode: mode[i],
			EpochSteps: epochSteps[i], ProgressSteps: progress[i],
			EpochBudget: budget[i], HasBudget: budgetOK[i], PS: int(ps[i]), Workers: int(workers[i])}
		if schedEnd != nil && schedOK[i] {
			out[i].ScheduleEndSteps = schedEnd[i]
		}
	}
	return out
}

// Predict predicts every job of a jobs table from a models table and
// returns the predictions table: the jobs' columns with predict's added (in
// place of any they had). A models row of a job the jobs table lacks, and a
// speed model of another mode than its job, are errors naming the file.
func Predict(jobs, models *table.Table, rule fit.Rule, at []fit.Config) (*table.Table, error) {
	names := jobs.Strings(col.Job)
	inJobs := make(map[string]bool, len(names))
	for _, j := range names {
		inJobs[j] = true
	}
	for r, j := range models.Strings(col.Job) {
		if !inJobs[j] {
			return nil, models.Errorf(col.Job, r, "unknown job %q (not in %s)", j, jobs.Source)
		}
	}
	budget, budgetOK := EpochBudgets(jobs)
	epochSteps := jobs.Int64s(col.EpochSteps)
	for r := range names {
		if budgetOK[r] && budget[r]*float64(epochSteps[r]) > MaxSteps {
			return nil, jobs.Errorf(col.EpochBudget, r, "%g epochs of %d steps: more steps than a step counter holds (2^63)", budget[r], epochSteps[r])
		}
	}
	preds, err := pipeline.Predict(JobStates(jobs), ReadModels(models), rule, at)
	if mm, ok := err.(*pipeline.ModeMismatchError); ok {
		return nil, &table.Error{Source: models.Source, Column: col.SpeedMode,
			Msg: fmt.Sprintf("%s in %s", mm.Error(), jobs.Source)}
	}
	if err != nil {
		return nil, err
	}
	return PredictionsTable(jobs, preds, at), nil
}

// PredictionsTable adds the predictions to the jobs table's columns.
func PredictionsTable(jobs *table.Table, preds []pipeline.Prediction, at []fit.Config) *table.Table {
	n := len(preds)
	out := jobs.Take(identity(n))
	out.Name, out.Version = schema.Predictions.Name, schema.Predictions.Version
	column := func(name string, get func(p *pipeline.Prediction) float64) {
		vals := make([]float64, n)
		for i := range preds {
			vals[i] = get(&preds[i])
		}
		out.SetFloat64sNaNAsNull(name, vals)
	}
	for q, p := range []string{"p10", "p50", "p90"} {
		column("remaining_steps_"+p, func(p *pipeline.Prediction) float64 { return p.Remaining[q] })
		column("total_epochs_"+p, func(p *pipeline.Prediction) float64 { return p.TotalEpochs[q] })
	}
	strs := func(name string, get func(p *pipeline.Prediction) string, nullable bool) {
		vals := make([]string, n)
		for i := range preds {
			vals[i] = get(&preds[i])
		}
		var ok []bool
		if nullable {
			ok = Present(vals)
		}
		out.SetStrings(name, vals, ok)
	}
	strs(col.RemainingSource, func(p *pipeline.Prediction) string { return p.Source }, false)
	for k := range 5 {
		column(fmt.Sprintf("speed_theta%d", k), func(p *pipeline.Prediction) float64 {
			if p.Speed == nil || k >= fit.NumTheta(p.Speed.Mode) {
				return nan
			}
			return p.Speed.Theta[k]
		})
	}
	column(col.PriorWeight, func(p *pipeline.Prediction) float64 { return p.PriorWeight })
	strs(col.LossQuality, func(p *pipeline.Prediction) string { return p.LossQuality }, true)
	strs(col.SpeedQuality, func(p *pipeline.Prediction) string { return p.SpeedQuality }, true)
	column(col.SpeedNow, func(p *pipeline.Prediction) float64 { return p.SpeedNow })
	column(col.EtaS, func(p *pipeline.Prediction) float64 { return p.ETA })
	for k, c := range at {
		column(fmt.Sprintf("speed_at_%d_%d", c.PS, c.Workers), func(p *pipeline.Prediction) float64 { return p.At[k] })
	}
	return out
}
