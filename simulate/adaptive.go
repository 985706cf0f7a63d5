package simulate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/goodput"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
)

// AdaptiveProfile is what a job whose batch size changes with its
// allocation needs of its profile, as Pollux's simulator models such jobs
// (petuum/adaptdl osdi21-artifact, simulator.py Job and applications.py).
// Its progress is counted in steps of the initial batch: a step at batch M
// adds the statistical gain (σ² + |g|²) / (σ²/(M/M0) + |g|²) of the
// gradient statistics at M in the job's current epoch.
type AdaptiveProfile struct {
	// InitBatch is the smallest batch (M0); MaxBatch the largest a job may
	// choose; MinLocal and MaxLocal bound a GPU's micro-batch.
	InitBatch, MaxBatch, MinLocal, MaxLocal float64
	// Epochs is how many epochs a job trains.
	Epochs int
	// Progress is the progress at which a job completes its first epochs
	// epochs.
	Progress func(epochs int) float64
	// GradStats are the gradient's squared norm and variance in an epoch
	// (from 0) at a global batch.
	GradStats func(batch float64, epoch int) (sqr, variance float64)
	// Throughput is the step and synchronisation time of one step of a
	// micro-batch of atomic examples on each GPU of a placement (GPUs per
	// node).
	Throughput func(perNode []int, atomic float64) (step, sync float64)
	// FixedBatch, when > 0, is the batch every job of the profile trains
	// at whatever its allocation (Pollux's ncf: 32768).
	FixedBatch float64
	// MaxReplicas bounds a job's GPUs (Pollux: 64, and the largest batch
	// over the smallest micro-batch; ncf 1).
	MaxReplicas int
	// Profiled are every profiled configuration: the step-time model the
	// oracle plans with is fitted to them all.
	Profiled []goodput.Sample
}

// adaptiveRun is an adaptive job's state, as Pollux's simulator keeps it.
type adaptiveRun struct {
	prof          *AdaptiveProfile
	epoch         int
	atomic        float64
	accum         int
	perf          *goodput.PerfParams // nil: no configuration seen yet
	grad          goodput.GradParams
	samples       []goodput.Sample
	seen          map[[3]float64]bool
	maxSeenReps   int
	oracle        bool
	lastBatch     float64
	lastPlacement []int
}

// adaptive reports whether the run's policy adapts batch sizes and the
// job's profile lets it.
func (s *sim) adaptive(p *Profile) bool { return s.adaptsBatch && p.Adaptive != nil }

// newAdaptive sets up an adaptive job: its progress to completion, and with
// oracle knowledge the step-time model fitted to every profiled
// configuration (fitted: learnt from the configurations it runs, as
// Pollux's jobs do).
func (s *sim) newAdaptive(jr *jobRun, p *Profile) {
	a := &adaptiveRun{prof: p.Adaptive, seen: map[[3]float64]bool{}, oracle: s.cfg.Oracle}
	jr.ad = a
	jr.truth.total = a.prof.Progress(a.prof.Epochs)
	jr.truth.ideal = 0 // the fixed-batch ideal does not apply
	if s.cfg.Oracle {
		perf, ok := s.oraclePerf[jr.job.Model]
		if !ok {
			perf = goodput.Fit(a.prof.Profiled)
			s.oraclePerf[jr.job.Model] = perf
		}
		a.perf = &perf
		sqr, v := a.prof.GradStats(a.prof.InitBatch, 0)
		a.grad = goodput.GradParams{Sqr: sqr, Var: v}
	}
}

// function is the job's goodput function, nil before it has a model.
func (a *adaptiveRun) function() *goodput.Function {
	if a.perf == nil {
		return nil
	}
	return &goodput.Function{Perf: *a.perf, Grad: a.grad, InitBatch: a.prof.InitBatch}
}

func (a *adaptiveRun) limits() goodput.Limits {
	return goodput.Limits{MaxBatch: a.prof.MaxBatch, MinAtomic: a.prof.MinLocal, MaxAtomic: a.prof.MaxLocal, Accumulation: true}
}

// maxReplicas is the most GPUs the job may get: twice the most it has run
// on (at least 1) while it learns its model, as Pollux explores.
func (a *adaptiveRun) maxReplicas() int {
	m := a.prof.MaxReplicas
	if !a.oracle {
		m = min(m, max(2*a.maxSeenReps, 1))
	}
	return max(m, 1)
}

