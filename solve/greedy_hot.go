package solve

import (
	"math"

	"github.com/optimus-sched/optimus/fit"
)

// hotJob is what the greedy's loop reads of a job at every step, by
// arrival rank: the job is picked by gain, anywhere in the problem, and at
// a million tasks the instance's per-job arrays (one cache miss each) are
// far beyond the caches; side by side in 128 bytes they are two lines.
type hotJob struct {
	speed             fit.SpeedModel
	remaining, weight float64
	share             [2]float64
	j, minPS          int32
	limit             [2]int32 // in.limit, at most math.MaxInt32
	// dem[role] numbers the task's demand vector (in.byID): the distinct
	// vectors are usually few, and stay in the caches.
	dem [2]int32
}

// hotJobs builds (once per instance: the greedy only reads it, and runs
// after the policies set the weights and the order) the jobs' hotJob by
// rank.
func (in *instance) hotJobs() []hotJob {
	in.hotOnce.Do(func() {
		var ids [][2]int
		if in.packer != nil {
			ids = in.packer.demandID // the same numbering
		} else {
			ids, _ = in.demandIDs()
		}
		n := 0
		for _, id := range ids {
			n = max(n, id[0]+1, id[1]+1)
		}
		in.byID = make([]float64, n*in.nr)
		for j, id := range ids {
			for role := range 2 {
				copy(in.byID[id[role]*in.nr:], in.demand[j][role])
			}
		}
		in.hot = make([]hotJob, len(in.order))
		for k, j := range in.order {
			h := &in.hot[k]
			h.speed, h.remaining, h.weight, h.share = in.speed[j], in.remaining[j], in.p.Jobs[j].Weight, in.share[j]
			h.j, h.minPS = int32(j), int32(in.minPS[j])
			for r := range 2 {
				h.limit[r] = int32(min(in.limit[j][r], math.MaxInt32))
				h.dem[r] = int32(ids[j][r])
			}
		}
	})
	return in.hot
}

// T is instance.T of the job.
func (h *hotJob) T(p, w int) float64 {
	if p < int(h.minPS) || w < 1 {
		return math.Inf(1)
	}
	return h.remaining / h.speed.Speed(p, w)
}

// gain is instance.gain of the job.
func (h *hotJob) gain(role, p, w int, now float64) (gain, after float64) {
	p2, w2 := p, w
	if role == ps {
		p2++
	} else {
		w2++
	}
	after = h.T(p2, w2)
	return h.weight * (now - after) / h.share[role], after
}

// stepJob is what one greedy plan keeps of a queued job as it goes, by
// rank: its allocation, the gain of the next task of each role and the
// job's remaining time with it, the gains of the last tasks it got, and
// which roles are still queued (written out to the plan's per-job arrays
// when the greedy ends or repacks: one cache line a step instead of one per
// array). 64 bytes.
type stepJob struct {
	next, after [2]float64
	lastGain    [2]float64
	ps, wk      int32
	// last is, with node-level capacity, the node of the job's last task
	// (packing.last, read here beside the rest of the record).
	last int32
	// flags: bit role set while the role's next task is queued;
	// servedPS or servedWorker after the job got a task in the loop, the
	// role of the last one; limitWorker<<role when the role reached its
	// limit in the loop (written to the plan's roleState at the end).
	flags uint8
}

const (
	servedWorker = 1 << (2 + iota)
	servedPS
	limitWorker
)

// queued reports whether the next task of the role is a candidate.
func (st *stepJob) queued(role int) bool { return st.flags&(1<<role) != 0 }

// bestTask is the queue's entry of the job of rank k: the better of its
// queued next tasks in the queue's order; ok is false when neither is
// queued.
func (st *stepJob) bestTask(k int) (c taskGain, ok bool) {
	for role := range 2 {
		if !st.queued(role) {
			continue
		}
		e := taskGain{gain: st.next[role], key: int32(2*k + role)}
		if !ok || before(&e, &c) {
			c, ok = e, true
		}
	}
	return c, ok
}

// demByID is the demand vector numbered id (hotJob.dem).
func (in *instance) demByID(id int32) []float64 {
	i := int(id) * in.nr
	return in.byID[i : i+in.nr : i+in.nr]
}

// writeAllocation writes the greedy's allocations of the queued jobs (those
// that run and are not kept) from step to the plan, and their last nodes
// to the packing's (packing.addTask).
func (in *instance) writeAllocation(pl *plan, step []stepJob) {
	for k, j := range in.order {
		if pl.status[j] == Running && !pl.kept[j] {
			pl.ps[j], pl.wk[j] = int(step[k].ps), int(step[k].wk)
			if pl.pack != nil {
				pl.pack.last[j] = step[k].last
			}
		}
	}
}

// readLast copies the packing's last node of every queued job into step.
func (in *instance) readLast(pl *plan, step []stepJob) {
	for k, j := range in.order {
		if pl.status[j] == Running && !pl.kept[j] {
			step[k].last = pl.pack.last[j]
		}
	}
}
