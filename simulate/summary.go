package simulate

import (
	"math"

	"github.com/optimus-sched/optimus/fit"
)

// Summary sums up one run.
type Summary struct {
	Jobs, Finished, Unfinished, NeverStarted int
	// JCT figures are over the finished jobs, in seconds (NaN when none).
	MeanJCT, MedianJCT, P95JCT float64
	// Makespan is from the first arrival to the last finish (to the end of
	// the simulation when a job is unfinished).
	Makespan float64
	Restarts int
	// RestartLost and Profiling are the seconds all jobs spent restarting
	// and profiling.
	RestartLost, Profiling float64
	// Utilisation is, per resource, the share of the cluster's capacity
	// allocated over the makespan (0 when nothing ran).
	Utilisation []float64
	// MeanPredErr is the mean over jobs of their PredErr (NaN when none).
	MeanPredErr float64
	Rounds      int
}

func (s *sim) finishResults() {
	res := s.res
	var jcts, errs []float64
	first, last := math.Inf(1), math.Inf(-1)
	sum := Summary{Jobs: len(s.jobs), Rounds: res.Rounds}
	// The simulation's end: its last round's, or the horizon when a job
	// was still to run there (the loop may have stopped before the
	// horizon's round, when every job left became ready only after it).
	end := s.now
	for _, j := range s.jobs {
		if !j.done && j.truth.never == "" {
			end = math.Max(end, s.cfg.Horizon)
		}
	}
	for _, j := range s.jobs {
		r := JobResult{Job: j.job.Name, Model: j.job.Model, Arrival: j.job.Arrival, Ready: j.ready,
			Start: j.start, Finish: j.finish, JCT: math.NaN(), Restarts: j.restarts, RestartLost: j.restartLost,
			Profiling: j.profiling, TotalSteps: j.truth.total, Progress: j.progress, Ideal: j.truth.ideal, PredErr: math.NaN()}
		first = math.Min(first, j.job.Arrival)
		switch {
		case j.done:
			r.Status, r.JCT = StatusFinished, j.finish-j.job.Arrival
			jcts = append(jcts, r.JCT)
			last = math.Max(last, j.finish)
			sum.Finished++
		case j.truth.never != "":
			r.Status, r.Reason = StatusNeverStarted, j.truth.never
			sum.NeverStarted++
		case !j.started:
			r.Status, r.Reason = StatusNeverStarted, "horizon reached while waiting"
			if j.lastReason != "" {
				r.Reason += ": " + j.lastReason
			}
			sum.NeverStarted++
		default:
			r.Status, r.Reason = StatusUnfinished, "horizon reached"
			sum.Unfinished++
		}
		if r.Status != StatusFinished {
			last = math.Max(last, end)
		}
		if j.busyUntil > end && !j.done {
			r.RestartLost -= j.busyUntil - end
		}
		if j.done {
			var e []float64
			for _, p := range j.preds {
				if trueRem := j.finish - p.t; trueRem > 0 {
					e = append(e, math.Abs(p.remaining/trueRem-1))
				}
			}
			if r.PredCount = len(e); r.PredCount > 0 {
				r.PredErr = fit.Median(e)
				errs = append(errs, r.PredErr)
			}
			for _, a := range j.allocs {
				res.Allocs[a].TrueRemaining = j.finish - res.Allocs[a].Time
			}
		}
		sum.Restarts += r.Restarts
		sum.RestartLost += r.RestartLost
		sum.Profiling += r.Profiling
		res.Jobs = append(res.Jobs, r)
	}
	sum.MeanJCT, sum.MedianJCT, sum.P95JCT = math.NaN(), math.NaN(), math.NaN()
	if len(jcts) > 0 {
		m := 0.0
		for _, x := range jcts {
			m += x
		}
		sum.MeanJCT = m / float64(len(jcts))
		sum.MedianJCT = fit.Median(jcts)
		sum.P95JCT = fit.Quantile(jcts, 0.95)
	}
	sum.Makespan = math.NaN()
	if !math.IsInf(last, -1) {
		sum.Makespan = math.Max(0, last-first) // 0 when every job arrived after the end
	}
	sum.Utilisation = make([]float64, len(s.capTotal))
	for r := range sum.Utilisation {
		if sum.Makespan > 0 && s.capTotal[r] > 0 {
			sum.Utilisation[r] = s.usedSeconds[r] / (s.capTotal[r] * sum.Makespan)
		}
	}
	sum.MeanPredErr = math.NaN()
	if len(errs) > 0 {
		m := 0.0
		for _, x := range errs {
			m += x
		}
		sum.MeanPredErr = m / float64(len(errs))
	}
	res.Summary = sum
}
