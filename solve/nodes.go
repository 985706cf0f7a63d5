package solve

import (
	"math"
	"math/bits"
	"slices"

	"github.com/optimus-sched/optimus/layout"
)

// Node-level capacity (Options.Capacity = NodeCapacity).
//
// The paper's problem (3) and its greedy check only the cluster's total of
// each resource. An allocation that uses a resource to the last unit in
// total may still not fit node by node: on the paper's own testbed (13
// servers of 10 Gbit/s) the PS of the jobs planned first take the network
// of the GPU servers that a later job's workers need, and `optimus place`
// then leaves that job waiting although solve said it runs. With node-level
// capacity solve keeps, beside the totals, an incremental placement of
// every task it allocates on a copy of the nodes' capacities: a task is
// added only if some node has room for it (find), or if every task placed
// so far and it fit when placed again from scratch (repack). The placement
// is a certificate that the allocation packs (Result.Packing, the
// allocation table's alloc_nodes); `optimus place` makes its own placement
// (jobs on the fewest nodes with even splits) and falls back to this one
// when its own leaves a job waiting or short.
//
// Where a task goes (packing.find), a rule close to what `optimus place`
// does (jobs on few nodes) that also keeps the GPU servers for the tasks
// that can only run there:
//
//  1. on the node where its job's last task went, if it has room: jobs
//     stay on few nodes, as the placement theorem wants (the first PS goes
//     next to the first worker);
//  2. else on the first node, in cluster order, among the nodes with the
//     fewest resources the task does not use, then the next fewest, and so
//     on: a PS, which needs no GPU, on a server without GPUs before a GPU
//     server; a worker, which needs a GPU, on GPU servers only.
//
// Keeping a job's PS on the servers without GPUs even when its own GPU
// server has room was tried: it packs a little more but spreads jobs (the
// figures are in benchmarks/solve-place.md).
//
// Costs: the search goes through one layout.FreeTree per class of nodes
// (nodes with the same resources), O(log n) per task for n nodes in the
// usual case, plus a scan of the job's own nodes.

// nodeClass is a set of nodes that have capacity of the same resources.
type nodeClass struct {
	has   uint64 // bit r: the nodes have some capacity of resource r
	nodes []int  // node indices in cluster order
}

// packer is what every packing of an instance shares: the node classes,
// per demand vector the order in which to search them, the tolerance.
type packer struct {
	nr      int
	classes []nodeClass
	// at[i] is node i's class and its position within it, side by side
	// (a sync reads both of a node picked anywhere in the cluster).
	at    []nodeAt
	eps   []float64
	scale []float64
	// demandID[j][role] numbers the distinct demand vectors; prefer[id]
	// lists the classes where a task of that demand may go, best first.
	demandID [][2]int
	prefer   [][]int
	// free0 and tree0 are the empty cluster's free capacities and, per
	// class, its first-fit tree, copied by every new packing.
	free0 []float64
	tree0 []layout.FreeTree
}

// nodeAt is where a node is in the classes: class, and slot within it.
type nodeAt struct{ class, slot int32 }

// packing is a placement of a plan's tasks on the nodes, grown one task at
// a time.
type packing struct {
	pk   *packer
	free []float64         // free[i*nr + r]
	tree []layout.FreeTree // per class, over its nodes in cluster order
	// start[id*len(classes) + c] is the position in class c before which
	// no node has room for a task of demand id: free capacity only
	// shrinks until a task is given back, which resets it.
	start []int
	// last[j] is the node job j's last task went to (-1: none yet), and
	// log lists every placement in order (layout sums it up per job), in
	// chunks of logChunk so that it grows without copying.
	last []int32
	log  [][]placement
	// repacked counts the tasks placed by repack so far and exactSteps
	// the steps of its exhaustive search (their budgets); repackFailed
	// holds the additions repack found no room for.
	repacked, exactSteps int
	repackFailed         map[[4]int]bool
	// dirty lists the nodes whose free capacity changed since their
	// class's tree last saw it (isDirty[i]): the trees are brought up to
	// date before a search (sync), as a node often takes several tasks in
	// a row before one; they then hold what updating them at every change
	// would give (a vertex is the maximum of its leaves).
	dirty   []int32
	isDirty []bool
}

