package pipeline

import (
	"fmt"
	"math"

	"github.com/optimus-sched/optimus/fit"
)

// JobState is what predict needs to know of a job now.
type JobState struct {
	Job string
	// Model is the model family (the jobs table's model), whose other jobs'
	// predictions stand in for a job without a usable fit of its own.
	Model string
	Mode  string
	// EpochSteps and ProgressSteps are the steps of an epoch and the steps
	// trained so far.
	EpochSteps, ProgressSteps int64
	// EpochBudget, when HasBudget, is the user's own stopping point, which
	// wins over any prediction.
	EpochBudget float64
	HasBudget   bool
	// ScheduleEndSteps, when positive, is where the job's declared
	// learning-rate schedule ends: it converges there.
	ScheduleEndSteps int64
	// PS and Workers run now (0 when the job does not run).
	PS, Workers int
}

// Prediction is what predict adds to a job.
type Prediction struct {
	// TotalEpochs and Remaining (steps) at the 10th, 50th and 90th
	// percentiles; NaN when unknown (Source "unknown").
	TotalEpochs, Remaining [3]float64
	// Source says where TotalEpochs come from: budget, schedule (the
	// declared schedule's end), fit, cap (the fit reaches the rule's cap
	// first), model (the family's median) or unknown.
	Source string
	// PriorWeight is how much TotalEpochs lean on the model family's
	// finished jobs: 0 for the job's own fit alone, 1 for the family alone;
	// NaN for a budget, a schedule or unknown.
	PriorWeight               float64
	LossQuality, SpeedQuality string
	// Speed is the job's speed model; nil without one.
	Speed *fit.SpeedModel
	// SpeedNow is the speed at the running allocation and ETA the median
	// remaining steps over it, in seconds; NaN when not running or unknown.
	SpeedNow, ETA float64
	// At is the speed at each configuration asked for (NaN without a
	// speed model).
	At []float64
}

// Prediction sources.
const (
	SourceBudget   = "budget"
	SourceSchedule = "schedule"
	SourceFit      = "fit"
	SourceCap      = "cap"
	SourceModel    = "model"
	SourceUnknown  = "unknown"
)

// ModeMismatchError is a job whose speed model is of another mode than the
// job itself.
type ModeMismatchError struct {
	Job, ModelMode, JobMode string
}

func (e *ModeMismatchError) Error() string {
	return fmt.Sprintf("job %q has a %s speed model but is %s", e.Job, e.ModelMode, e.JobMode)
}

