package layout

import "slices"

// FreeTree finds, among n nodes in a fixed order, the first with room for a
// task: a segment tree whose vertices hold, per resource, the largest free
// capacity among the nodes under them, so that a search skips every subtree
// in which some resource is short of the demand. A search and an update
// cost O(log n) in the usual case. Capacity checks allow eps[r] of slack, as
// the callers' own checks do.
type FreeTree struct {
	n, nr, leaves int
	eps           []float64
	seg           []float64 // seg[v*nr + r]: vertex v's maximum of resource r
}

// NewFreeTree builds the tree over n nodes of nr resources whose free
// capacities free(k) returns, k in [0, n).
func NewFreeTree(n, nr int, eps []float64, free func(k int) []float64) FreeTree {
	t := FreeTree{n: n, nr: nr, leaves: 1, eps: eps}
	for t.leaves < n {
		t.leaves *= 2
	}
	t.seg = make([]float64, 2*t.leaves*nr)
	for k := range n {
		copy(t.seg[(t.leaves+k)*nr:], free(k))
	}
	for v := t.leaves - 1; v >= 1; v-- {
		t.pull(v)
	}
	return t
}

// Clone returns a copy that can be updated on its own.
func (t FreeTree) Clone() FreeTree {
	t.seg = slices.Clone(t.seg)
	return t
}

// Set records node k's free capacity.
func (t *FreeTree) Set(k int, free []float64) {
	nr := t.nr
	v := t.leaves + k
	copy(t.seg[v*nr:(v+1)*nr], free)
	for v /= 2; v >= 1; v /= 2 {
		if !t.pull(v) {
			break // the maxima above do not change either
		}
	}
}

// pull recomputes vertex v's maxima from its children and reports whether
// any changed.
func (t *FreeTree) pull(v int) bool {
	nr := t.nr
	a, b, o := 2*v*nr, (2*v+1)*nr, v*nr
	changed := false
	for r := range nr {
		if m := max(t.seg[a+r], t.seg[b+r]); m != t.seg[o+r] {
			t.seg[o+r], changed = m, true
		}
	}
	return changed
}

// First returns the first node k >= from, in order, with room for a task of
// demand d and for which skip (when not nil) is false; -1 when there is
// none.
func (t *FreeTree) First(from int, d []float64, skip func(k int) bool) int {
	return t.first(1, 0, t.leaves, from, d, skip)
}

func (t *FreeTree) first(v, lo, hi, from int, d []float64, skip func(int) bool) int {
	if lo >= t.n || hi <= from {
		return -1
	}
	m := t.seg[v*t.nr : (v+1)*t.nr]
	for r, x := range d {
		if x > m[r]+t.eps[r] {
			return -1
		}
	}
	if hi-lo == 1 {
		if skip != nil && skip(lo) {
			return -1
		}
		return lo
	}
	mid := (lo + hi) / 2
	if k := t.first(2*v, lo, mid, from, d, skip); k >= 0 {
		return k
	}
	return t.first(2*v+1, mid, hi, from, d, skip)
}
