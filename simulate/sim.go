package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/goodput"
	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// jobRun is one job's state during a run.
type jobRun struct {
	job   *Job
	truth truth
	// rng draws the job's observation noise. It is seeded by the run's
	// seed and the job's position only, so every policy sees the same
	// noise for the same observations (common random numbers).
	rng *rand.Rand

	ready, profiling float64
	progress         float64
	run              pipeline.Running
	busyUntil        float64 // restarting until then: no progress
	started, done    bool
	start, finish    float64
	restarts         int
	restartLost      float64

	loss     []fit.LossPoint
	nextLoss float64 // step of the next loss point logged
	samples  []fit.SpeedSample
	sampled  map[fit.Config]int // index into samples; repeated runs are averaged
	nSampled []int
	model    pipeline.Model
	dirty    bool // observations since the last fit

	// attained is the service the job has had (seconds holding its
	// tasks x workers), executed the seconds it held them, lastRan when
	// it last held them: what Tiresias ranks by.
	attained, executed, lastRan float64
	// queue is the Tiresias queue the job's attained service has reached
	// (thresholds passed) and queuedAt the round it reached it in, with
	// TiresiasDemotionOrder.
	queue    int
	queuedAt float64

	// ad is an adaptive job's state (a policy that adapts batch sizes);
	// nil for a job of a fixed batch. Its progress and truth.total are in
	// steps of the profile's initial batch, weighted by statistical gain.
	ad *adaptiveRun

	// onNodes and onSpeed are tasksPerNode(run) and the true speed on it,
	// kept while the job keeps its tasks (onValid): most rounds change
	// nothing, and a placed profile's step time costs a lookup.
	onNodes []int
	onSpeed float64
	onValid bool

	preds      []predAt // the scheduler's predicted remaining time, per round run
	allocs     []int    // rows of Result.Allocs
	lastReason string
}

type predAt struct{ t, remaining float64 }

type sim struct {
	in                *Input
	cfg               Config
	jobs              []*jobRun
	current           map[string]pipeline.Running
	finishedEpochs    map[string][]float64
	allFinishedEpochs []float64
	capTotal          []float64
	usedSeconds       []float64
	now               float64 // end of the last interval simulated
	roundAt           float64 // the time of the round being planned
	res               *Result
	// adaptsBatch: the policy chooses batch sizes (solve.PolicyEntry).
	adaptsBatch bool
	oraclePerf  map[string]goodput.PerfParams // per model, with oracle knowledge
	polluxPrev  *polluxSeeds
	bestPlaced  map[placedKey]float64 // idealPlacedCached's
	lastPlace   *placeMemo            // placeMemoised's
	round       struct {              // schedule's buffers (roundBuffers)
		pl             plan
		remaining      []float64
		speed          []*fit.SpeedModel
		status, reason []string
		reqs           []pipeline.Request
		speeds         []fit.SpeedModel
	}
	// tiresiasMemo spares solving a Tiresias round again (schedule).
	tiresiasMemo solve.TiresiasMemo
}

