package solve

// taskGain is an entry of the greedy's queue: the next task of role key%2
// for the job of arrival rank key/2, and its marginal gain. The entries are
// values (no pointer to follow in a comparison), and the key orders ties.
type taskGain struct {
	gain float64
	key  int32 // 2·rank + role
}

// gainQueue is the greedy's max-heap of candidate tasks by gain; ties go to
// the earlier arrival, then to the worker, so that the order is total and
// the plan deterministic. It holds one entry per queued job, the better of
// its next worker and next PS (bestTask): the best entry over all jobs is
// then the best of all candidate tasks, the only one the greedy reads, as a
// queue of every task would give it (container/heap's binary heap of both
// roles, which it was: TestGainQueueAsBinaryHeap). The greedy only ever
// changes the best entry (the job it serves), so no index of the entries is
// kept, and a step sifts one entry: at a million tasks the queue is far
// beyond the caches, and each level it passes is a miss. It is 4-ary
// (children of i at 4i+1..4i+4): the entry sinking from the root reads one
// cache line of 4 siblings per level over half the levels of a binary heap.
type gainQueue struct {
	items []taskGain
}

// arity is the number of children of a gainQueue entry.
const arity = 4

func newGainQueue(jobs int) gainQueue {
	return gainQueue{items: make([]taskGain, 0, jobs)}
}

// before reports whether x comes before y in the queue.
func before(x, y *taskGain) bool {
	if x.gain != y.gain {
		return x.gain > y.gain
	}
	return x.key < y.key
}

func (q *gainQueue) push(c taskGain) {
	q.items = append(q.items, c)
	q.up(len(q.items) - 1)
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