// placement is count tasks of a job and role put on a node; prev is the
// job's last node before.
type placement struct {
	job, node, prev int32
	role, count     int32
}

func newPacker(in *instance) *packer {
	p := in.p
	nr := len(p.Resources)
	pk := &packer{nr: nr, eps: make([]float64, nr), at: make([]nodeAt, len(p.Nodes))}
	for r := range nr {
		most := 0.0
		for _, n := range p.Nodes {
			most = math.Max(most, n[r])
		}
		pk.eps[r] = 1e-9 * math.Max(1, most)
		pk.scale = append(pk.scale, most)
	}
	byHas := map[uint64]int{}
	for i, n := range p.Nodes {
		has := mask(n)
		c, ok := byHas[has]
		if !ok {
			c = len(pk.classes)
			byHas[has] = c
			pk.classes = append(pk.classes, nodeClass{has: has})
		}
		pk.at[i] = nodeAt{int32(c), int32(len(pk.classes[c].nodes))}
		pk.classes[c].nodes = append(pk.classes[c].nodes, i)
	}
	pk.free0 = make([]float64, len(p.Nodes)*nr)
	for i, n := range p.Nodes {
		copy(pk.free0[i*nr:], n)
	}
	pk.tree0 = make([]layout.FreeTree, len(pk.classes))
	for c, cl := range pk.classes {
		pk.tree0[c] = layout.NewFreeTree(len(cl.nodes), nr, pk.eps, func(k int) []float64 {
			i := cl.nodes[k]
			return pk.free0[i*nr : (i+1)*nr]
		})
	}
	var vecs [][]float64
	pk.demandID, vecs = in.demandIDs()
	for _, d := range vecs {
		pk.prefer = append(pk.prefer, pk.preference(d))
	}
	return pk
}

// demandIDs numbers the distinct demand vectors of the jobs' tasks in
// order of first use (by job, then role): ids[j][role], and vecs[id] the
// vector (a fixed-size key up to 8 resources: no allocation per job).
func (in *instance) demandIDs() (ids [][2]int, vecs [][]float64) {
	nr := in.nr
	short, long := map[[8]uint64]int{}, map[string]int{}
	ids = make([][2]int, len(in.p.Jobs))
	for j := range in.p.Jobs {
		for role := range 2 {
			d := in.demand[j][role]
			var id int
			var ok bool
			var key [8]uint64
			if nr <= len(key) {
				for r, x := range d {
					key[r] = math.Float64bits(x)
				}
				id, ok = short[key]
			} else {
				id, ok = long[layout.DemandKey(d)]
			}
			if !ok {
				id = len(vecs)
				if nr <= len(key) {
					short[key] = id
				} else {
					long[layout.DemandKey(d)] = id
				}
				vecs = append(vecs, d)
			}
			ids[j][role] = id
		}
	}
	return ids, vecs
}

// mask has bit r set when x[r] > 0 (resources beyond the 64th share bit 63:
// with so many resources the classes only get coarser).
func mask(x []float64) uint64 {
	var m uint64
	for r, v := range x {
		if v > 0 {
			m |= 1 << min(r, 63)
		}
	}
	return m
}

// preference lists the classes a task of demand d may go to (those with
// every resource it needs), fewest unneeded resources first, ties in order
// of the classes' first node.
func (pk *packer) preference(d []float64) []int {
	need := mask(d)
	var cs []int
	for c, cl := range pk.classes {
		if cl.has&need == need {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b int) int {
		return bits.OnesCount64(pk.classes[a].has&^need) - bits.OnesCount64(pk.classes[b].has&^need)
	})
	return cs
}