// setBatch picks the job's micro-batch and accumulation steps on perNode
// (Pollux's update_local_bsz): the goodput-optimal ones once it has a
// model, else the smallest batch the GPUs can run (or FixedBatch), split
// as a fixed-batch job's.
func (a *adaptiveRun) setBatch(perNode []int) {
	nodes, reps := 0, 0
	for _, c := range perNode {
		if c > 0 {
			nodes++
			reps += c
		}
	}
	if reps == 0 {
		a.atomic, a.accum = 0, 0
		return
	}
	batch := a.prof.FixedBatch
	if batch <= 0 && a.perf == nil {
		batch = math.Max(a.prof.InitBatch, a.prof.MinLocal*float64(reps))
	}
	if batch <= 0 {
		c := a.function().Optimize(nodes, reps, a.limits())
		a.atomic, a.accum = c.Atomic, c.Accum
	} else {
		local := math.Ceil(batch/float64(reps) - 1e-8)
		a.accum = int(math.Ceil(local/a.prof.MaxLocal-1e-8)) - 1
		if reps == 1 && batch > a.prof.InitBatch {
			a.accum = max(1, a.accum)
		}
		a.atomic = math.Ceil(local/float64(a.accum+1) - 1e-8)
	}
	count := float64(reps * (a.accum + 1))
	a.atomic = math.Min(a.atomic, math.Floor(a.prof.MaxBatch/count))
}

// observe records a configuration the job ran (Pollux's update_params):
// the gradient statistics always, and with fitted knowledge a new
// (nodes, replicas, micro-batch) refits the step-time model.
func (a *adaptiveRun) observe(nodes, reps int, step, sync, sqr, v float64) {
	a.grad = goodput.GradParams{Sqr: sqr, Var: v}
	if a.oracle {
		return
	}
	k := [3]float64{float64(nodes), float64(reps), a.atomic}
	if a.seen[k] {
		return
	}
	a.seen[k] = true
	a.maxSeenReps = max(a.maxSeenReps, reps)
	a.samples = append(a.samples, goodput.Sample{Nodes: nodes, Replicas: reps, Atomic: a.atomic, GradTime: step - sync, StepTime: step})
	perf := goodput.Fit(a.samples)
	a.perf = &perf
}

// advanceAdaptive trains an adaptive job from begin to end (Pollux's
// Job.step): at its batch's goodput, gain / step time, in progress units;
// at every epoch's end, the seconds to it rounded to whole seconds as
// Pollux's simulator has them, the next epoch's gradient statistics and a
// new batch choice. It returns whether the job finished, and when.
func (s *sim) advanceAdaptive(j *jobRun, begin, end float64) (done bool, finish float64) {
	a := j.ad
	perNode := tasksPerNode(j.run)
	nodes, reps := len(perNode), 0
	for _, c := range perNode {
		reps += c
	}
	now, seconds := begin, end-begin
	for seconds > 0 {
		batch := float64(reps) * a.atomic * float64(a.accum+1)
		scale := batch / a.prof.InitBatch
		step, sync := a.prof.Throughput(perNode, a.atomic)
		sqr, v := a.prof.GradStats(batch, a.epoch)
		gain := 1.0
		if d := v/scale + sqr; d > 0 {
			gain = (v + sqr) / d
		}
		a.observe(nodes, reps, step, sync, sqr, v)
		total := step + (step-sync)*float64(a.accum)
		rate := gain / total
		a.lastBatch = batch
		if !(rate > 0) {
			return false, 0
		}
		next := a.prof.Progress(a.epoch + 1)
		if j.progress+rate*seconds < next {
			j.progress += rate * seconds
			break
		}
		a.epoch++
		delta := math.Min(math.Round((next-j.progress)/rate), seconds)
		j.progress = next
		now += delta
		seconds -= delta
		if a.epoch >= a.prof.Epochs {
			j.progress = j.truth.total
			return true, now
		}
		a.setBatch(perNode)
	}
	return false, 0
}

// polluxSeeds is what a round of schedulePollux leaves the next: the jobs
// it planned, in its order, and the allocations of its final Pareto front.
type polluxSeeds struct {
	jobs  []string
	front [][]int
}

