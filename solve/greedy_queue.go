package solve

import (
	"math"
	"slices"
)

// taskGain is an entry of the greedy's queue: the next task of role key%2
// for the job of arrival rank key/2, and its marginal gain. The entries are
// values (no pointer to follow in a comparison), and the key orders ties.
type taskGain struct {
	gain float64
	key  int32 // 2·rank + role
}

// gainQueue is the greedy's max-queue of candidate tasks by gain; ties go
// to the earlier arrival, then to the worker, so that the order is total
// and the plan deterministic. It holds one entry per queued job, the better
// of its next worker and next PS (bestTask): the best entry over all jobs is
// then the best of all candidate tasks, the only one the greedy reads, as a
// queue of every task would give it (container/heap's binary heap of both
// roles, which it was: TestGainQueueAsBinaryHeap). The greedy only ever
// changes the best entry (the job it serves), so no index of the entries is
// kept.
//
// At a million tasks the queue is far beyond the caches, and each level an
// entry sinks through is a miss; so only the entries of gain at least floor
// are in the heap (items), about hotEntries of them, the others unordered in
// low: every entry of low is below floor, so the heap's best is the best of
// all. When the heap runs empty, floor is lowered and the entries of low at
// or above it move to the heap (refill). The heap is 4-ary (children of i at
// 4i+1..4i+4): the entry sinking from the root reads one cache line of 4
// siblings per level over half the levels of a binary heap.
type gainQueue struct {
	items []taskGain
	low   []taskGain
	floor float64
	// hot is about how many entries a refill moves to the heap.
	hot int
}

// hotEntries is gainQueue.hot: a heap of 128 KiB, within a core's L2.
const hotEntries = 1 << 13

// arity is the number of children of a heap entry.
const arity = 4

func newGainQueue(jobs int) gainQueue {
	return gainQueue{items: make([]taskGain, 0, min(jobs, 2*hotEntries)), low: make([]taskGain, 0, jobs), floor: math.Inf(1), hot: hotEntries}
}

// before reports whether x comes before y in the queue.
func before(x, y *taskGain) bool {
	if x.gain != y.gain {
		return x.gain > y.gain
	}
	return x.key < y.key
}

// push adds an entry (before the greedy's loop: it goes to low, and the
// first refill sorts it out).
func (q *gainQueue) push(c taskGain) {
	if c.gain >= q.floor {
		q.heapPush(c)
		return
	}
	q.low = append(q.low, c)
}

func (q *gainQueue) heapPush(c taskGain) {
	q.items = append(q.items, c)
	q.up(len(q.items) - 1)
}

// ready reports whether an entry is queued; the best is then items[0].
func (q *gainQueue) ready() bool {
	if len(q.items) == 0 && len(q.low) > 0 {
		q.refill()
	}
	return len(q.items) > 0
}

// refill lowers floor so that about q.hot entries of low are at or above
// it, and moves those to the heap. Only entries of positive gain move (the
// greedy stops at the first best that is not positive), so the heap stays
// empty when none is left. floor only decides what is in the heap, not
// which entry is the best.
func (q *gainQueue) refill() {
	floor := math.SmallestNonzeroFloat64
	if n := len(q.low); n > q.hot {
		// The gain of rank about q.hot in a sample of low.
		const samples = 256
		var sample [samples]float64
		m := 0
		for i := 0; i < samples; i++ {
			if g := q.low[i*n/samples].gain; g > 0 {
				sample[m], m = g, m+1
			}
		}
		slices.Sort(sample[:m])
		if k := q.hot * samples / n; k < m {
			floor = max(floor, sample[m-1-k])
		}
	}
	keep := q.low[:0]
	for _, c := range q.low {
		if c.gain >= floor {
			q.heapPush(c)
		} else {
			keep = append(keep, c)
		}
	}
	q.low, q.floor = keep, floor
}

// next is the rank of the job whose entry is the best after the best's
// (the best of the root's children), -1 when there is none.
func (q *gainQueue) next() int {
	n := len(q.items)
	if n < 2 {
		return -1
	}
	j := 1
	for k := 2; k < min(1+arity, n); k++ {
		if before(&q.items[k], &q.items[j]) {
			j = k
		}
	}
	return int(q.items[j].key >> 1)
}

// pop takes the best entry off.
func (q *gainQueue) pop() {
	n := len(q.items) - 1
	last := q.items[n]
	q.items = q.items[:n]
	if n > 0 {
		q.items[0] = last
		q.down(0)
	}
}

// replaceBest sets the best entry to c (the same job's, with its new gain)
// and restores the order.
func (q *gainQueue) replaceBest(c taskGain) {
	if !(c.gain >= q.floor) {
		q.low = append(q.low, c)
		q.pop()
		return
	}
	q.items[0] = c
	q.down(0)
}

// up and down move an entry along its path with a hole, each entry
// passed written once.
func (q *gainQueue) up(j int) {
	c := q.items[j]
	for j > 0 {
		i := (j - 1) / arity // parent
		if !before(&c, &q.items[i]) {
			break
		}
		q.items[j] = q.items[i]
		j = i
	}
	q.items[j] = c
}

func (q *gainQueue) down(i int) {
	n := len(q.items)
	c := q.items[i]
	for {
		j1 := arity*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		for k := j1 + 1; k < min(j1+arity, n); k++ {
			if before(&q.items[k], &q.items[j]) {
				j = k
			}
		}
		if !before(&q.items[j], &c) {
			break
		}
		q.items[i] = q.items[j]
		i = j
	}
	q.items[i] = c
}

// serve puts the job of rank k, whose entry is the best, back with its
// best queued task (st.bestTask), or takes it off when none is left.
func (q *gainQueue) serve(st *stepJob, k int) {
	if c, ok := st.bestTask(k); ok {
		q.replaceBest(c)
		return
	}
	q.pop()
}
