package solve

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/optimus-sched/optimus/layout"
)

// candidate is one task a job could get next: a worker or a PS, with its
// marginal gain (the baselines' queue, rankedQueue, also holds them).
type candidate struct {
	job, role int
	gain      float64
	rank      int // arrival rank of the job, the tie-breaker
	index     int // position in the heap
}

// gain is the marginal gain of giving job j one more task of the role at
// (p, w) (paper section 4.1): the weighted reduction of its remaining time
// per unit of the task's dominant share,
//
//	W_j·(T_j(p, w) - T_j(p', w')) / max_r(d^r / C^r)
//
// where (p', w') is (p+1, w) for a PS and (p, w+1) for a worker. Dividing by
// the dominant share makes a cheap task that saves a little comparable with
// a costly task that saves a lot. Negative when the task would slow the job
// down (more PS or workers also add overhead). now is T_j(p, w); gain also
// returns T_j(p', w'), which the greedy keeps: after the job gets the task it
// is the job's remaining time, so every T is computed once.
func (in *instance) gain(j, role, p, w int, now float64) (gain, after float64) {
	p2, w2 := p, w
	if role == ps {
		p2++
	} else {
		w2++
	}
	after = in.T(j, p2, w2)
	return in.p.Jobs[j].Weight * (now - after) / in.share[j][role], after
}

// roleState records, per job and role, why the greedy stopped giving it
// tasks of that role.
type roleState struct {
	atLimit  bool
	noFit    bool    // its best task did not fit
	noFitAt  float64 // the gain of that task
	misfit   int     // why it did not fit (misfitTotal, misfitNodes)
	lastGain float64 // gain of the last task of this role it got (NaN: none)
	endGain  float64 // gain of one more task when the greedy stopped (NaN: n/a)
}

