package place

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/optimus-sched/optimus/layout"
)

// An all-reduce job (Job.PS == 0: workers only, one per GPU) has no PS to
// balance against: its workers exchange gradients with each other, and an
// all-reduce step is slower when they span more nodes (the network terms of
// fit.SpeedModel's all-reduce form). The optimus policy therefore packs
// its workers on the fewest nodes that hold them (placeAllReduce), and a
// job's CrossTraffic is the share of its worker pairs on different nodes,
//
//	1 - Σ_i m_i·(m_i - 1) / (w·(w - 1))
//
// (0 for one worker or one node), smallest on the fewest, fullest nodes.

// placeAllReduce packs all-reduce job j's workers on the fewest nodes: when
// one node holds them all, the one with the least room that does (best
// fit, leaving larger holes for larger jobs); else the nodes with the most
// room, the last of them again the tightest that holds the rest. A job
// that does not fit whole gets what there is room for, with the reason.
func (pl *placer) placeAllReduce(j int) {
	job := &pl.p.Jobs[j]
	w := job.Workers
	room := make([]int, len(pl.p.Nodes)) // workers each node has room for
	for i := range room {
		room[i] = pl.st.count(i, job.WorkerDemand, layout.MaxJobTasks)
	}
	byRoom := make([]int, 0, len(room))
	for i, r := range room {
		if r > 0 {
			byRoom = append(byRoom, i)
		}
	}
	slices.SortStableFunc(byRoom, func(a, b int) int { return cmp.Compare(room[b], room[a]) })
	// tightest returns the node among cand with the least room of at
	// least need, -1 when none has that much.
	tightest := func(cand []int, need int) int {
		best := -1
		for _, i := range cand {
			if room[i] >= need && (best < 0 || room[i] < room[best]) {
				best = i
			}
		}
		return best
	}
	var split []layout.Slot
	left := w
	for k := 0; left > 0 && k < len(byRoom); k++ {
		if i := tightest(byRoom[k:], left); i >= 0 {
			split = append(split, layout.Slot{Node: i, Workers: left})
			left = 0
			break
		}
		i := byRoom[k]
		split = append(split, layout.Slot{Node: i, Workers: min(room[i], left)})
		left -= min(room[i], left)
	}
	res := &pl.jobs[j]
	if len(split) == 0 {
		res.Status, res.Method = Waiting, ""
		res.Reason = joinReason(res.Reason, "no room for a worker")
		return
	}
	pl.placeSplit(j, split)
	if left > 0 {
		res.Method = MethodFallback
		res.Reason = joinReason(res.Reason, fmt.Sprintf("reduced: placed %d of %d workers; no node had room for the rest", w-left, w))
	}
}