// schedulePollux plans a round with Pollux's allocation search
// (goodput.Allocate) over the jobs' goodput models, and places the jobs as
// it allocates them: replicas on the nodes it chose. The jobs go in the
// order of least attained service, then arrival (Pollux's priority in its
// repair); each job's speedup is against its goodput at its fair share
// (the cluster's GPUs over the jobs, on as few nodes), and an allocation
// that changes a job's costs it the share of its age its restarts would
// lose (Pollux: max(age - restarts·delay, 0) / (age + delay), the delay
// here --stop-cost + --restore-cost). The search is seeded by the run's
// seed and the round, and starts from the current allocation and the
// previous round's Pareto front.
func (s *sim) schedulePollux(active []*jobRun) (*plan, error) {
	n := len(active)
	pl := &plan{state: map[string]pipeline.Running{}, remaining: make([]float64, n), speed: make([]*fit.SpeedModel, n),
		status: make([]string, n), reason: make([]string, n)}
	order := make([]int, n)
	for i := range order {
		order[i] = i
		pl.remaining[i] = math.NaN()
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(active[a].attained, active[b].attained), cmp.Compare(active[a].job.Arrival, active[b].job.Arrival))
	})
	c := s.in.Cluster
	nn := len(c.Nodes)
	delay := s.cfg.StopCost + s.cfg.RestoreCost
	prob := &goodput.AllocProblem{Capacity: c.Capacity, Seed1: s.cfg.Seed, Seed2: uint64(s.res.Rounds) + 1,
		Generations: s.cfg.PolluxGenerations, NoAvoidance: s.cfg.PolluxNoAvoidance}
	names := make([]string, n)
	for k, i := range order {
		j := active[i]
		a := j.ad
		if a == nil {
			return nil, fmt.Errorf("job %q: the pollux policy needs a profile that lets its batch size adapt (--pollux)", j.job.Name)
		}
		names[k] = j.job.Name
		d := 0.0
		for r, x := range j.job.Worker {
			if s.capTotal[r] > 0 {
				d = math.Max(d, x/s.capTotal[r])
			}
		}
		fairReps, fairNodes := 1, 1
		if d > 0 {
			fairReps = max(1, int(math.Ceil(1/d/float64(n))))
			fairNodes = max(1, int(math.Ceil(float64(nn)*d)))
		}
		sp := goodput.NewSpeedup(a.function(), a.limits(), fairNodes, fairReps)
		cur := make([]int, nn)
		for _, t := range j.run.Tasks {
			if t.Role == place.Worker && t.Node >= 0 && t.Node < nn {
				cur[t.Node]++
			}
		}
		age := s.roundAt - j.job.Arrival
		factor := 1.0
		if age+delay > 0 && !s.cfg.PolluxNoRestartPenalty {
			factor = math.Max(age-float64(j.restarts)*delay, 0) / (age + delay)
		}
		prob.Jobs = append(prob.Jobs, goodput.AllocJob{Speedup: sp.At, Demand: j.job.Worker, MaxReplicas: a.maxReplicas(),
			Current: cur, RestartFactor: factor})
	}
	if prev := s.polluxPrev; prev != nil {
		at := make(map[string]int, len(prev.jobs))
		for k, name := range prev.jobs {
			at[name] = k
		}
		for _, x := range prev.front {
			seed := make([]int, n*nn)
			for k, name := range names {
				if pk, ok := at[name]; ok {
					copy(seed[k*nn:(k+1)*nn], x[pk*nn:(pk+1)*nn])
				}
			}
			prob.Seeds = append(prob.Seeds, seed)
		}
		// Pollux starts from the previous front alone once it has one; the
		// current allocation comes back through mutation.
	}
	res := goodput.Allocate(prob)
	s.polluxPrev = &polluxSeeds{jobs: names, front: res.Front}
	for k, i := range order {
		row := res.Best[k*nn : (k+1)*nn]
		var r pipeline.Running
		nodes := 0
		for node, cnt := range row {
			if cnt > 0 {
				nodes++
			}
			for range cnt {
				r.Tasks = append(r.Tasks, place.Task{Role: place.Worker, Index: r.Workers, Node: node})
				r.Workers++
			}
		}
		if r.Workers == 0 {
			pl.status[i], pl.reason[i] = string(place.Waiting), "pollux: no GPU in the allocation of the best fair goodput"
			continue
		}
		pl.state[active[i].job.Name] = r
		pl.status[i] = string(place.Running)
		pl.reason[i] = fmt.Sprintf("pollux: %d GPUs on %d nodes", r.Workers, nodes)
	}
	return pl, nil
}