// greedy is the paper's allocation heuristic (section 4.1):
//
//  1. In arrival order, every job gets 1 PS and 1 worker if they fit in what
//     is left; a job for which they do not fit waits.
//  2. A priority queue holds, for every running job, its next PS and its
//     next worker with their marginal gains (see gain). The best candidate
//     is taken if it fits; if it does not fit it is dropped and the next is
//     tried (the paper's code stops at the first that does not fit: capacity
//     only shrinks, so a dropped candidate never fits later, and going on
//     can only use the cluster better). After a job gets a task both of its
//     candidates are re-evaluated.
//  3. It stops when the best remaining gain is not positive or no candidate
//     is left.
//
// Jobs in pinned keep their current allocation (the stability rule, see
// Solve): they are allocated first, in arrival order, and get no more.
// A pinned job whose current allocation no longer fits is planned like the
// others.
//
// A task fits when it fits in the cluster's totals and, with NodeCapacity
// (the default, a deviation from the paper), on some node of the plan's
// incremental placement (nodes.go); "cluster full" and "no node has room"
// in the reasons tell the two apart. Capacity only shrinks and the
// placement only grows, so a dropped candidate is not tried again.
//
// Each step costs O(log n) for n jobs, so the whole greedy costs
// O((n + tasks)·log n) speed-model evaluations and heap moves, plus, with
// NodeCapacity, O(log m) per task on m nodes for its placement.
func (in *instance) greedy(pinned []bool) *plan {
	pl := in.newPlan()
	nj := len(in.p.Jobs)
	states := make([][2]roleState, nj)
	for j := range states {
		for role := range 2 {
			states[j][role] = roleState{lastGain: math.NaN(), endGain: math.NaN()}
		}
	}
	pl.limits, pl.byLimits = states, make([]bool, nj)
	if pinned != nil {
		for _, j := range in.order {
			job := &in.p.Jobs[j]
			if !pinned[j] || in.pre[j] != "" {
				continue
			}
			if in.tryAdd(pl, j, job.CurWorkers, job.CurPS) == fitted {
				pl.status[j], pl.kept[j] = Running, true
			}
		}
	}
	for _, j := range in.order {
		if in.pre[j] != "" || pl.kept[j] {
			continue
		}
		first := in.minPS[j]
		if misfit := in.tryAdd(pl, j, 1, first); misfit == fitted {
			pl.status[j] = Running
		} else {
			pl.status[j] = Waiting
			pl.reason[j] = full(misfit) + ": " + unitName(1, first) + " did not fit in what the jobs before it (in arrival order) left"
		}
	}

	// step[k] is the state of the job of rank k (stepJob), hot[k] its
	// constants (hotJob).
	hot := in.hotJobs()
	q := newGainQueue(nj)
	step := make([]stepJob, nj)
	for k, j := range in.order {
		if pl.status[j] != Running || pl.kept[j] {
			continue
		}
		h, st := &hot[k], &step[k]
		now := h.T(pl.ps[j], pl.wk[j])
		st.lastGain = [2]float64{math.NaN(), math.NaN()}
		st.ps, st.wk = int32(pl.ps[j]), int32(pl.wk[j])
		if pl.pack != nil {
			st.last = pl.pack.last[j]
		}
		for role := range 2 {
			if in.atLimit(pl, j, role) {
				states[j][role].atLimit = true
				continue
			}
			st.next[role], st.after[role] = h.gain(role, pl.ps[j], pl.wk[j], now)
			st.flags |= 1 << role
		}
		if c, ok := st.bestTask(k); ok {
			q.push(c)
		}
	}
	for q.ready() && q.items[0].gain > 0 {
		c := q.items[0]
		k, role := int(c.key>>1), int(c.key&1)
		if n := q.next(); n >= 0 {
			// The job of the next step, unless this one stays the best.
			prefetch(unsafe.Pointer(&hot[n]))
			prefetch(unsafe.Pointer(&hot[n].dem))
			prefetch(unsafe.Pointer(&step[n]))
		}
		h, st := &hot[k], &step[k]
		// The step record's first read, here, overlaps its cache miss
		// with the hot record's (nothing below changes the flags).
		j, flags := int(h.j), st.flags
		dw, dp := in.demByID(h.dem[worker]), in.demByID(h.dem[ps])
		nw, np, d := 1, 0, dw
		if role == ps {
			nw, np, d = 0, 1, dp
		}
		// The gains of the job's next tasks should this one fit are
		// computed before the fit check, whose first read, the free
		// capacity of the job's last node (prefetched here), is a cache
		// miss at a million tasks: the two overlap.
		if pl.pack != nil && st.last >= 0 {
			prefetch(unsafe.Pointer(&pl.pack.free[int(st.last)*in.nr]))
		}
		p, w := int(st.ps)+np, int(st.wk)+nw
		now := st.after[role] // the job's remaining time with the task
		var next, after [2]float64
		for r := range 2 {
			if flags&(1<<r) != 0 && !(r == ps && p >= int(h.limit[ps]) || r == worker && w >= int(h.limit[worker])) {
				next[r], after[r] = h.gain(r, p, w, now)
			}
		}
		// in.tryAdd, with the allocation in step: repack, which reads
		// the plan's, gets it written out first.
		misfit := fitted
		if !in.fitsDemands(pl, dw, dp, nw, np) {
			misfit = misfitTotal
		} else if pl.pack != nil {
			if i := pl.pack.addTask(j, role, int(h.dem[role]), d, int(st.last)); i >= 0 {
				st.last = int32(i)
			} else if pl.pack.repackFails(j, nw, np) {
				misfit = misfitNodes
			} else {
				in.writeAllocation(pl, step)
				if pl.pack.repack(in, pl, j, nw, np) {
					in.readLast(pl, step) // every task moved
				} else {
					misfit = misfitNodes
				}
			}
		}
		if misfit != fitted {
			if in.stopAtFirstMisfit {
				break
			}
			st.flags = flags &^ (1 << role)
			states[j][role].noFit, states[j][role].noFitAt, states[j][role].misfit = true, c.gain, misfit
			q.serve(st, k)
			continue
		}
		for r := range pl.used {
			pl.used[r] += float64(nw)*dw[r] + float64(np)*dp[r]
		}
		st.wk, st.ps = int32(w), int32(p)
		st.lastGain[role] = c.gain
		st.flags = flags&^(servedWorker|servedPS) | servedWorker<<role
		for r := range 2 {
			if !st.queued(r) {
				continue
			}
			if r == ps && p >= int(h.limit[ps]) || r == worker && w >= int(h.limit[worker]) {
				st.flags = st.flags&^(1<<r) | limitWorker<<r
				continue
			}
			st.next[r], st.after[r] = next[r], after[r]
		}
		q.serve(st, k)
	}
	in.writeAllocation(pl, step)
	for k, j := range in.order {
		if pl.status[j] != Running || pl.kept[j] {
			continue
		}
		st := &step[k]
		switch {
		case st.flags&servedWorker != 0:
			pl.gain[j] = st.lastGain[worker]
		case st.flags&servedPS != 0:
			pl.gain[j] = st.lastGain[ps]
		}
		for role := range 2 {
			states[j][role].lastGain = st.lastGain[role]
			if st.flags&(limitWorker<<role) != 0 {
				states[j][role].atLimit = true
			}
			if st.queued(role) {
				states[j][role].endGain = st.next[role]
			}
		}
	}
	for j := range nj {
		if pl.status[j] != Running || pl.kept[j] {
			continue
		}
		pl.next[j] = math.NaN()
		for role := range 2 {
			s := states[j][role]
			g := s.endGain
			if s.noFit {
				g = s.noFitAt
			}
			if !math.IsNaN(g) && (math.IsNaN(pl.next[j]) || g > pl.next[j]) {
				pl.next[j] = g
			}
		}
		pl.byLimits[j] = true // explained by limitReason, when the plan is chosen
	}
	return pl
}

