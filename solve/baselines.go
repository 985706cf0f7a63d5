package solve

import (
	"container/heap"
	"fmt"
	"math"
)

// The baselines of the paper's evaluation (section 6.1). Neither DRF nor
// Tetris knows a job's speed model: like the paper's (and its authors'
// simulator's) versions they grow a job by units of one PS and one worker
// (a 1:1 ratio), or by the single task its limits still allow, until the job
// reaches its maximum (max_ps, max_workers; Options.BaselineCap for a role
// without a limit) or its next unit does not fit. They ignore the restart
// cost: they re-decide from scratch, as the paper's baselines do.
//
// "Fits" is the same check as the optimus policy's (Options.Capacity): with
// NodeCapacity a unit (DRF, Tetris) or a request (FIFO) fits when all its
// tasks find room on the nodes of the plan's incremental placement, so the
// baselines' allocations pack too and compare with optimus on equal terms.
// Tetris's alignment score still uses the cluster's free totals.

// baselineCapKnob is Options.BaselineCap, read by DRF and Tetris.
var baselineCapKnob = &Knob{
	Flag:  "baseline-cap",
	Usage: "most PS and most workers (`N` each) for a job without max_ps/max_workers",
	Value: func(o *Options) FlagValue { return intFlag{&o.BaselineCap} },
	Check: func(o *Options) string {
		if o.BaselineCap < 1 {
			return "give at least 1"
		}
		return ""
	},
}

// unit is the next unit the baselines give job j: 1 worker and 1 PS while
// both are under the job's limits, else the one task it may still get; ok
// is false when the job is at both limits.
func (in *instance) unit(pl *plan, j int) (nw, np int, ok bool) {
	if pl.wk[j] < min(in.limit[j][worker], in.cap(j, worker)) {
		nw = 1
	}
	if pl.ps[j] < min(in.limit[j][ps], in.cap(j, ps)) {
		np = 1
	}
	if first := in.p.Jobs[j].minPS(); pl.wk[j] == 0 || pl.ps[j] < first {
		return 1, first, true // a job starts with 1 PS and 1 worker (all-reduce: 1 worker)
	}
	return nw, np, nw+np > 0
}

// cap is the baselines' bound on a role of job j: its own limit, or the
// baseline cap when it has none.
func (in *instance) cap(j, role int) int {
	if in.limit[j][role] == math.MaxInt {
		return in.baselineCap
	}
	return in.limit[j][role]
}

// rankedQueue is a max-heap of jobs by a score; ties go to the earlier
// arrival.
type rankedQueue []*candidate

func (q rankedQueue) Len() int { return len(q) }
func (q rankedQueue) Less(a, b int) bool {
	if q[a].gain != q[b].gain {
		return q[a].gain > q[b].gain
	}
	return q[a].rank < q[b].rank
}
func (q rankedQueue) Swap(a, b int) {
	q[a], q[b] = q[b], q[a]
	q[a].index, q[b].index = a, b
}
func (q *rankedQueue) Push(x any) {
	c := x.(*candidate)
	c.index = len(*q)
	*q = append(*q, c)
}
func (q *rankedQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return c
}

// jobShare is job j's weighted dominant share in the plan:
// max_r (w·O^r + p·N^r) / C^r, divided by the job's weight.
func (in *instance) jobShare(pl *plan, j int) float64 {
	job := &in.p.Jobs[j]
	s := 0.0
	for r, c := range in.capacity {
		if c > 0 {
			s = math.Max(s, (float64(pl.wk[j])*job.Worker[r]+float64(pl.ps[j])*job.PS[r])/c)
		}
	}
	return s / job.Weight
}

// drf is dominant resource fairness by progressive filling (Ghodsi et al.,
// NSDI 2011): the job with the smallest weighted dominant share gets its next
// unit; a job whose next unit does not fit, or that is at its limits, leaves
// the queue. O((n + units)·log n).
func (in *instance) drf() *plan {
	pl := in.newPlan()
	// A job's share changes only when it gets a unit, so its score is
	// never stale when it comes to the top.
	in.fill(pl, "drf", func(j, _, _ int) float64 { return -in.jobShare(pl, j) })
	return pl
}