func (pk *packer) newPacking(jobs int) *packing {
	pg := &packing{pk: pk, free: slices.Clone(pk.free0), tree: make([]layout.FreeTree, len(pk.tree0)),
		start: make([]int, len(pk.prefer)*len(pk.classes)), last: make([]int32, jobs), isDirty: make([]bool, len(pk.at))}
	for c, t := range pk.tree0 {
		pg.tree[c] = t.Clone()
	}
	for j := range pg.last {
		pg.last[j] = -1
	}
	return pg
}

// layout sums the placements up: per job, the nodes it has tasks on (in
// the order first used) and how many of each role.
func (pg *packing) layout() [][]layout.Slot {
	nj := len(pg.last)
	out := make([][]layout.Slot, nj)
	// The log is in the greedy's order, which jumps across the jobs: it is
	// first sorted by job (a counting sort, which keeps each job's order),
	// so that each job's layout is then summed up in one place, not one
	// cache miss per placement at a million tasks.
	at := make([]int32, nj+1)
	for _, chunk := range pg.log {
		for _, p := range chunk {
			at[p.job+1]++
		}
	}
	for j := range nj {
		at[j+1] += at[j]
	}
	total := int(at[nj])
	// What a job's layout needs of a placement: its node, role and count.
	type placed struct{ node, roleCount int32 }
	byJob := make([]placed, total)
	next := slices.Clone(at[:nj])
	for _, chunk := range pg.log {
		for _, p := range chunk {
			byJob[next[p.job]] = placed{p.node, p.role<<30 | p.count}
			next[p.job]++
		}
	}
	// A job has at most as many nodes as placements: each job's share of
	// one array, sized so, holds its layout without growing.
	slots := make([]layout.Slot, total)
	for j := range nj {
		lo, hi := int(at[j]), int(at[j+1])
		if lo == hi {
			continue
		}
		own := slots[lo:lo:hi]
		for _, p := range byJob[lo:hi] {
			own = addTo(own, placement{node: p.node, role: p.roleCount >> 30, count: p.roleCount & (1<<30 - 1)})
		}
		out[j] = own
	}
	return out
}

// addTo counts placement p in a job's layout.
func addTo(own []layout.Slot, p placement) []layout.Slot {
	k := len(own) - 1
	for k >= 0 && own[k].Node != int(p.node) {
		k--
	}
	if k < 0 {
		own = append(own, layout.Slot{Node: int(p.node)})
		k = len(own) - 1
	}
	if int(p.role) == ps {
		own[k].PS += int(p.count)
	} else {
		own[k].Workers += int(p.count)
	}
	return own
}

// logChunk is the size of the packing log's chunks.
const logChunk = 4096

// fits reports whether a task of demand d fits on node i.
func (pg *packing) fits(i int, d []float64) bool {
	nr := pg.pk.nr
	f := pg.free[i*nr : (i+1)*nr]
	for r, x := range d {
		if x > f[r]+pg.pk.eps[r] {
			return false
		}
	}
	return true
}

// find returns the node where a task of job j and the role goes (see the
// rules above), or -1 when no node has room for it.
func (pg *packing) find(j, role int, d []float64) int {
	return pg.findID(j, pg.pk.demandID[j][role], d)
}

// findID is find for a task of demand id.
func (pg *packing) findID(j, id int, d []float64) int {
	return pg.findFrom(int(pg.last[j]), id, d)
}

// findFrom is find for a task of demand id whose job's last task went to
// node last (pg.last).
func (pg *packing) findFrom(last, id int, d []float64) int {
	if i := last; i >= 0 && pg.fits(i, d) {
		return i
	}
	for _, c := range pg.pk.prefer[id] {
		if i := pg.firstFit(c, id, d); i >= 0 {
			return i
		}
	}
	return -1
}

// firstFit returns the first node of class c, in cluster order, with room
// for a task of demand d (demand id), or -1.
func (pg *packing) firstFit(c, id int, d []float64) int {
	cl := &pg.pk.classes[c]
	s := &pg.start[id*len(pg.pk.classes)+c]
	if *s < len(cl.nodes) && pg.fits(cl.nodes[*s], d) {
		return cl.nodes[*s] // where the last search ended, usually the answer
	}
	pg.sync()
	k := pg.tree[c].First(*s, d, nil)
	if k < 0 {
		*s = len(cl.nodes)
		return -1
	}
	*s = k
	return cl.nodes[k]
}