func (in *instance) atLimit(pl *plan, j, role int) bool {
	if role == ps {
		return pl.ps[j] >= in.limit[j][ps]
	}
	return pl.wk[j] >= in.limit[j][worker]
}

// limitReason explains, per role, why the greedy gave a job no more tasks.
func limitReason(s [2]roleState) string {
	// Built by appending (the chosen plan has one per running job): the
	// same text as fmt's %.4g gives (gainText).
	b := make([]byte, 0, 128)
	for role, name := range [2]string{"workers", "PS"} {
		if role > 0 {
			b = append(b, "; "...)
		}
		st := s[role]
		b = append(b, name...)
		switch {
		case st.atLimit:
			b = append(b, ": at the job's maximum"...)
		case st.noFit:
			b = append(append(append(b, ": "...), full(st.misfit)...), " (one more would gain "...)
			b = append(appendGain(b, st.noFitAt), ')')
		default:
			b = append(b, ": one more would not speed the job up"...)
		}
	}
	return string(b)
}

// appendGain appends x as fmt's %.4g writes it.
func appendGain(b []byte, x float64) []byte {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Appendf(b, "%.4g", x)
	}
	return strconv.AppendFloat(b, x, 'g', 4, 64)
}

// stableGreedy applies the stability rule of Solve around greedy: the
// plans fromScratch, growNoPay, noPay and all of its documentation.
func (in *instance) stableGreedy(restartCost float64) *plan {
	if restartCost <= 0 {
		fromScratch := in.greedy(nil)
		in.chargeRestarts(fromScratch, restartCost)
		return fromScratch
	}
	nj := len(in.p.Jobs)
	// The plan that keeps every running job does not depend on the plan
	// from scratch: on a large problem both are computed at the same time
	// (greedy only reads the instance), and the first is dropped when
	// nothing would change; on a small one it is computed only when it is
	// needed, after the plan from scratch.
	var all []bool
	for j := range nj {
		if in.pinnable(j) {
			if all == nil {
				all = make([]bool, nj)
			}
			all[j] = true
		}
	}
	var keepAll, fromScratch *plan
	var wgAll, wgScratch sync.WaitGroup
	keepAllFirst := all != nil && in.parallel()
	if keepAllFirst {
		wgAll.Go(func() {
			keepAll = in.greedy(all)
			in.chargeRestarts(keepAll, restartCost)
		})
	}
	in.spawn(&wgScratch, func() {
		fromScratch = in.greedy(nil)
		in.chargeRestarts(fromScratch, restartCost)
	})
	// The other candidates depend on the plan from scratch. When capacity
	// is unlikely to bind, that plan is predicted (grownAlone) and the
	// candidates of the prediction are computed beside it; each is used
	// only if the plan from scratch gives the same pins, so the choice is
	// the same as without the guess.
	var guessed [][]bool
	var guessedPlans []*plan
	var wgGuess sync.WaitGroup
	if all != nil && !in.noGuess && in.parallel() {
		if psAlone, wkAlone, ok := in.grownAlone(all); ok {
			guessed, _ = in.pinSets(all, restartCost, psAlone, wkAlone, nil)
			guessedPlans = make([]*plan, len(guessed))
			for k, pin := range guessed {
				in.spawn(&wgGuess, func() {
					guessedPlans[k] = in.greedy(pin)
					in.chargeRestarts(guessedPlans[k], restartCost)
				})
			}
		}
	}
	wgScratch.Wait()
	wgAll.Wait()
	running := make([]bool, nj)
	for j := range nj {
		running[j] = fromScratch.status[j] == Running
	}
	pins, anyChange := in.pinSets(all, restartCost, fromScratch.ps, fromScratch.wk, running)
	wgGuess.Wait()
	if !anyChange {
		return fromScratch
	}
	if !keepAllFirst {
		keepAll = in.greedy(all)
		in.chargeRestarts(keepAll, restartCost)
	}
	// Candidates from the most stable to the least; ties keep the first.
	// greedy only reads the instance, so on a large problem the candidates
	// are computed at the same time (spawn); the choice below does not
	// depend on which ends first.
	plans := []*plan{keepAll}
	more := make([]*plan, len(pins))
	var wg sync.WaitGroup
	for k, pin := range pins {
		if g := slices.IndexFunc(guessed, func(x []bool) bool { return slices.Equal(x, pin) }); g >= 0 {
			more[k], in.guessUsed = guessedPlans[g], true
			continue
		}
		in.spawn(&wg, func() {
			more[k] = in.greedy(pin)
			in.chargeRestarts(more[k], restartCost)
		})
	}
	wg.Wait()
	plans = append(append(plans, more...), fromScratch)
	best := plans[0]
	bw, bo := in.objective(best)
	for _, pl := range plans[1:] {
		w, o := in.objective(pl)
		if w < bw-1e-12*math.Max(1, bw) || math.Abs(w-bw) <= 1e-12*math.Max(1, bw) && o < bo-1e-12*math.Max(1, math.Abs(bo)) {
			best, bw, bo = pl, w, o
		}
	}
	_, freeObjective := in.objective(fromScratch)
	for j := range nj {
		job := &in.p.Jobs[j]
		if !best.kept[j] {
			continue
		}
		if fromScratch.status[j] == Running && fromScratch.ps[j] == job.CurPS && fromScratch.wk[j] == job.CurWorkers {
			// The plan from scratch gives it the same: explain it as that plan does.
			best.reason[j], best.gain[j], best.next[j] = fromScratch.reason[j], fromScratch.gain[j], fromScratch.next[j]
			best.byLimits[j], best.limits[j] = fromScratch.byLimits[j], fromScratch.limits[j]
			continue
		}
		alt := "wait"
		if fromScratch.status[j] == Running {
			alt = fmt.Sprintf("%d PS + %d workers", fromScratch.ps[j], fromScratch.wk[j])
		}
		saves := in.T(j, job.CurPS, job.CurWorkers) - in.T(j, fromScratch.ps[j], fromScratch.wk[j])
		if fromScratch.status[j] == Running && saves <= restartCost {
			best.reason[j] = fmt.Sprintf("kept %d PS + %d workers: changing to %s would save the job %.0f s, not more than the %.0f s restart cost",
				job.CurPS, job.CurWorkers, alt, saves, restartCost)
		} else {
			best.reason[j] = fmt.Sprintf("kept %d PS + %d workers: the plan that changes it to %s is no better once restarts are counted (objective %.6g s against %.6g s)",
				job.CurPS, job.CurWorkers, alt, freeObjective, bo)
		}
	}
	return best
}

