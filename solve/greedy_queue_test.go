package solve

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// binaryGains is the greedy's queue as it was before gainQueue became
// 4-ary: container/heap's binary heap with the same order.
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

// TestGainQueueAsBinaryHeap runs the greedy's moves (push, take the best,
// lower the best's gain, remove an entry, change any entry's gain) on
// random queues, with many equal gains, through gainQueue and through a
// binary heap, and checks that the best entry is the same after every
// move: the greedy reads only the best, so its plans are the same.
func TestGainQueueAsBinaryHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	for trial := range 200 {
		keys := 2 + rng.IntN(400)
		q := newGainQueue((keys + 1) / 2)
		b := &binaryGains{at: map[int32]int{}}
		gain := func() float64 {
			if rng.IntN(3) == 0 {
				return float64(rng.IntN(4)) // ties
			}
			return rng.NormFloat64()
		}
		for k := range keys {
			c := taskGain{gain: gain(), key: int32(k)}
			q.push(c)
			heap.Push(b, c)
		}
		for move := 0; len(b.items) > 0; move++ {
			if q.items[0] != b.items[0] || len(q.items) != len(b.items) {
				t.Fatalf("trial %d, move %d: best %+v of %d, binary heap's %+v of %d", trial, move, q.items[0], len(q.items), b.items[0], len(b.items))
			}
			for i, c := range q.items {
				if q.at[c.key] != int32(i) {
					t.Fatalf("trial %d, move %d: at[%d] = %d, the entry is at %d", trial, move, c.key, q.at[c.key], i)
				}
			}
			switch op := rng.IntN(10); {
			case op < 3: // the best is taken off (did not fit)
				q.pop()
				heap.Pop(b)
			case op < 7: // the best got its task: its gain falls
				g := q.items[0].gain - rng.Float64()
				if rng.IntN(4) == 0 {
					g = float64(rng.IntN(4))
				}
				key := q.items[0].key
				q.items[0].gain = g
				q.fix(0)
				b.items[b.at[key]].gain = g
				heap.Fix(b, b.at[key])
			case op < 8: // an entry at its limit is removed
				key := b.items[rng.IntN(len(b.items))].key
				q.remove(int(q.at[key]))
				heap.Remove(b, b.at[key])
				if q.at[key] != -1 {
					t.Fatalf("trial %d: removed key %d still at %d", trial, key, q.at[key])
				}
			default: // the job's other entry is re-evaluated
				key := b.items[rng.IntN(len(b.items))].key
				g := gain()
				q.items[q.at[key]].gain = g
				q.fix(int(q.at[key]))
				b.items[b.at[key]].gain = g
				heap.Fix(b, b.at[key])
			}
		}
		if len(q.items) != 0 {
			t.Fatalf("trial %d: %d entries left", trial, len(q.items))
		}
	}
}