// take puts count tasks of job j and the role, of demand d, on node i.
func (pg *packing) take(j, role int, d []float64, i, count int) {
	pg.put(j, role, d, i, count, pg.last[j])
	pg.last[j] = int32(i)
}

// put is take without last: the job's last node before is prev.
func (pg *packing) put(j, role int, d []float64, i, count int, prev int32) {
	pg.adjust(i, d, count)
	if n := len(pg.log); n == 0 || len(pg.log[n-1]) == logChunk {
		// The first chunk starts small and grows (most plans of a small
		// cluster place tens of tasks, and every candidate plan makes a
		// packing); later chunks are whole.
		size := logChunk
		if n == 0 {
			size = 64
		}
		pg.log = append(pg.log, make([]placement, 0, size))
	}
	n := len(pg.log) - 1
	if len(pg.log[n]) == cap(pg.log[n]) {
		grown := make([]placement, len(pg.log[n]), min(2*cap(pg.log[n]), logChunk))
		copy(grown, pg.log[n])
		pg.log[n] = grown
	}
	pg.log[n] = append(pg.log[n], placement{job: int32(j), node: int32(i), prev: prev, role: int32(role), count: int32(count)})
}

// untake takes the last placement off again.
func (pg *packing) untake(in *instance) {
	n := len(pg.log) - 1
	chunk := pg.log[n]
	p := chunk[len(chunk)-1]
	pg.log[n] = chunk[:len(chunk)-1]
	if len(pg.log[n]) == 0 {
		pg.log = pg.log[:n]
	}
	pg.adjust(int(p.node), in.demand[p.job][p.role], -int(p.count))
	pg.last[p.job] = p.prev
	clear(pg.start) // free capacity grew
}

// adjust subtracts count tasks of demand d from node i's free capacity
// (its class's tree sees it at the next sync).
func (pg *packing) adjust(i int, d []float64, count int) {
	nr := pg.pk.nr
	f := pg.free[i*nr : (i+1)*nr]
	for r, x := range d {
		f[r] -= float64(count) * x
	}
	if !pg.isDirty[i] {
		pg.isDirty[i] = true
		pg.dirty = append(pg.dirty, int32(i))
	}
}

// sync brings the trees up to date with the free capacities.
func (pg *packing) sync() {
	pk, nr := pg.pk, pg.pk.nr
	for _, i := range pg.dirty {
		at := pk.at[i]
		pg.tree[at.class].Set(int(at.slot), pg.free[int(i)*nr:(int(i)+1)*nr])
		pg.isDirty[i] = false
	}
	pg.dirty = pg.dirty[:0]
}

// add places nw workers and np PS of job j, alternating from a worker (the
// more constrained on GPU clusters), or none of them: it reports whether
// they all found room.
func (pg *packing) add(in *instance, j, nw, np int) bool {
	done := 0
	for k := 0; k < max(nw, np); k++ {
		for _, role := range [2]int{worker, ps} {
			if role == worker && k >= nw || role == ps && k >= np {
				continue
			}
			d := in.dem(j, role)
			i := pg.find(j, role, d)
			if i < 0 {
				for range done {
					pg.untake(in)
				}
				return false
			}
			pg.take(j, role, d, i, 1)
			done++
		}
	}
	return true
}

// addTask places one task of job j and the role, of demand d (demand id),
// as add does, given the job's last node: it returns the node, or -1 when
// no node has room. The greedy keeps each job's last node in its own
// record, read beside the rest, and writes them to pg.last before a
// repack and at its end (writeAllocation): last[j] is neither read nor
// written here (at a million tasks each is a cache miss).
func (pg *packing) addTask(j, role, id int, d []float64, last int) int {
	i := pg.findFrom(last, id, d)
	if i >= 0 {
		pg.put(j, role, d, i, 1, int32(last))
	}
	return i
}