// parallelMin is the size of a problem (jobs plus nodes) from which the
// stability rule's candidate plans are computed at the same time: below
// it a plan costs less than starting a goroutine and handing the plan
// over.
const parallelMin = 256

func (in *instance) parallel() bool {
	return in.concurrent || len(in.p.Jobs)+len(in.p.Nodes) >= parallelMin
}

// spawn runs f in a goroutine of wg when the problem is large enough for
// that to pay (parallel), else now.
func (in *instance) spawn(wg *sync.WaitGroup, f func()) {
	if in.parallel() {
		wg.Go(f)
		return
	}
	f()
}

// pinSets derives, from a plan from scratch's allocation (ps, wk; running[j]
// whether job j runs in it, nil: every plannable job runs), the stability
// rule's pin sets growNoPay and noPay of Solve for the pinnable jobs of all,
// leaving out an empty set and one met before (which would give the same
// plan, and could not win over the one before it): noPay first, then
// growNoPay. anyChange reports whether the plan changes some pinnable job.
func (in *instance) pinSets(all []bool, restartCost float64, ps, wk []int, running []bool) (pins [][]bool, anyChange bool) {
	nj := len(in.p.Jobs)
	var growNoPay, noPay []bool
	for j := range nj {
		job := &in.p.Jobs[j]
		if all == nil || !all[j] {
			continue
		}
		if growNoPay == nil {
			growNoPay, noPay = make([]bool, nj), make([]bool, nj)
		}
		runs := running == nil || running[j]
		if runs && ps[j] == job.CurPS && wk[j] == job.CurWorkers {
			continue
		}
		anyChange = true
		saves := in.T(j, job.CurPS, job.CurWorkers) - in.T(j, ps[j], wk[j])
		if saves <= restartCost {
			noPay[j] = true
			if ps[j] >= job.CurPS && wk[j] >= job.CurWorkers {
				growNoPay[j] = true
			}
		}
	}
	for _, pin := range [][]bool{noPay, growNoPay} {
		if anyTrue(pin) && !slices.Equal(pin, all) && (len(pins) == 0 || !slices.Equal(pin, pins[0])) {
			pins = append(pins, pin)
		}
	}
	return pins, anyChange
}

