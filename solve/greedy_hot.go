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
}

// hotJobs builds (once per instance: the greedy only reads it, and runs
// after the policies set the weights and the order) the jobs' hotJob by
// rank.
func (in *instance) hotJobs() []hotJob {
	in.hotOnce.Do(func() {
		in.hot = make([]hotJob, len(in.order))
		for k, j := range in.order {
			h := &in.hot[k]
			h.speed, h.remaining, h.weight, h.share = in.speed[j], in.remaining[j], in.p.Jobs[j].Weight, in.share[j]
			h.j, h.minPS = int32(j), int32(in.minPS[j])
			for r := range 2 {
				h.limit[r] = int32(min(in.limit[j][r], math.MaxInt32))
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
// rank: its allocation, its remaining time now and with the task of each
// role it is offered, and the gains of the last tasks it got (written out
// to the plan's per-job arrays when the greedy ends or repacks: one cache
// line a step instead of one per array).
type stepJob struct {
	now      float64
	after    [2]float64
	lastGain [2]float64
	gain     float64
	ps, wk   int32
}