// Predict applies the convergence rule to each job's fit (Optimus, section
// 3.1). The total epochs come from the job's budget, else its own fit, else
// the median prediction of the other jobs of its model family that were
// fitted well enough (not poor); a poor fit also gives way to its family's
// median when there is one. Remaining steps are total epochs x epoch_steps
// less the steps done, at least 0. models may lack any job.
func Predict(jobs []JobState, models map[string]Model, rule fit.Rule, at []fit.Config) ([]Prediction, error) {
	out := make([]Prediction, len(jobs))
	total := make([][3]float64, len(jobs))
	preds := make([]fit.ConvergencePrediction, len(jobs))
	for i, j := range jobs {
		p := &out[i]
		m, ok := models[j.Job]
		if ok && m.Loss != nil {
			p.LossQuality = m.Loss.Quality
		} else if ok && m.LossNote != "" {
			p.LossQuality = fit.QualityInsufficient
		}
		p.SpeedQuality = m.SpeedQuality
		switch {
		case j.HasBudget:
			total[i] = [3]float64{j.EpochBudget, j.EpochBudget, j.EpochBudget}
			p.Source = SourceBudget
		case j.ScheduleEndSteps > 0:
			e := math.Ceil(float64(j.ScheduleEndSteps)/float64(j.EpochSteps) - 1e-9)
			total[i] = [3]float64{e, e, e}
			p.Source = SourceSchedule
		case ok && m.Loss != nil && m.Loss.Quality != fit.QualityInsufficient:
			c := fit.PredictConvergence(*m.Loss, float64(j.EpochSteps), rule)
			preds[i] = c
			total[i] = [3]float64{float64(c.P10), float64(c.P50), float64(c.P90)}
			p.Source = SourceFit
			if c.Capped {
				p.Source = SourceCap
			}
		}
	}
	// The family prior: jobs of the same model whose own fit says they
	// have converged by now (their log reached its end) lend their epochs
	// to every other fitted job of the family, as much as the job's fit
	// quality warrants (fit.Blend).
	for i, j := range jobs {
		out[i].PriorWeight = math.NaN()
		if out[i].Source != SourceFit && out[i].Source != SourceCap {
			continue
		}
		var prior fit.FamilyPrior
		for k, o := range jobs {
			if k != i && o.Model == j.Model && out[k].Source == SourceFit && out[k].LossQuality != fit.QualityPoor &&
				total[k][1]*float64(o.EpochSteps) <= float64(o.ProgressSteps) {
				prior.Epochs = append(prior.Epochs, total[k][1])
			}
		}
		b := fit.Blend(preds[i], true, out[i].LossQuality, prior, fit.Evidence{Schedule: trainingEvidence(j, models[j.Job])}, rule)
		out[i].PriorWeight = b.PriorWeight
		if b.PriorWeight > 0 || b.Plateau || b.P10 != int(total[i][0]) || b.P90 != int(total[i][2]) {
			total[i] = [3]float64{float64(b.P10), float64(b.P50), float64(b.P90)}
		}
	}
	// A poor fit gives way to its model family's prediction where there is
	// one made from better fits.
	family := map[string][][3]float64{}
	fitted := func(i int) bool { return out[i].Source == SourceFit || out[i].Source == SourceCap }
	for i, j := range jobs {
		if fitted(i) && out[i].LossQuality != fit.QualityPoor {
			family[j.Model] = append(family[j.Model], total[i])
		}
	}
	for i, j := range jobs {
		poor := fitted(i) && out[i].LossQuality == fit.QualityPoor
		if out[i].Source != "" && !(poor && len(family[j.Model]) > 0) {
			continue
		}
		if f := family[j.Model]; len(f) > 0 {
			for q := 0; q < 3; q++ {
				vals := make([]float64, len(f))
				for k := range f {
					vals[k] = f[k][q]
				}
				total[i][q] = fit.Median(vals)
			}
			out[i].Source, out[i].PriorWeight = SourceModel, 1
		} else {
			out[i].Source = SourceUnknown
		}
	}
	for i, j := range jobs {
		p := &out[i]
		for q := 0; q < 3; q++ {
			p.TotalEpochs[q], p.Remaining[q] = math.NaN(), math.NaN()
			if p.Source != SourceUnknown {
				p.TotalEpochs[q] = total[i][q]
				p.Remaining[q] = math.Max(0, total[i][q]*float64(j.EpochSteps)-float64(j.ProgressSteps))
			}
		}
		p.SpeedNow, p.ETA = math.NaN(), math.NaN()
		p.At = make([]float64, len(at))
		for k := range at {
			p.At[k] = math.NaN()
		}
		m := models[j.Job]
		if m.Speed == nil {
			continue
		}
		if m.Speed.Model.Mode != j.Mode {
			return nil, &ModeMismatchError{Job: j.Job, ModelMode: m.Speed.Model.Mode, JobMode: j.Mode}
		}
		sm := m.Speed.Model
		p.Speed = &sm
		// A running job has workers; a parameter-server job also PS, an
		// all-reduce job none (its model's Speed wants p = 0).
		if j.Workers > 0 && (j.PS > 0) != (sm.Mode == fit.AllReduce) {
			p.SpeedNow = sm.Speed(j.PS, j.Workers)
			if p.SpeedNow > 0 && !math.IsNaN(p.Remaining[1]) {
				p.ETA = p.Remaining[1] / p.SpeedNow
			}
		}
		for k, c := range at {
			p.At[k] = sm.Speed(c.PS, c.Workers)
		}
	}
	return out, nil
}

// trainingEvidence is what predict knows of a job's schedule (fit.Schedule)
// from the models table: the epochs it has run and its fit's noise, and,
// whether its fit says the log is step-shaped. The models table keeps no
// log, so neither the job's own step drops nor its family's are known: a
// step-shaped job on a plateau gets an interval that covers a drop to come
// (fit.Blend); a job whose fit follows its log as 1/k is taken at its word.
func trainingEvidence(j JobState, m Model) fit.Schedule {
	if j.EpochSteps <= 0 || j.ProgressSteps <= 0 || m.Loss == nil {
		return fit.Schedule{}
	}
	return fit.Schedule{Observed: int(j.ProgressSteps / j.EpochSteps), Noise: m.Loss.RMSE, Spacing: 1, StepShaped: fit.StepShapedFit(*m.Loss)}
}
