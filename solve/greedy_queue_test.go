package solve

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// binaryGains is the greedy's queue as it was before gainQueue became
// 4-ary with one entry per job: container/heap's binary heap of every
// queued task, with the same order.
type binaryGains struct {
	items []taskGain
	at    map[int32]int
}

func (h *binaryGains) Len() int           { return len(h.items) }
func (h *binaryGains) Less(a, b int) bool { return before(&h.items[a], &h.items[b]) }
func (h *binaryGains) Swap(a, b int) {
	h.items[a], h.items[b] = h.items[b], h.items[a]
	h.at[h.items[a].key], h.at[h.items[b].key] = a, b
}
func (h *binaryGains) Push(x any) {
	c := x.(taskGain)
	h.at[c.key] = len(h.items)
	h.items = append(h.items, c)
}
func (h *binaryGains) Pop() any {
	n := len(h.items) - 1
	c := h.items[n]
	h.items = h.items[:n]
	delete(h.at, c.key)
	return c
}

// TestGainQueueAsBinaryHeap runs the greedy's moves on random jobs, with
// many equal gains, through gainQueue (one entry per job, the better of its
// two roles, with a heap of a random size) and through a binary heap of
// every queued task (both roles of every job), and checks that the best
// task is the same after every move while it is positive, and that
// gainQueue has none when it is not: the greedy reads only the best, and
// stops there, so its plans are the same. The moves: the best task does
// not fit (its role is dropped), or it is served (both of its job's gains
// fall or rise, and a role may reach its limit). Every tenth trial has
// thousands of jobs and a heap of a few percent of them, so that the
// floor is lowered many times from a sample of the entries below it.
func TestGainQueueAsBinaryHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	for trial := range 200 {
		jobs := 1 + rng.IntN(200)
		hot := 1 + rng.IntN(2*jobs)
		if trial%10 == 0 {
			jobs = 1000 + rng.IntN(4000)
			hot = 1 + rng.IntN(jobs/16)
		}
		q := newGainQueue(jobs)
		q.hot = hot
		b := &binaryGains{at: map[int32]int{}}
		step := make([]stepJob, jobs)
		gain := func() float64 {
			switch rng.IntN(20) {
			case 0:
				return -rng.Float64()
			case 1, 2, 3, 4, 5:
				return float64(rng.IntN(4)) // ties
			}
			return 4 * rng.Float64()
		}
		for k := range jobs {
			st := &step[k]
			for role := range 2 {
				if rng.IntN(5) == 0 {
					continue // at its limit from the start
				}
				st.next[role], st.flags = gain(), st.flags|1<<role
				heap.Push(b, taskGain{gain: st.next[role], key: int32(2*k + role)})
			}
			if c, ok := st.bestTask(k); ok {
				q.push(c)
			}
		}
		for move := 0; ; move++ {
			if len(b.items) == 0 || !(b.items[0].gain > 0) {
				if q.ready() {
					t.Fatalf("trial %d, move %d: best %+v, the binary heap has no positive gain left", trial, move, q.items[0])
				}
				break
			}
			if !q.ready() || q.items[0] != b.items[0] {
				t.Fatalf("trial %d, move %d: best %+v, binary heap's %+v of %d tasks", trial, move, q.items, b.items[0], len(b.items))
			}
			k, role := int(q.items[0].key>>1), int(q.items[0].key&1)
			st := &step[k]
			if rng.IntN(3) == 0 { // the best did not fit
				st.flags &^= 1 << role
				heap.Pop(b)
				q.serve(st, k)
				continue
			}
			for r := range 2 { // served: its job's queued tasks change
				if !st.queued(r) {
					continue
				}
				key := int32(2*k + r)
				if rng.IntN(4) == 0 {
					st.flags &^= 1 << r
					heap.Remove(b, b.at[key])
					continue
				}
				g := st.next[r] - rng.Float64()/4
				if rng.IntN(4) == 0 {
					g = gain()
				}
				st.next[r] = g
				b.items[b.at[key]].gain = g
				heap.Fix(b, b.at[key])
			}
			q.serve(st, k)
		}
	}
}
