package simulate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/solve"
)

// Switches that put back, one by one, how the paper's testbed experiment
// (Peng et al., EuroSys 2018, section 6) differs from the simulator's
// defaults, to measure what each is worth (benchmarks/paper-testbed.md).
// Their zero values are the defaults: nothing changes unless one is set.

// staticBaseline reports whether this run's policy is a baseline run
// statically (Config.BaselineRequest): DRF or Tetris with a request.
func (s *sim) staticBaseline() bool {
	p := s.cfg.Solve.Policy
	return s.cfg.BaselineRequest[1] > 0 && (p == solve.DRF || p == solve.Tetris)
}

// staticRequests turns a round's requests into those of a static
// scheduler: a running job asks for exactly what it runs (so it keeps it),
// a waiting one for Config.BaselineRequest (within its own limits), and
// the jobs are ordered running first (in arrival order), then the waiting
// ones in the baseline's order. Solve's fifo policy then gives each job its
// request in that order, all or nothing, skipping a job whose request does
// not fit (as a static cluster scheduler backfills): nothing is resized,
// preempted or moved.
//
// The baseline's order of the waiting jobs: DRF offers the free resources
// to the job of the smallest dominant share, and every waiting job's is 0
// (one job a user), so they go by arrival. Tetris takes the job of the
// highest score (1-a)·align/mean(align) + a·(1/T)/mean(1/T), a =
// Options.TetrisSRTFWeight, align = Σ_r (u^r/C^r)·(free^r/C^r) of the
// request's demand u against what the running jobs leave free, T the
// job's remaining time at its request (solve's Tetris, baselines.go, over
// whole requests instead of units, scored once a round).
func (s *sim) staticRequests(active []*jobRun, reqs []pipeline.Request) {
	wantPS, wantW := s.cfg.BaselineRequest[0], s.cfg.BaselineRequest[1]
	free := slices.Clone(s.capTotal)
	var waiting []int
	var running []int
	for i, j := range active {
		r := &reqs[i]
		if j.run.Workers > 0 {
			r.MaxPS, r.MaxWorkers = j.run.PS, j.run.Workers
			for k := range free {
				free[k] -= float64(j.run.PS)*j.job.PS[k] + float64(j.run.Workers)*j.job.Worker[k]
			}
			running = append(running, i)
			continue
		}
		r.MaxPS, r.MaxWorkers = limited(wantPS, j.job.MaxPS), limited(wantW, j.job.MaxWorkers)
		if j.job.Mode == fit.AllReduce {
			r.MaxPS = 0
		}
		waiting = append(waiting, i)
	}
	byArrival := func(a, b int) int {
		if x, y := active[a].job.Arrival, active[b].job.Arrival; x != y {
			if x < y {
				return -1
			}
			return 1
		}
		return a - b
	}
	slices.SortStableFunc(running, byArrival)
	slices.SortStableFunc(waiting, byArrival)
	if s.cfg.Solve.Policy == solve.Tetris && len(waiting) > 1 {
		s.tetrisOrder(active, reqs, waiting, free)
	}
	for rank, i := range append(running, waiting...) {
		reqs[i].Arrival = float64(rank)
	}
}

// limited is a request within a job's own limit (0: none).
func limited(want, limit int) int {
	if limit > 0 {
		return min(want, limit)
	}
	return want
}

// tetrisOrder sorts the waiting jobs by Tetris' score of their whole
// request, highest first (ties keep the arrival order).
func (s *sim) tetrisOrder(active []*jobRun, reqs []pipeline.Request, waiting []int, free []float64) {
	align, srtf := make([]float64, len(active)), make([]float64, len(active))
	var meanAlign, meanSRTF float64
	for _, i := range waiting {
		r := &reqs[i]
		for k, c := range s.capTotal {
			if c > 0 {
				u := float64(r.MaxWorkers)*r.Worker[k] + float64(r.MaxPS)*r.PS[k]
				align[i] += (u / c) * (math.Max(free[k], 0) / c)
			}
		}
		if r.SpeedMissing == "" && r.Remaining > 0 {
			if f := r.Speed.Speed(r.MaxPS, r.MaxWorkers); f > 0 && !math.IsInf(f, 0) {
				srtf[i] = f / r.Remaining
			}
		}
		meanAlign += align[i]
		meanSRTF += srtf[i]
	}
	a := s.cfg.Solve.TetrisSRTFWeight
	score := func(i int) float64 {
		v := 0.0
		if meanAlign > 0 {
			v += (1 - a) * align[i] / meanAlign
		}
		if meanSRTF > 0 {
			v += a * srtf[i] / meanSRTF
		}
		return v
	}
	slices.SortStableFunc(waiting, func(x, y int) int {
		switch sx, sy := score(x), score(y); {
		case sx > sy:
			return -1
		case sx < sy:
			return 1
		}
		return 0
	})
}

// allOrNothing takes back what place gave a job starting under a static
// baseline when it is less than the job's request: place runs a job with
// the tasks it could place (at least 1 PS and 1 worker) when the whole
// allocation does not fit node by node, and a static scheduler starts a
// job with all it asked for or not at all. The job waits for the next
// round.
func (s *sim) allOrNothing(active []*jobRun, reqs []pipeline.Request, pl *plan) {
	for i, j := range active {
		st, ok := pl.state[j.job.Name]
		if !ok || j.run.Workers > 0 || st.Workers == 0 {
			continue
		}
		if r := &reqs[i]; st.PS != r.MaxPS || st.Workers != r.MaxWorkers {
			delete(pl.state, j.job.Name)
			pl.status[i] = string(solve.Waiting)
			pl.reason[i] = fmt.Sprintf("%s (static): its request of %d PS + %d workers did not fit node by node (place found room for %d + %d)",
				s.cfg.Solve.Policy, r.MaxPS, r.MaxWorkers, st.PS, st.Workers)
		}
	}
}

// staticReason names the static baseline in a reason (solve's, then
// fifo's, or place's).
func (s *sim) staticReason(reason string) string {
	if rest, ok := strings.CutPrefix(reason, string(solve.FIFO)+": "); ok {
		reason = rest
	}
	return string(s.cfg.Solve.Policy) + " (static): " + reason
}

// arrivingAtOnce returns the input with every job arriving at 0 s
// (Config.ArriveAtOnce); the input itself is not changed.
func arrivingAtOnce(in *Input) *Input {
	out := *in
	out.Jobs = slices.Clone(in.Jobs)
	for i := range out.Jobs {
		out.Jobs[i].Arrival = 0
	}
	return &out
}
