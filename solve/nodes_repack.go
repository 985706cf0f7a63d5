package solve

import (
	"encoding/binary"
	"math"
	"slices"
)

// repack places every task of the plan again from scratch, with job j's nw
// more workers and np more PS: first by first fit decreasing (kinds of
// task, a job's workers or its PS, by decreasing size, each task by the
// rules of find), then, if that fails, by an exhaustive search within a
// budget of steps. If all the tasks fit it adopts that placement and
// reports true; otherwise the packing is unchanged.
//
// The greedy adds tasks in the order of their gains, and placing each for
// good as it comes can leave the nodes fragmented (on small clusters
// especially) where another placement of the same tasks has room. The
// first-fit-decreasing pass costs O((tasks + n)·log n); its total over a
// solve is kept below about three times the work of the last one, and an
// addition for which repacking failed is not repacked again (the free
// capacity only shrinks). The exhaustive search is for small clusters
// (exactNodes): it stops after exactSteps steps per solve in all.
func (pg *packing) repack(in *instance, pl *plan, j, nw, np int) bool {
	pk := pg.pk
	key := pg.repackKey(j, nw, np)
	if pg.repackFailed[key] {
		return false
	}
	// The work of a repack: its tasks and the nodes it starts from.
	work := nw + np + len(pk.at)
	for jj := range pl.ps {
		work += pl.ps[jj] + pl.wk[jj]
	}
	if pg.repacked > 2*work+4096 {
		return false
	}
	pg.repacked += work
	var kinds []taskKind
	for _, jj := range in.order {
		for role := range 2 {
			n := pl.wk[jj]
			if role == ps {
				n = pl.ps[jj]
			}
			if jj == j {
				n += [2]int{nw, np}[role]
			}
			if n == 0 {
				continue
			}
			size := 0.0
			for r, x := range in.demand[jj][role] {
				if pk.scale[r] > 0 {
					size += x / pk.scale[r]
				}
			}
			kinds = append(kinds, taskKind{job: jj, role: role, count: n, size: size, d: in.demand[jj][role]})
		}
	}
	slices.SortStableFunc(kinds, func(a, b taskKind) int { return cmpFloat(b.size, a.size) })
	fresh := pk.newPacking(len(pg.last))
	ok := true
	for _, k := range kinds {
		for range k.count {
			i := fresh.find(k.job, k.role, k.d)
			if i < 0 {
				ok = false
				break
			}
			fresh.take(k.job, k.role, k.d, i, 1)
		}
		if !ok {
			break
		}
	}
	if !ok && len(pk.at) <= exactNodes && pg.exactSteps < exactSteps {
		fresh = pk.newPacking(len(pg.last))
		ok = fresh.exact(kinds, &pg.exactSteps)
	}
	if !ok {
		if pg.repackFailed == nil {
			pg.repackFailed = map[[4]int]bool{}
		}
		pg.repackFailed[key] = true
		return false
	}
	fresh.repacked, fresh.repackFailed, fresh.exactSteps = pg.repacked, pg.repackFailed, pg.exactSteps
	*pg = *fresh
	return true
}

// repackKey is what repack remembers a failed addition by: the demands
// added and how many.
func (pg *packing) repackKey(j, nw, np int) [4]int {
	key := [4]int{-1, -1, nw, np}
	if nw > 0 {
		key[0] = pg.pk.demandID[j][worker]
	}
	if np > 0 {
		key[1] = pg.pk.demandID[j][ps]
	}
	return key
}

// repackFails reports whether repack of that addition is known to fail
// (it failed before: the free capacity only shrinks).
func (pg *packing) repackFails(j, nw, np int) bool {
	return pg.repackFailed[pg.repackKey(j, nw, np)]
}

// repack's exhaustive search runs on clusters of at most exactNodes nodes,
// for at most exactSteps steps over a solve.
const (
	exactNodes = 32
	exactSteps = 1 << 14
)

// taskKind is count tasks of one job and role, of demand d.
type taskKind struct {
	job, role, count int
	size             float64
	d                []float64
}