// grownAlone predicts the greedy's plan from scratch, for the jobs of
// pinned, for when capacity does not bind: every plannable job then grows
// on its own, from its first task, one task at a time, the one of the
// larger gain (the worker on a tie, as in the queue), while that gain is
// positive and the job is under its limits, whatever the others get. ok
// is false when those allocations together may exceed the cluster's total
// of some resource (the prediction is then unlikely to hold; a job not in
// pinned that has both limits counts with them, which is quicker and at
// least as much) or a job would grow beyond layout.MaxJobTasks; the search
// stops there.
func (in *instance) grownAlone(pinned []bool) (psAlone, wkAlone []int, ok bool) {
	nj := len(in.p.Jobs)
	psAlone, wkAlone = make([]int, nj), make([]int, nj)
	used := make([]float64, len(in.capacity))
	for j := range nj {
		if in.pre[j] != "" {
			continue
		}
		dw, dp := in.demand[j][worker], in.demand[j][ps]
		if lw, lp := in.limit[j][worker], in.limit[j][ps]; !pinned[j] && lw <= layout.MaxJobTasks && lp <= layout.MaxJobTasks {
			for r, c := range in.capacity {
				if used[r] += float64(lw)*dw[r] + float64(lp)*dp[r]; used[r] > c+in.eps[r] {
					return nil, nil, false
				}
			}
			continue
		}
		p, w := in.minPS[j], 1
		now := in.T(j, p, w)
		for {
			for r, c := range in.capacity {
				if used[r]+float64(w)*dw[r]+float64(p)*dp[r] > c+in.eps[r] {
					return nil, nil, false
				}
			}
			role, best, after := -1, 0.0, 0.0
			for r := range 2 {
				if r == ps && p >= in.limit[j][ps] || r == worker && w >= in.limit[j][worker] {
					continue
				}
				if g, a := in.gain(j, r, p, w, now); role < 0 || g > best {
					role, best, after = r, g, a
				}
			}
			if role < 0 || !(best > 0) {
				break
			}
			if role == ps {
				p++
			} else {
				w++
			}
			now = after
			if p > layout.MaxJobTasks || w > layout.MaxJobTasks {
				return nil, nil, false
			}
		}
		psAlone[j], wkAlone[j] = p, w
		for r := range in.capacity {
			used[r] += float64(w)*dw[r] + float64(p)*dp[r]
		}
		for r, c := range in.capacity {
			if used[r] > c+in.eps[r] {
				return nil, nil, false
			}
		}
	}
	return psAlone, wkAlone, true
}

// pinnable reports whether job j runs now with an allocation the stability
// rule may keep: it is plannable and within its limits.
func (in *instance) pinnable(j int) bool {
	job := &in.p.Jobs[j]
	return in.pre[j] == "" && job.running() &&
		job.CurPS <= in.limit[j][ps] && job.CurWorkers <= in.limit[j][worker]
}

// chargeRestarts sets the plan's weighted restart cost: every job running
// now whose allocation changes (or which is stopped) pays restartCost.
func (in *instance) chargeRestarts(pl *plan, restartCost float64) {
	pl.restartCost = 0
	for j := range in.p.Jobs {
		job := &in.p.Jobs[j]
		if in.pre[j] != "" || !job.running() {
			continue
		}
		if pl.status[j] != Running || pl.ps[j] != job.CurPS || pl.wk[j] != job.CurWorkers {
			pl.restartCost += job.Weight * restartCost
		}
	}
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}