// fill is the baselines' progressive filling: the plannable jobs in a queue
// by score (highest first, ties to the earlier arrival); the job on top
// gets its next unit if it fits, else it leaves the queue, as it does at
// its limits. A score may only fall while a job waits in the queue: the
// queue is evaluated lazily (a job's score is recomputed when it comes to
// the top and the unit taken only if it still beats the next job), which
// gives the same plan as re-scoring every job after every unit.
func (in *instance) fill(pl *plan, policy string, score func(j, nw, np int) float64) {
	q := rankedQueue{}
	for _, j := range in.order {
		if in.pre[j] == "" {
			heap.Push(&q, &candidate{job: j, rank: in.rank[j], gain: score(j, 1, in.p.Jobs[j].minPS())})
		}
	}
	for q.Len() > 0 {
		c := q[0]
		j := c.job
		nw, np, ok := in.unit(pl, j)
		if !ok {
			heap.Pop(&q)
			pl.reason[j] = policy + ": at the job's maximum"
			continue
		}
		if s := score(j, nw, np); s != c.gain {
			c.gain = s
			heap.Fix(&q, c.index)
			if q[0] != c {
				continue
			}
		}
		if misfit := in.tryAdd(pl, j, nw, np); misfit != fitted {
			heap.Pop(&q)
			pl.reason[j] = fmt.Sprintf("%s: %s: its next %s did not fit", policy, full(misfit), unitName(nw, np))
			continue
		}
		pl.status[j] = Running
		if nw, np, ok := in.unit(pl, j); ok {
			c.gain = score(j, nw, np)
		}
		heap.Fix(&q, c.index)
	}
	in.finishBaseline(pl)
}

func unitName(nw, np int) string {
	switch {
	case nw > 0 && np > 0:
		return "1 PS + 1 worker"
	case np > 0:
		return "PS"
	}
	return "worker"
}

// tetris scores every job's next unit by how well its demand vector aligns
// with the free resources (the dot product Σ_r (u^r/C^r)·(free^r/C^r),
// Grandl et al., SIGCOMM 2014, section 3.2) and by how short the job's
// remaining time T_j would be with it (1/T_j, the shortest-remaining-time
// bias of section 3.3). Each term is divided by its mean over the jobs at the
// start so that both count alike; srtfWeight mixes them:
//
//	score_j = (1 - srtfWeight)·align_j/mean(align) + srtfWeight·(1/T_j)/mean(1/T)
//
// The best-scoring unit is taken if it fits, else its job leaves the queue
// (fill). The free resources only shrink, so a job's score only falls until
// it gets a unit, as fill's lazy queue requires.
func (in *instance) tetris(srtfWeight float64) *plan {
	pl := in.newPlan()
	var jobs []int
	for _, j := range in.order {
		if in.pre[j] == "" {
			jobs = append(jobs, j)
		}
	}
	align := func(j, nw, np int) float64 {
		s := 0.0
		for r, c := range in.capacity {
			if c > 0 {
				u := float64(nw)*in.demand[j][worker][r] + float64(np)*in.demand[j][ps][r]
				s += (u / c) * ((c - pl.used[r]) / c)
			}
		}
		return s
	}
	srtf := func(j, nw, np int) float64 {
		return 1 / in.T(j, pl.ps[j]+np, pl.wk[j]+nw)
	}
	meanAlign, meanSRTF := 0.0, 0.0
	for _, j := range jobs {
		meanAlign += align(j, 1, in.p.Jobs[j].minPS())
		meanSRTF += srtf(j, 1, in.p.Jobs[j].minPS())
	}
	if n := float64(len(jobs)); n > 0 {
		meanAlign, meanSRTF = meanAlign/n, meanSRTF/n
	}
	score := func(j, nw, np int) float64 {
		s := 0.0
		if meanAlign > 0 {
			s += (1 - srtfWeight) * align(j, nw, np) / meanAlign
		}
		if meanSRTF > 0 {
			s += srtfWeight * srtf(j, nw, np) / meanSRTF
		}
		return s
	}
	in.fill(pl, "tetris", score)
	return pl
}

// fifo gives each job, in arrival order, what it requested: max_ps and
// max_workers when set, else what it runs with now, else 1. A job whose
// request does not fit in what is left waits, and the next is tried.
func (in *instance) fifo() *plan {
	pl := in.newPlan()
	for _, j := range in.order {
		if in.pre[j] != "" {
			continue
		}
		job := &in.p.Jobs[j]
		np, nw := request(job.MaxPS, job.CurPS), request(job.MaxWorkers, job.CurWorkers)
		if job.allReduce() {
			np = 0
		}
		if misfit := in.tryAdd(pl, j, nw, np); misfit == fitted {
			pl.status[j] = Running
			pl.reason[j] = "fifo: got its request"
		} else {
			pl.status[j] = Waiting
			pl.reason[j] = fmt.Sprintf("fifo: %s: its request of %d PS + %d workers did not fit in what the jobs before it left", full(misfit), np, nw)
		}
	}
	return pl
}

func request(max, cur int) int {
	switch {
	case max > 0:
		return max
	case cur > 0:
		return cur
	}
	return 1
}

// finishBaseline marks the plannable jobs that got nothing as waiting.
func (in *instance) finishBaseline(pl *plan) {
	for j := range in.p.Jobs {
		if in.pre[j] == "" && pl.status[j] != Running {
			pl.status[j] = Waiting
			if pl.reason[j] == "" {
				pl.reason[j] = "cluster full"
			}
		}
	}
}