// exact searches, backtracking, for a placement of every task of kinds on
// the (empty) packing, within the steps left before *steps reaches
// exactSteps; it reports whether it found one, and then holds it. Kinds are
// placed in order, each spread over the nodes it may go to (most on the
// first node first); states found not to work are remembered, with nodes
// of equal free capacity taken as interchangeable.
func (pg *packing) exact(kinds []taskKind, steps *int) bool {
	pk := pg.pk
	nr := pk.nr
	allowed := make([][]int, len(kinds))
	for k, kd := range kinds {
		for _, c := range pk.prefer[pk.demandID[kd.job][kd.role]] {
			allowed[k] = append(allowed[k], pk.classes[c].nodes...)
		}
	}
	counts := make([][]int, len(kinds))
	plain := make([]bool, len(kinds))
	for k, kd := range kinds {
		counts[k] = make([]int, len(allowed[k]))
		plain[k] = !slices.ContainsFunc(kd.d, func(x float64) bool { return !(x >= 0 && x <= math.MaxFloat64) })
	}
	// failed holds the states found not to work: the kind to place next
	// and the nodes' free capacities as a multiset (stateKey). keys[k] is
	// the key of the state before kind k on the current path (the lookup
	// converts it without a copy; only a state that failed is stored).
	failed := map[string]bool{}
	keys := make([][]byte, len(kinds))
	var rows []int
	use := func(i int, d []float64, n int) { // pg.free only: the indexes follow at the end
		f := pg.free[i*nr : (i+1)*nr]
		for r, x := range d {
			f[r] -= float64(n) * x
		}
	}
	var rec func(k, a, left int) bool
	rec = func(k, a, left int) bool {
		*steps++
		if *steps > exactSteps {
			return false
		}
		if left == 0 {
			if k+1 == len(kinds) {
				return true
			}
			keys[k+1], rows = pg.stateKey(keys[k+1][:0], k+1, rows)
			if failed[string(keys[k+1])] {
				return false
			}
			if rec(k+1, 0, kinds[k+1].count) {
				return true
			}
			if *steps <= exactSteps {
				failed[string(keys[k+1])] = true
			}
			return false
		}
		if a == len(allowed[k]) {
			return false
		}
		i, d := allowed[k][a], kinds[k].d
		n := mostThatFit(pg.free[i*nr:(i+1)*nr], pk.eps, d, left)
		for ; n >= 0; n-- {
			// Taking none of a finite, non-negative demand changes no bit
			// of the free capacity: skipped.
			take := n > 0 || !plain[k]
			if take {
				use(i, d, n)
			}
			counts[k][a] = n
			ok := rec(k, a+1, left-n)
			if take {
				use(i, d, -n)
			}
			if ok {
				return true
			}
			if *steps > exactSteps {
				break
			}
		}
		counts[k][a] = 0
		return false
	}
	if len(kinds) == 0 {
		return true
	}
	if !rec(0, 0, kinds[0].count) {
		return false
	}
	// pg.free is back to empty: take the tasks found, updating the indexes.
	for k, kd := range kinds {
		for a, n := range counts[k] {
			if n > 0 {
				pg.take(kd.job, kd.role, kd.d, allowed[k][a], n)
			}
		}
	}
	return true
}

// fitsN reports whether n tasks of demand d fit in free capacity f, within
// the tolerances eps.
func fitsN(f, eps, d []float64, n int) bool {
	for r, x := range d {
		if float64(n)*x > f[r]+eps[r] {
			return false
		}
	}
	return true
}

// mostThatFit is the largest n <= left for which fitsN(f, eps, d, n), or 0:
// what counting down from left finds, without trying every count. With no
// negative demand the counts that fit are 0 up to that n (float64(n)*x
// grows with n), so the quotient of free capacity by demand gives it up to
// rounding, which the steps after it correct.
func mostThatFit(f, eps, d []float64, left int) int {
	if left <= 0 || fitsN(f, eps, d, left) {
		return max(left, 0) // all of them (counting down stops at once)
	}
	if slices.ContainsFunc(d, func(x float64) bool { return x < 0 }) {
		n := left
		for n > 0 && !fitsN(f, eps, d, n) {
			n--
		}
		return n
	}
	if !fitsN(f, eps, d, 1) {
		return 0
	}
	n := float64(left)
	for r, x := range d {
		if x > 0 {
			n = min(n, math.Floor((f[r]+eps[r])/x))
		}
	}
	c := 0
	if n > 0 { // and not NaN
		c = int(n)
	}
	for c < left && fitsN(f, eps, d, c+1) {
		c++
	}
	for c > 0 && !fitsN(f, eps, d, c) {
		c--
	}
	return c
}

// stateKey appends to b the key of exact's search state before kind k:
// k, then the nodes' free capacities (the bits of each resource's
// float64) in sorted order, so that nodes of equal free capacity are
// interchangeable; two states get the same key exactly when k and the
// multisets of free capacity vectors are the same. rows is scratch space
// for the order, returned for reuse.
func (pg *packing) stateKey(b []byte, k int, rows []int) ([]byte, []int) {
	nr := pg.pk.nr
	free := pg.free
	rows = rows[:0]
	for i := range len(free) / max(nr, 1) {
		rows = append(rows, i)
	}
	// Insertion sort: the search runs on at most exactNodes nodes.
	for a := 1; a < len(rows); a++ {
		for c := a; c > 0 && rowBefore(free[rows[c]*nr:(rows[c]+1)*nr], free[rows[c-1]*nr:(rows[c-1]+1)*nr]); c-- {
			rows[c], rows[c-1] = rows[c-1], rows[c]
		}
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(k))
	for _, i := range rows {
		for r := range nr {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(free[i*nr+r]))
		}
	}
	return b, rows
}

// rowBefore orders free capacity vectors by the bits of each resource's
// float64 in turn.
func rowBefore(x, y []float64) bool {
	for r := range x {
		if a, b := math.Float64bits(x[r]), math.Float64bits(y[r]); a != b {
			return a < b
		}
	}
	return false
}
