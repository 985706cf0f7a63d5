package solve

// taskGain is an entry of the greedy's queue: the next task of role key%2
// for the job of arrival rank key/2, and its marginal gain. The entries are
// values (no pointer to follow in a comparison), and the key orders ties.
type taskGain struct {
	gain float64
	key  int32 // 2·rank + role
}

// gainQueue is a max-heap of the greedy's candidate tasks by gain; ties go
// to the earlier arrival, then to the worker, so that the order is total
// and the plan deterministic. It is 4-ary (children of i at 4i+1..4i+4):
// at a million tasks the queue (300,000 entries) is far beyond the caches,
// and the greedy's hottest move, the job just given a task sinking from the
// root, reads one cache line of 4 siblings per level over half the levels
// of a binary heap. The order is total, so the best entry, all the greedy
// reads, is the same as a binary heap's (container/heap's, which it was):
// the plans are the same (TestGainQueueAsBinaryHeap). at[key] is the index
// of key's entry, -1 when it is not queued.
type gainQueue struct {
	items []taskGain
	at    []int32
}

// arity is the number of children of a gainQueue entry.
const arity = 4

func newGainQueue(jobs int) gainQueue {
	q := gainQueue{items: make([]taskGain, 0, 2*jobs), at: make([]int32, 2*jobs)}
	for k := range q.at {
		q.at[k] = -1
	}
	return q
}

// before reports whether x comes before y in the queue.
func before(x, y *taskGain) bool {
	if x.gain != y.gain {
		return x.gain > y.gain
	}
	return x.key < y.key
}

func (q *gainQueue) push(c taskGain) {
	q.at[c.key] = int32(len(q.items))
	q.items = append(q.items, c)
	q.up(len(q.items) - 1)
}

// pop takes the best entry off.
func (q *gainQueue) pop() { q.remove(0) }

// remove takes the entry at index i off.
func (q *gainQueue) remove(i int) {
	n := len(q.items) - 1
	q.at[q.items[i].key] = -1
	if n != i {
		last := q.items[n]
		q.items = q.items[:n]
		q.put(i, last)
		q.fix(i)
		return
	}
	q.items = q.items[:n]
}

// fix restores the order after the gain at index i changed.
func (q *gainQueue) fix(i int) {
	if !q.down(i) {
		q.up(i)
	}
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
		q.put(j, q.items[i])
		j = i
	}
	q.put(j, c)
}

func (q *gainQueue) down(i0 int) bool {
	n := len(q.items)
	i := i0
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
		q.put(i, q.items[j])
		i = j
	}
	q.put(i, c)
	return i > i0
}

// put writes entry c at index i.
func (q *gainQueue) put(i int, c taskGain) {
	q.items[i] = c
	q.at[c.key] = int32(i)
}
