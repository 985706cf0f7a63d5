package simulate

import (
	"fmt"
	"math"
	"slices"

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
	if s.adaptsBatch {
		return s.schedulePollux(active)
	}
	n := len(active)
	pl, reqs, speeds := s.roundBuffers(n)
	var preds []pipeline.Prediction
	if !s.cfg.Oracle {
		states := make([]pipeline.JobState, n)
		models := make(map[string]pipeline.Model, n)
		for i, j := range active {
			if j.dirty {
				// A job with an epoch budget needs no convergence model
				// (predict takes the budget), so its loss is not fitted.
				var loss *pipeline.LossSeries
				if !j.job.HasBudget {
					loss = &pipeline.LossSeries{Job: j.job.Name, Points: j.loss}
				}
				j.model = pipeline.FitJob(pipeline.FitInput{
					Job:   j.job.Name,
					Loss:  loss,
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
			MaxPS: j.job.MaxPS, MaxWorkers: j.job.MaxWorkers,
			Attained: j.attained, Executed: j.executed, Waited: s.waited(j), RequestWorkers: j.job.RequestWorkers}
		if s.cfg.TiresiasDemotionOrder && s.cfg.Solve.Policy == solve.Tiresias {
			q := 0
			for _, th := range s.cfg.Solve.TiresiasThresholds {
				if j.attained >= th {
					q++
				}
			}
			if q > j.queue {
				j.queue, j.queuedAt = q, s.now
			}
			if j.queue > 0 {
				r.Arrival = j.queuedAt
			}
		}
		if s.cfg.Oracle {
			r.Remaining, r.Speed = j.truth.total-j.progress, j.truth.speed
			if j.job.OracleRemaining != nil {
				r.Remaining = math.Max(0, j.job.OracleRemaining(j.progress))
			}
		} else {
			r.Remaining = s.remainingGuess(j, preds[i])
			if preds[i].Speed != nil {
				r.Speed = *preds[i].Speed
			} else if sm, ok := speedGuess(j, active, i); ok {
				r.Speed = sm
			} else {
				r.SpeedMissing = "no speed model: " + j.model.SpeedNote
			}
		}
		reqs[i] = r
		pl.remaining[i] = r.Remaining
		if r.SpeedMissing == "" {
			speeds[i] = r.Speed
			pl.speed[i] = &speeds[i]
		}
	}
	if s.cfg.SRTFWeight > 0 && s.cfg.Solve.Policy == solve.Optimus {
		srtfWeights(reqs, s.cfg.SRTFWeight)
	}
	opts := s.cfg.Solve
	static := s.staticBaseline()
	if static {
		s.staticRequests(active, reqs)
		opts.Policy = solve.FIFO // all or nothing, in the order staticRequests set
	}
	prob := pipeline.SolveProblem(s.in.Cluster, reqs)
	for i := range active {
		if pl.speed[i] != nil {
			speeds[i] = prob.Jobs[i].Speed // with the cluster's workers per node, for all-reduce
		}
	}
	// Tiresias' decisions, through the memo: what follows reads only the
	// decisions and the packing (pipeline.Assignments, the reasons), which
	// a round that repeats the last one's problem shares with it.
	solveFn := solve.Solve
	if !static && !s.cfg.PolluxPlacement {
		solveFn = s.tiresiasMemo.Solve
	}
	res, err := solveFn(prob, opts)
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	if s.cfg.PolluxPlacement {
		pl.state, pl.status, pl.reason, err = polluxPlace(s.in.Cluster, active, res, s.cfg.Solve)
		if err != nil {
			return nil, err
		}
		return pl, nil
	}
	pp, err := pipeline.PlaceProblem(s.in.Cluster, pipeline.Assignments(prob, res), pipeline.CurrentTasks(s.current))
	if err != nil {
		return nil, fmt.Errorf("place: %w", err)
	}
	var pres *place.Result
	if static {
		// allOrNothing edits the state below: no memo to share it with.
		if pres, err = place.Place(pp, s.cfg.Place); err != nil {
			return nil, fmt.Errorf("place: %w", err)
		}
		pl.state = pipeline.CurrentState(pp, pres)
	} else if pres, pl.state, err = s.placeMemoised(pp); err != nil {
		return nil, fmt.Errorf("place: %w", err)
	}
	for i := range active {
		pl.status[i], pl.reason[i] = string(pres.Jobs[i].Status), pres.Jobs[i].Reason
		if pl.reason[i] == "" {
			pl.reason[i] = res.Decisions[i].Reason
		}
		if static {
			pl.reason[i] = s.staticReason(pl.reason[i])
		}
	}
	if static {
		s.allOrNothing(active, reqs, pl)
	}
	return pl, nil
}

// roundBuffers is a round's plan, requests and the speed models plan.speed
// points at, in buffers reused from round to round: a plan lives only
// through its round's apply, and pipeline.SolveProblem copies the requests.
// Every element is reset (zero, speed nil), as freshly made.
func (s *sim) roundBuffers(n int) (*plan, []pipeline.Request, []fit.SpeedModel) {
	b := &s.round
	if cap(b.reqs) < n {
		b.remaining, b.speed, b.status, b.reason = make([]float64, n), make([]*fit.SpeedModel, n), make([]string, n), make([]string, n)
		b.reqs, b.speeds = make([]pipeline.Request, n), make([]fit.SpeedModel, n)
	}
	b.pl = plan{remaining: b.remaining[:n], speed: b.speed[:n], status: b.status[:n], reason: b.reason[:n]}
	clear(b.pl.remaining)
	clear(b.pl.speed)
	clear(b.pl.status)
	clear(b.pl.reason)
	reqs, speeds := b.reqs[:n], b.speeds[:n]
	clear(reqs)
	clear(speeds)
	return &b.pl, reqs, speeds
}

// waited is how long a job not running now has waited since it last ran
// (since it was ready, if it never ran); 0 for a running job.
func (s *sim) waited(j *jobRun) float64 {
	if j.run.Workers > 0 {
		return 0
	}
	return math.Max(0, s.now-math.Max(j.ready, j.lastRan))
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

// speedGuess stands in for the speed model of a job that has none: a job
// whose limits allow only a few configurations (a 1 PS + 1 worker job, as
// most of the Philly trace's) cannot be profiled at the five the sync
// model needs. It is the speed model of another job of its model family
// and mode planned now (the first in arrival order that has one), at the
// job's global batch and scaled to the job's own samples; without one, a
// model in which the speed measured is all the job gets (sync: constant;
// async: proportional to the workers; 1 step/s with no samples at all,
// which lets the job start and be measured). A real scheduler would do the
// same with the models of the family's earlier jobs.
func speedGuess(j *jobRun, active []*jobRun, self int) (fit.SpeedModel, bool) {
	ratio := func(m fit.SpeedModel) float64 {
		if len(j.samples) == 0 {
			return 1 // nothing measured yet (no profiling): take the model as it is
		}
		var sum float64
		var n int
		for _, smp := range j.samples {
			if f := m.SampleSpeed(smp); f > 0 && smp.Speed > 0 {
				sum += smp.Speed / f
				n++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
	for k, o := range active {
		if k == self || o.job.Model != j.job.Model || o.job.Mode != j.job.Mode || o.model.Speed == nil || !o.model.Identifiable {
			continue
		}
		m := o.model.Speed.Model
		m.GlobalBatch = float64(j.job.GlobalBatch)
		if f := ratio(m); f > 0 {
			for t := range m.Theta {
				m.Theta[t] /= f
			}
			return m, true
		}
	}
	m := fit.SpeedModel{Mode: j.job.Mode, GlobalBatch: float64(j.job.GlobalBatch)}
	if m.Mode == fit.Async {
		m.Theta[0] = 1
	} else {
		m.Theta[1] = 1
	}
	f := ratio(m)
	if !(f > 0) {
		return fit.SpeedModel{}, false
	}
	for t := range m.Theta {
		m.Theta[t] /= f
	}
	return m, true
}

// srtfWeights sets each request's weight to (mean T1 / its T1)^alpha, T1
// its remaining time on one worker (and one PS for a PS job), over the
// requests with a speed model and work left; the others keep theirs.
func srtfWeights(reqs []pipeline.Request, alpha float64) {
	t1 := make([]float64, len(reqs))
	sum, n := 0.0, 0
	for i, r := range reqs {
		if r.SpeedMissing != "" || !(r.Remaining > 0) {
			continue
		}
		ps := 1
		if r.Speed.Mode == fit.AllReduce {
			ps = 0
		}
		if f := r.Speed.Speed(ps, 1); f > 0 && !math.IsInf(f, 0) {
			t1[i] = r.Remaining / f
			sum += t1[i]
			n++
		}
	}
	if n == 0 {
		return
	}
	mean := sum / float64(n)
	for i := range reqs {
		if t1[i] > 0 && !math.IsInf(t1[i], 0) {
			if w := math.Pow(mean/t1[i], alpha); w > 0 && !math.IsInf(w, 0) {
				reqs[i].Weight *= w
			}
		}
	}
}

// placeMemo is a round's place problem and what place.Place and
// pipeline.CurrentState made of it.
type placeMemo struct {
	jobs  []place.Job
	res   *place.Result
	state map[string]pipeline.Running
}

// placeMemoised is place.Place and pipeline.CurrentState of pp, or the
// last round's outcome when pp is the last round's problem: place is a
// function of its problem and options (deterministic, and the options,
// like the cluster's resources, nodes and capacities that pp carries,
// are the run's own, the same every round), so equal problems give
// equal results. Most rounds of a run where no job arrives, finishes or
// changes queue ask again what the round before asked (the allocation
// solve decided, with the tasks the jobs run now, which are that round's
// outcome), and the memo spares placing it again. The state is shared
// with the round before: nothing writes to it after schedule (apply
// copies its entries).
func (s *sim) placeMemoised(pp *place.Problem) (*place.Result, map[string]pipeline.Running, error) {
	if m := s.lastPlace; m != nil && slices.EqualFunc(m.jobs, pp.Jobs, samePlaceJob) {
		return m.res, m.state, nil
	}
	res, err := place.Place(pp, s.cfg.Place)
	if err != nil {
		return nil, nil, err
	}
	state := pipeline.CurrentState(pp, res)
	s.lastPlace = &placeMemo{jobs: pp.Jobs, res: res, state: state}
	return res, state, nil
}

// samePlaceJob reports whether two jobs of place's problem are equal in
// every field (demands compared as numbers: a NaN demand is never equal,
// which only costs a memo miss).
func samePlaceJob(a, b place.Job) bool {
	return a.Name == b.Name && a.PS == b.PS && a.Workers == b.Workers && a.Status == b.Status && a.Reason == b.Reason &&
		slices.Equal(a.PSDemand, b.PSDemand) && slices.Equal(a.WorkerDemand, b.WorkerDemand) &&
		slices.Equal(a.Current, b.Current) && slices.Equal(a.Packing, b.Packing)
}