// Run simulates the workload under one configuration.
func Run(in *Input, cfg Config) (*Result, error) {
	if err := check(in, &cfg); err != nil {
		return nil, err
	}
	if cfg.ArriveAtOnce {
		in = arrivingAtOnce(in)
	}
	s := &sim{in: in, cfg: cfg, current: map[string]pipeline.Running{}, finishedEpochs: map[string][]float64{},
		res: &Result{Policy: cfg.Solve.Policy, Oracle: cfg.Oracle, Seed: cfg.Seed, Resources: in.Cluster.Resources}}
	s.adaptsBatch = solve.LookupPolicy(cfg.Solve.Policy).AdaptsBatch
	s.oraclePerf = map[string]goodput.PerfParams{}
	s.capTotal = make([]float64, len(in.Cluster.Resources))
	for _, node := range in.Cluster.Capacity {
		for r, x := range node {
			s.capTotal[r] += x
		}
	}
	s.usedSeconds = make([]float64, len(s.capTotal))
	for i := range in.Jobs {
		s.jobs = append(s.jobs, s.newJob(i))
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	s.finishResults()
	return s.res, nil
}

// check rejects inputs the loop cannot run; the table adapters report the
// same problems with file, column and row first.
func check(in *Input, cfg *Config) error {
	if in.Cluster == nil {
		return fmt.Errorf("no cluster")
	}
	if err := in.Cluster.Check(); err != nil {
		return err
	}
	if cfg.LossPointsPerEpoch < 1 {
		cfg.LossPointsPerEpoch = 1
	}
	if cfg.Horizon == 0 {
		cfg.Horizon = DefaultHorizon
	}
	cfg.Solve, cfg.Place = cfg.Solve.WithDefaults(), cfg.Place.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.TrueRestartCost {
		cfg.Solve.RestartCost = cfg.StopCost + cfg.RestoreCost
	}
	seen := make(map[string]bool, len(in.Jobs))
	for i := range in.Jobs {
		j := &in.Jobs[i]
		p, ok := in.Profiles[j.Model]
		switch {
		case seen[j.Name]:
			return fmt.Errorf("job %q appears twice in the workload", j.Name)
		case !ok:
			return fmt.Errorf("job %q: no profile for model %q", j.Name, j.Model)
		case p.Kind != KindPS && p.Kind != KindMeasured && p.Kind != KindPlaced:
			return fmt.Errorf("job %q: profile kind %q of model %q is not supported", j.Name, p.Kind, j.Model)
		case len(p.Drops) > 0 && !(p.DropFactor > 0 && p.DropFactor < 1):
			return fmt.Errorf("job %q: the loss drops of model %q need a drop factor between 0 and 1, not %g", j.Name, j.Model, p.DropFactor)
		case p.Kind == KindMeasured && p.Measured == nil:
			return fmt.Errorf("job %q: the measured profile of model %q has no measurements", j.Name, j.Model)
		case p.Kind == KindPlaced && (p.Placed == nil || p.Placed.StepTime == nil || p.Placed.Oracle == nil):
			return fmt.Errorf("job %q: the placed profile of model %q has no step times", j.Name, j.Model)
		case p.Kind == KindMeasured && j.Mode == fit.AllReduce:
			return fmt.Errorf("job %q: mode allreduce: a measured profile holds parameter-server measurements (model %q)", j.Name, j.Model)
		case solve.LookupPolicy(cfg.Solve.Policy).AdaptsBatch && p.Adaptive == nil:
			return fmt.Errorf("job %q: policy %s adapts batch sizes, and the profile of model %q does not let them adapt (Pollux's workloads do: --pollux)", j.Name, cfg.Solve.Policy, j.Model)
		case p.Kind == KindPlaced && j.Mode != fit.AllReduce:
			return fmt.Errorf("job %q: mode %q: a placed profile is for allreduce jobs", j.Name, j.Mode)
		case !slices.Contains(fit.Modes, j.Mode):
			return fmt.Errorf("job %q: mode %q is not supported (sync, async or allreduce)", j.Name, j.Mode)
		case i > 0 && j.Arrival < in.Jobs[i-1].Arrival:
			return fmt.Errorf("job %q arrives at %g s, before the job before it (%g s): jobs must be in arrival order", j.Name, j.Arrival, in.Jobs[i-1].Arrival)
		case len(j.Worker) != len(in.Cluster.Resources) || len(j.PS) != len(in.Cluster.Resources):
			return fmt.Errorf("job %q: demands of %d resources, the cluster has %d", j.Name, len(j.Worker), len(in.Cluster.Resources))
		case j.SpeedScale <= 0 || j.ConvergenceScale <= 0 || j.EpochSteps < 1 || j.GlobalBatch < 1 || j.Weight <= 0:
			return fmt.Errorf("job %q: speed_scale, convergence_scale, epoch_steps, global_batch and weight must be positive", j.Name)
		}
		seen[j.Name] = true
	}
	return nil
}

func (s *sim) newJob(i int) *jobRun {
	j := &s.in.Jobs[i]
	p := s.in.Profiles[j.Model]
	jr := &jobRun{job: j, rng: rand.New(rand.NewPCG(s.cfg.Seed, uint64(i)+1)), sampled: map[fit.Config]int{},
		start: math.NaN(), finish: math.NaN()}
	jr.truth.speed = TrueSpeed(j, &p)
	if p.Kind == KindPlaced {
		jr.truth.speed = p.Placed.Oracle(j.GlobalBatch)
	}
	jr.truth.loss = trueLoss(j, &p)
	jr.truth.total = totalSteps(j, jr.truth.loss, s.cfg.Rule)
	jr.truth.never = neverFits(j, s.in.Cluster)
	jr.truth.speedAt = trueSpeedAt(j, &p, jr.truth.speed)
	if p.Kind == KindPlaced {
		st, batch, scale := p.Placed.StepTime, float64(j.GlobalBatch), j.SpeedScale
		jr.truth.speedOn = func(perNode []int) float64 { return scale / st(perNode, batch) }
	}
	switch p.Kind {
	case KindPlaced:
		jr.truth.ideal = s.idealPlacedCached(j, p.Placed, jr.truth.total)
	case KindMeasured:
		jr.truth.ideal = idealMeasured(j, p.Measured, j.SpeedScale, jr.truth.total, s.in.Cluster)
	default:
		jr.truth.ideal = idealTime(j, jr.truth.speed, jr.truth.total, s.in.Cluster)
	}
	jr.ready = j.Arrival
	if s.adaptive(&p) {
		// An adaptive job learns its model from what it runs, as Pollux's
		// do: no profiling runs at arrival.
		s.newAdaptive(jr, &p)
	} else if !s.cfg.Oracle && jr.truth.never == "" {
		// The paper's profiling at arrival (section 3.2): a few short runs
		// at spread-out configurations, one after the other.
		maxP, maxW := profileMaxTasks, profileMaxTasks
		if j.MaxPS > 0 {
			maxP = min(maxP, j.MaxPS)
		}
		if j.MaxWorkers > 0 {
			maxW = min(maxW, j.MaxWorkers)
		}
		grid := fit.Grid(maxP, maxW)
		if j.Mode == fit.AllReduce {
			grid = fit.AllReduceGrid(maxW, workersPerNode(s.in.Cluster, j), len(s.in.Cluster.Nodes))
		}
		for _, c := range fit.SuggestConfigs(nil, grid, s.cfg.ProfileRuns) {
			s.observeSpeed(jr, c.PS, c.Workers, c.Nodes, nil, p.SpeedNoise)
		}
		jr.profiling = float64(len(jr.samples)) * s.cfg.ProfileRunS
		jr.ready += jr.profiling
		jr.observeLoss(0, p.LossNoise*s.cfg.NoiseScale) // the loss before training
		jr.nextLoss = float64(j.EpochSteps) / float64(s.cfg.LossPointsPerEpoch)
	}
	return jr
}

// observeSpeed records a noisy speed sample of p PS and w workers; for an
// all-reduce job also the nodes they span, and where they are (perNode;
// nil: spread evenly over nodes).
func (s *sim) observeSpeed(j *jobRun, p, w, nodes int, perNode []int, noise float64) {
	v := j.truth.speedAt(p, w)
	if j.job.Mode != fit.AllReduce {
		nodes = 0
	} else {
		nodes = max(nodes, 1)
		if perNode == nil {
			perNode = layout.SpreadEvenly(w, nodes)
		}
		if j.truth.speedOn != nil {
			v = j.truth.speedOn(perNode)
		}
	}
	v *= math.Exp(noise * s.cfg.NoiseScale * j.rng.NormFloat64())
	c := fit.Config{PS: p, Workers: w, Nodes: nodes}
	if k, ok := j.sampled[c]; ok {
		// A configuration measured again refines its mean; the speed model
		// is refitted with it when the job next logs loss points or runs a
		// new configuration (one more sample of the same one barely moves it).
		j.nSampled[k]++
		j.samples[k].Speed += (v - j.samples[k].Speed) / float64(j.nSampled[k])
		return
	}
	j.sampled[c] = len(j.samples)
	j.samples = append(j.samples, fit.SpeedSample{PS: p, Workers: w, Nodes: nodes, Speed: v})
	j.nSampled = append(j.nSampled, 1)
	j.dirty = true
}

func (j *jobRun) observeLoss(step, noise float64) {
	v := j.truth.loss.At(step) * math.Exp(noise*j.rng.NormFloat64())
	j.loss = append(j.loss, fit.LossPoint{Step: step, Value: v})
	j.dirty = j.dirty || !j.job.HasBudget // a budget job's loss is not fitted
}

// tickAtOrAfter is the first scheduling time at or after t: never before
// it, so that a job ready at t is active there (the loop waits for the
// tick of its first ready job; a tick a hair before that job's time, as
// a tolerance for rounding gave when t lay within 1e-12 intervals after a
// tick, was a round without it, the same tick again, without end).
func (s *sim) tickAtOrAfter(t float64) float64 {
	tick := math.Max(0, math.Ceil(t/s.cfg.Interval)*s.cfg.Interval) // never -0
	for tick < t {                                                  // t/Interval rounded down
		tick += s.cfg.Interval
	}
	return tick
}

func (s *sim) loop() error {
	pending := 0 // index of the first job not yet ready-checked
	var active []*jobRun
	t := 0.0
	if len(s.jobs) > 0 {
		t = s.tickAtOrAfter(s.jobs[0].ready)
	}
	for t < s.cfg.Horizon {
		active = active[:0]
		next := math.Inf(1)
		for _, j := range s.jobs[pending:] {
			if j.done || j.truth.never != "" {
				continue
			}
			if j.ready <= t {
				active = append(active, j)
			} else {
				next = math.Min(next, j.ready)
			}
		}
		for pending < len(s.jobs) && (s.jobs[pending].done || s.jobs[pending].truth.never != "") {
			pending++
		}
		if len(active) == 0 {
			if math.IsInf(next, 1) {
				break
			}
			t = s.tickAtOrAfter(next)
			continue
		}
		s.roundAt = t
		pl, err := s.schedule(active)
		if err != nil {
			return fmt.Errorf("round at %g s: %w", t, err)
		}
		s.apply(t, active, pl)
		if s.cfg.Check {
			if err := s.checkCapacity(t); err != nil {
				return err
			}
		}
		if err := s.advance(t, math.Min(t+s.cfg.Interval, s.cfg.Horizon), active); err != nil {
			return err
		}
		s.res.Rounds++
		s.now = math.Min(t+s.cfg.Interval, s.cfg.Horizon)
		t += s.cfg.Interval
	}
	return nil
}

// sameTasks reports whether a job keeps exactly its tasks and their nodes.
func sameTasks(a, b pipeline.Running) bool {
	if a.PS != b.PS || a.Workers != b.Workers || len(a.Tasks) != len(b.Tasks) {
		return false
	}
	// A job that keeps its tasks mostly gets them back in the same order:
	// equal lists are equal sets, with nothing to sort or allocate.
	if slices.Equal(a.Tasks, b.Tasks) {
		return true
	}
	key := func(t place.Task) [3]int { return [3]int{int(t.Role), t.Index, t.Node} }
	ka, kb := make([][3]int, len(a.Tasks)), make([][3]int, len(b.Tasks))
	for i := range a.Tasks {
		ka[i], kb[i] = key(a.Tasks[i]), key(b.Tasks[i])
	}
	cmp := func(x, y [3]int) int { return slices.Compare(x[:], y[:]) }
	slices.SortFunc(ka, cmp)
	slices.SortFunc(kb, cmp)
	return slices.EqualFunc(ka, kb, func(x, y [3]int) bool { return x == y })
}

// apply carries out a round's plan: jobs start, stop, and restart (paying
// the checkpoint and restore) where their tasks changed.
func (s *sim) apply(t float64, active []*jobRun, pl *plan) {
	share := make([]float64, len(s.capTotal))
	running := 0
	for i, j := range active {
		nw := pl.state[j.job.Name]
		old := j.run
		restarted := false
		if nw.Workers > 0 {
			cost := 0.0
			switch {
			case old.Workers == 0 && !j.started:
				j.started, j.start = true, t
				if s.cfg.StartCost > 0 {
					j.busyUntil = t + s.cfg.StartCost
					j.restartLost += s.cfg.StartCost
				}
			case old.Workers == 0:
				cost, restarted = s.cfg.RestoreCost, true // resumed after a preemption
			case !sameTasks(old, nw) || (s.cfg.RestartEveryRound && !s.staticBaseline()):
				cost, restarted = s.cfg.StopCost+s.cfg.RestoreCost, true
			}
			if restarted {
				if j.busyUntil > t {
					j.restartLost -= j.busyUntil - t // the earlier restart is cut short
				}
				j.restarts++
				j.busyUntil = t + cost
				j.restartLost += cost
			}
			running++
			for r := range share {
				share[r] += (float64(nw.PS)*j.job.PS[r] + float64(nw.Workers)*j.job.Worker[r]) / s.capTotal[r]
			}
		} else if old.Workers > 0 && j.busyUntil > t {
			j.restartLost -= j.busyUntil - t // stopped while restarting
			j.busyUntil = t
		}
		if j.ad != nil && !sameTasks(old, nw) {
			j.ad.setBatch(tasksPerNode(nw))
		}
		if j.onValid && !sameTasks(old, nw) {
			j.onValid = false
		}
		j.run = nw
		j.lastReason = pl.reason[i]
		predRem := math.NaN()
		if nw.Workers > 0 && pl.speed[i] != nil {
			if f := pl.speed[i].Speed(nw.PS, nw.Workers); f > 0 {
				predRem = pl.remaining[i] / f
				j.preds = append(j.preds, predAt{t, predRem})
			}
		}
		if s.cfg.KeepIntervals {
			nodes := map[int]bool{}
			for _, task := range nw.Tasks {
				nodes[task.Node] = true
			}
			j.allocs = append(j.allocs, len(s.res.Allocs))
			s.res.Allocs = append(s.res.Allocs, Alloc{Time: t, Job: j.job.Name, PS: nw.PS, Workers: nw.Workers, Nodes: len(nodes),
				Restarted: restarted, PredRemaining: predRem, TrueRemaining: math.NaN(),
				PredSteps: pl.remaining[i], TrueSteps: j.truth.total - j.progress, Status: pl.status[i], Reason: pl.reason[i]})
		}
		if nw.Workers > 0 {
			s.current[j.job.Name] = nw
		} else {
			delete(s.current, j.job.Name)
		}
	}
	if s.cfg.KeepIntervals {
		for r := range share {
			share[r] = math.Min(share[r], 1)
		}
		s.res.Usage = append(s.res.Usage, Usage{Time: t, Running: running, Waiting: len(active) - running, Share: share})
	}
}

// checkCapacity verifies that no node holds more than its capacity.
func (s *sim) checkCapacity(t float64) error {
	c := s.in.Cluster
	used := make([][]float64, len(c.Nodes))
	for i := range used {
		used[i] = make([]float64, len(c.Resources))
	}
	for _, j := range s.jobs {
		for _, task := range j.run.Tasks {
			if task.Node < 0 || task.Node >= len(c.Nodes) {
				return fmt.Errorf("at %g s: job %q has a task on node index %d, outside the cluster", t, j.job.Name, task.Node)
			}
			d := j.job.Worker
			if task.Role == place.PS {
				d = j.job.PS
			}
			for r := range d {
				used[task.Node][r] += d[r]
			}
		}
	}
	for n := range used {
		for r, u := range used[n] {
			if u > c.Capacity[n][r]*(1+1e-9)+1e-9 {
				return fmt.Errorf("at %g s: node %s holds %g %s, more than its capacity %g", t, c.Nodes[n], u, c.Resources[r], c.Capacity[n][r])
			}
		}
	}
	return nil
}

// advance trains every running job from t to end at its true speed and
// records what it logs.
func (s *sim) advance(t, end float64, active []*jobRun) error {
	for _, j := range active {
		if j.run.Workers == 0 {
			continue
		}
		p := s.in.Profiles[j.job.Model]
		held := end - t
		begin := math.Max(t, j.busyUntil)
		if begin < end && j.ad != nil {
			if done, finish := s.advanceAdaptive(j, begin, end); done {
				j.finish, j.done, held = finish, true, finish-t
			}
		} else if begin < end {
			if !j.onValid {
				j.onNodes = tasksPerNode(j.run)
				if j.truth.speedOn != nil {
					j.onSpeed = j.truth.speedOn(j.onNodes)
				} else {
					j.onSpeed = j.truth.speedAt(j.run.PS, j.run.Workers)
				}
				j.onValid = true
			}
			perNode, sp := j.onNodes, j.onSpeed
			need := j.truth.total - j.progress
			if sp*(end-begin) >= need {
				j.finish = begin + need/sp
				j.progress = j.truth.total
				j.done = true
				held = j.finish - t
			} else {
				j.progress += sp * (end - begin)
			}
			if !s.cfg.Oracle {
				noise := p.LossNoise * s.cfg.NoiseScale
				every := float64(j.job.EpochSteps) / float64(s.cfg.LossPointsPerEpoch)
				for j.nextLoss <= j.progress {
					j.observeLoss(j.nextLoss, noise)
					j.nextLoss += every
				}
				s.observeSpeed(j, j.run.PS, j.run.Workers, len(perNode), perNode, p.SpeedNoise)
			}
		}
		for r := range s.usedSeconds {
			s.usedSeconds[r] += held * (float64(j.run.PS)*j.job.PS[r] + float64(j.run.Workers)*j.job.Worker[r])
		}
		j.attained += held * float64(j.run.Workers)
		j.executed += held
		j.lastRan = t + held
		if j.done {
			epochs := j.truth.total / float64(j.job.EpochSteps)
			s.finishedEpochs[j.job.Model] = append(s.finishedEpochs[j.job.Model], epochs)
			s.allFinishedEpochs = append(s.allFinishedEpochs, epochs)
			delete(s.current, j.job.Name)
			j.run, j.onValid = pipeline.Running{}, false
			if s.cfg.Check && j.finish-j.job.Arrival < j.truth.ideal*(1-1e-9) {
				return fmt.Errorf("job %q finished in %g s, faster than its ideal %g s", j.job.Name, j.finish-j.job.Arrival, j.truth.ideal)
			}
		}
	}
	return nil
}

// tasksPerNode is how many workers a running job has on each of its nodes
// (in node order, empty nodes left out).
func tasksPerNode(r pipeline.Running) []int {
	var buf [64]int // a job's worker nodes, sorted; on the stack for most jobs
	nodes := buf[:0]
	for _, t := range r.Tasks {
		if t.Role == place.Worker {
			nodes = append(nodes, t.Node)
		}
	}
	slices.Sort(nodes)
	distinct := 0
	for i, n := range nodes {
		if i == 0 || n != nodes[i-1] {
			distinct++
		}
	}
	out := make([]int, 0, distinct)
	for i, n := range nodes {
		if i == 0 || n != nodes[i-1] {
			out = append(out, 0)
		}
		out[len(out)-1]++
	}
	return out
}
