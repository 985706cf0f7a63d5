package place

import (
	"github.com/optimus-sched/optimus/layout"
)

// nodeState holds every node's free capacity and two indexes over it: a
// heap by how much is free (the "most free capacity first" order of the
// paper's placement, section 4.2) and a layout.FreeTree (first fit in node
// order).
type nodeState struct {
	n, nr int
	free  []float64 // free[i*nr + r]
	eps   []float64 // tolerance of capacity checks, per resource
	// scale[r] is 1 / the largest capacity of resource r over the nodes (0
	// when no node has any): a node's score is Σ_r free^r·scale[r].
	scale []float64
	score []float64
	// heap of node indices, best score first; pos[i] is i's position in it,
	// -1 while it is taken out.
	heap nodeHeap
	pos  []int
	// tree finds the first node, in node order, with room for a task.
	tree layout.FreeTree
	// ffStart remembers, per demand vector, the node before which a task
	// of that demand was last found not to fit anywhere: free capacity only
	// shrinks (until take gives some back, which clears it), so a first-fit
	// search never needs to look before it again.
	ffStart map[string]int
}

func newNodeState(capacity [][]float64, nr int) *nodeState {
	n := len(capacity)
	s := &nodeState{n: n, nr: nr, free: make([]float64, n*nr), eps: make([]float64, nr), scale: make([]float64, nr),
		score: make([]float64, n), pos: make([]int, n), ffStart: map[string]int{}}
	for i, c := range capacity {
		copy(s.free[i*nr:(i+1)*nr], c)
		for r, x := range c {
			s.scale[r] = max(s.scale[r], x)
		}
	}
	for r, m := range s.scale {
		s.eps[r] = 1e-9 * max(1, m)
		if m > 0 {
			s.scale[r] = 1 / m
		}
	}
	s.heap = nodeHeap{s: s, items: make([]int, n)}
	for i := range n {
		s.score[i] = s.scoreOf(i)
		s.heap.items[i], s.pos[i] = i, i
	}
	s.heap.init()
	s.tree = layout.NewFreeTree(n, nr, s.eps, func(i int) []float64 { return s.free[i*nr : (i+1)*nr] })
	return s
}

func (s *nodeState) scoreOf(i int) float64 {
	x := 0.0
	for r := range s.nr {
		x += s.free[i*s.nr+r] * s.scale[r]
	}
	return x
}

// fits reports whether count tasks of demand d fit on node i.
func (s *nodeState) fits(i int, d []float64, count int) bool {
	f := s.free[i*s.nr : (i+1)*s.nr]
	c := float64(count)
	for r, x := range d {
		if c*x > f[r]+s.eps[r] {
			return false
		}
	}
	return true
}

// fitsMix reports whether np tasks of demand dp and nw of demand dw fit
// together on node i.
func (s *nodeState) fitsMix(i int, dp []float64, np int, dw []float64, nw int) bool {
	f := s.free[i*s.nr : (i+1)*s.nr]
	for r := range s.nr {
		if float64(np)*dp[r]+float64(nw)*dw[r] > f[r]+s.eps[r] {
			return false
		}
	}
	return true
}

// take subtracts count tasks of demand d from node i (count < 0 gives back)
// and updates the indexes.
func (s *nodeState) take(i int, d []float64, count int) {
	if count == 0 {
		return // nothing changes
	}
	f := s.free[i*s.nr : (i+1)*s.nr]
	c := float64(count)
	for r, x := range d {
		f[r] -= c * x
	}
	if count < 0 {
		clear(s.ffStart)
	}
	s.score[i] = s.scoreOf(i)
	if s.pos[i] >= 0 {
		s.heap.fix(s.pos[i])
	}
	s.tree.Set(i, f)
}

// popBest takes the node with the most free capacity out of the heap; -1
// when the heap is empty.
func (s *nodeState) popBest() int {
	if len(s.heap.items) == 0 {
		return -1
	}
	return s.heap.pop()
}

// push puts a node taken out by popBest back.
func (s *nodeState) push(i int) {
	s.heap.push(i)
}

// firstFit returns the first node, in node order, where one task of demand
// d fits, skipping nodes for which skip returns true; -1 when there is none.
func (s *nodeState) firstFit(d []float64, skip func(int) bool) int {
	if skip != nil {
		return s.tree.First(0, d, skip)
	}
	key := layout.DemandKey(d)
	from := s.ffStart[key]
	i := s.tree.First(from, d, nil)
	if i < 0 {
		s.ffStart[key] = s.n
	} else {
		s.ffStart[key] = i
	}
	return i
}

// nodeHeap orders node indices by score, highest first, ties by index.
// Its methods are container/heap's algorithms written for node indices
// (no calls through an interface, no boxing of an index).
type nodeHeap struct {
	s     *nodeState
	items []int
}

func (h *nodeHeap) less(a, b int) bool {
	x, y := h.items[a], h.items[b]
	if h.s.score[x] != h.s.score[y] {
		return h.s.score[x] > h.s.score[y]
	}
	return x < y
}

func (h *nodeHeap) swap(a, b int) {
	h.items[a], h.items[b] = h.items[b], h.items[a]
	h.s.pos[h.items[a]], h.s.pos[h.items[b]] = a, b
}

func (h *nodeHeap) init() {
	n := len(h.items)
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

func (h *nodeHeap) push(i int) {
	h.s.pos[i] = len(h.items)
	h.items = append(h.items, i)
	h.up(len(h.items) - 1)
}

func (h *nodeHeap) pop() int {
	n := len(h.items) - 1
	h.swap(0, n)
	h.down(0, n)
	i := h.items[n]
	h.items = h.items[:n]
	h.s.pos[i] = -1
	return i
}

func (h *nodeHeap) fix(i int) {
	if !h.down(i, len(h.items)) {
		h.up(i)
	}
}

func (h *nodeHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h *nodeHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}

// count is how many tasks of demand d, at most limit, fit on node i.
func (s *nodeState) count(i int, d []float64, limit int) int {
	lo, hi := 0, limit // fits(lo) holds; find the largest
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if s.fits(i, d, mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
