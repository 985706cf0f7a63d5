// Package pipeline holds the typed, in-memory hand-offs between optimus'
// steps: fit a job's metrics, predict its remaining work (with the model
// family's fallback), build solve's problem from the predictions and the
// cluster, turn solve's result into place's problem, and turn a placement
// into the next round's current state. The commands, the benchmarks and
// the simulator call these functions; table reading and writing lives in
// io/adapt, the algorithms in fit, solve and place.
package pipeline

import (
	"fmt"

	"github.com/optimus-sched/optimus/fit"
)

// LossSeries is one job's loss points, in step order.
type LossSeries struct {
	Job            string
	HigherIsBetter bool
	Points         []fit.LossPoint
}

// SpeedSeries is one job's speed samples and the form of its speed model.
type SpeedSeries struct {
	Job         string
	Mode        string
	GlobalBatch float64
	Samples     []fit.SpeedSample
}

// JobInfo is what the jobs table says about a job that fitting needs.
type JobInfo struct {
	Mode        string
	GlobalBatch float64
	EpochSteps  float64
}

// Model is one job's fitted models: one row of the models table.
type Model struct {
	Job string
	// Loss is nil when no convergence model was fitted; LossNote says why.
	Loss     *fit.LossFit
	LossNote string
	// Speed is nil when no speed model was fitted; SpeedNote says why.
	Speed        *fit.SpeedFit
	SpeedNote    string
	Identifiable bool
	// SpeedMode and SpeedBatch are known even without a fit.
	SpeedMode  string
	SpeedBatch float64
	// SpeedQuality is the speed model's verdict; "" with no samples at all.
	SpeedQuality string
}

// FitInput is one job to fit: any of its parts may be nil.
type FitInput struct {
	Job   string
	Loss  *LossSeries
	Speed *SpeedSeries
	Info  *JobInfo
}

// FitJob fits one job's convergence model (fit.FitLoss) and speed model
// (fit.FitSpeed). What cannot be fitted is explained in the notes rather
// than failing: a scheduler plans the other jobs, and predict falls back to
// the job's model family.
func FitJob(in FitInput) Model {
	m := Model{Job: in.Job}
	if in.Info != nil {
		m.SpeedMode, m.SpeedBatch = in.Info.Mode, in.Info.GlobalBatch
	}
	if jl := in.Loss; jl == nil {
		m.LossNote = "no loss points"
	} else {
		opt := fit.DefaultLossOptions
		opt.HigherIsBetter = jl.HigherIsBetter
		lf, err := fit.FitLoss(jl.Points, opt)
		switch {
		case err != nil:
			m.LossNote = err.Error()
		case lf.Quality == fit.QualityInsufficient:
			m.Loss = &lf
			m.LossNote = fmt.Sprintf("%d usable of %d points; %d needed", lf.Used, len(jl.Points), opt.MinPoints)
		default:
			m.Loss = &lf
		}
	}
	if js := in.Speed; js == nil {
		m.SpeedNote = "no speed samples"
	} else {
		m.SpeedMode, m.SpeedBatch = js.Mode, js.GlobalBatch
		var ok []fit.Config
		for _, s := range js.Samples {
			if s.Speed > 0 {
				ok = append(ok, fit.SampleConfig(s))
			}
		}
		m.Identifiable = fit.Identifiable(js.Mode, js.GlobalBatch, ok)
		sf, err := fit.FitSpeed(js.Mode, js.GlobalBatch, js.Samples)
		if err != nil {
			m.SpeedNote = err.Error()
		} else {
			m.Speed = &sf
			if !m.Identifiable {
				m.SpeedNote = "the measured configurations cannot separate every term: see optimus fit suggest"
			}
		}
	}
	m.SpeedQuality = SpeedVerdict(m.Speed, m.Identifiable, m.SpeedNote)
	return m
}

// FitJobs fits every job, parallel at a time, and returns the models in
// the order of jobs. progress, if not nil, is called after each job.
func FitJobs(jobs []FitInput, parallel int, progress func(done, total int)) []Model {
	out := make([]Model, len(jobs))
	ForEach(len(jobs), parallel, func(i int) { out[i] = FitJob(jobs[i]) }, progress)
	return out
}

// SpeedVerdict grades a speed fit the way the models table reports it.
func SpeedVerdict(f *fit.SpeedFit, identifiable bool, note string) string {
	switch {
	case f != nil:
		return f.Verdict(identifiable)
	case note != "":
		return fit.QualityInsufficient
	}
	return ""
}

// Dropped counts what the fits left out: loss points dropped (NaN,
// infinite, outliers) and failed speed samples, with the number of jobs
// each concerns.
type Dropped struct {
	Points, PointJobs, Failed, FailedJobs int
}

// CountDropped sums Dropped over models.
func CountDropped(models []Model) Dropped {
	var d Dropped
	for _, m := range models {
		if m.Loss != nil && m.Loss.Dropped > 0 {
			d.Points += m.Loss.Dropped
			d.PointJobs++
		}
		if m.Speed != nil && m.Speed.Failed > 0 {
			d.Failed += m.Speed.Failed
			d.FailedJobs++
		}
	}
	return d
}
