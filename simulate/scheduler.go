package simulate

import (
	"fmt"
	"math"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// plan is one scheduling round's outcome for the jobs planned.
type plan struct {
	state map[string]pipeline.Running
	// per planned job (in the order given): the remaining steps and speed
	// model the scheduler planned with, and solve's and place's verdict.
	remaining []float64
	speed     []*fit.SpeedModel
	status    []string
	reason    []string
}

// schedule runs one round of the real pipeline over the jobs that can be
// planned: fit each job's observations (pipeline.FitJob), predict
// (pipeline.Predict), solve (pipeline.SolveProblem, solve.Solve), place
// (pipeline.Assignments, pipeline.PlaceProblem, place.Place) and turn the
// placement into the next state (pipeline.CurrentState). With Oracle the
// fit and predict steps are replaced by the truth.
func (s *sim) schedule(active []*jobRun) (*plan, error) {
	n := len(active)
	pl := &plan{remaining: make([]float64, n), speed: make([]*fit.SpeedModel, n),
		status: make([]string, n), reason: make([]string, n)}
	reqs := make([]pipeline.Request, n)
	var preds []pipeline.Prediction
	if !s.cfg.Oracle {
		states := make([]pipeline.JobState, n)
		models := make(map[string]pipeline.Model, n)
		for i, j := range active {
			if j.dirty {
				j.model = pipeline.FitJob(pipeline.FitInput{
					Job:   j.job.Name,
					Loss:  &pipeline.LossSeries{Job: j.job.Name, Points: j.loss},
					Speed: &pipeline.SpeedSeries{Job: j.job.Name, Mode: j.job.Mode, GlobalBatch: float64(j.job.GlobalBatch), Samples: j.samples},
					Info:  &pipeline.JobInfo{Mode: j.job.Mode, GlobalBatch: float64(j.job.GlobalBatch), EpochSteps: float64(j.job.EpochSteps)},
				})
				j.dirty = false
			}
			models[j.job.Name] = j.model
			states[i] = pipeline.JobState{Job: j.job.Name, Model: j.job.Model, Mode: j.job.Mode,
				EpochSteps: j.job.EpochSteps, ProgressSteps: int64(j.progress),
				EpochBudget: j.job.EpochBudget, HasBudget: j.job.HasBudget, PS: j.run.PS, Workers: j.run.Workers}
		}
		var err error
		if preds, err = pipeline.Predict(states, models, s.cfg.Rule, nil); err != nil {
			return nil, err
		}
	}
	for i, j := range active {
		r := pipeline.Request{Job: j.job.Name, Arrival: j.job.Arrival, Weight: j.job.Weight,
			Worker: j.job.Worker, PS: j.job.PS, CurPS: j.run.PS, CurWorkers: j.run.Workers,
			MaxPS: j.job.MaxPS, MaxWorkers: j.job.MaxWorkers}
		if s.cfg.Oracle {
			r.Remaining, r.Speed = j.truth.total-j.progress, j.truth.speed
		} else {
			r.Remaining = s.remainingGuess(j, preds[i])
			if preds[i].Speed != nil {
				r.Speed = *preds[i].Speed
			} else {
				r.SpeedMissing = "no speed model: " + j.model.SpeedNote
			}
		}
		reqs[i] = r
		pl.remaining[i] = r.Remaining
		if r.SpeedMissing == "" {
			sp := r.Speed
			pl.speed[i] = &sp
		}
	}
	prob := pipeline.SolveProblem(s.in.Cluster, reqs)
	opts := solve.DefaultOptions()
	opts.Policy, opts.Capacity = s.cfg.Policy, s.cfg.Capacity
	opts.RestartCost = s.cfg.StopCost + s.cfg.RestoreCost
	res, err := solve.Solve(prob, opts)
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	pp, err := pipeline.PlaceProblem(s.in.Cluster, pipeline.Assignments(prob, res), pipeline.CurrentTasks(s.current))
	if err != nil {
		return nil, fmt.Errorf("place: %w", err)
	}
	pres, err := place.Place(pp, place.Options{Policy: s.cfg.Placement})
	if err != nil {
		return nil, fmt.Errorf("place: %w", err)
	}
	pl.state = pipeline.CurrentState(pp, pres)
	for i := range active {
		pl.status[i], pl.reason[i] = string(pres.Jobs[i].Status), pres.Jobs[i].Reason
		if pl.reason[i] == "" {
			pl.reason[i] = res.Decisions[i].Reason
		}
	}
	return pl, nil
}

// remainingGuess is the remaining steps the scheduler plans a job with: the
// prediction's median. Where predict knows nothing yet (a new job with too
// few loss points and no family to borrow from) the scheduler assumes the
// median length of the jobs it saw finish, else the rule's cap. A job that
// is still running has at least one epoch left, whatever its fit says: a
// real scheduler knows the job has not stopped.
func (s *sim) remainingGuess(j *jobRun, p pipeline.Prediction) float64 {
	rem := p.Remaining[1]
	if math.IsNaN(rem) {
		epochs := float64(s.cfg.Rule.Cap)
		if m, ok := s.finishedEpochs[j.job.Model]; ok && len(m) > 0 {
			epochs = fit.Median(m)
		} else if len(s.allFinishedEpochs) > 0 {
			epochs = fit.Median(s.allFinishedEpochs)
		}
		rem = epochs*float64(j.job.EpochSteps) - j.progress
	}
	return math.Max(rem, float64(j.job.EpochSteps))
}
