package goodput

import (
	"math"
	"math/rand/v2"
	"slices"
)

// AllocJob is one job of an allocation search.
type AllocJob struct {
	// Speedup is the job's speedup on (nodes, replicas), 0 for none.
	Speedup func(nodes, replicas int) float64
	// Demand is one replica's demand of each resource.
	Demand []float64
	// MaxReplicas bounds the job's replicas (> 0).
	MaxReplicas int
	// Current is the replicas the job holds on each node now (nil: none).
	Current []int
	// RestartFactor multiplies the job's speedup in an allocation that
	// changes Current (Pollux: the share of its age not lost to restarts).
	RestartFactor float64
}

// AllocProblem is one round of Pollux's allocation search.
type AllocProblem struct {
	// Capacity is each node's capacity of each resource.
	Capacity [][]float64
	// Jobs in priority order: a job earlier in the list keeps a node's
	// capacity, and its node to itself if it spans several, before a later
	// one (Pollux: least attained service first, then the oldest).
	Jobs []AllocJob
	// Seeds are allocations to start from besides the current one (the
	// previous round's best, adapted to this round's jobs), each
	// len(Jobs)·len(Capacity) replicas, job by job.
	Seeds [][]int
	// PopSize and Generations size the search (0: Pollux's 100 and 100).
	PopSize, Generations int
	// Seed seeds the search's randomness.
	Seed1, Seed2 uint64
	// NoAvoidance allows several jobs that span nodes to share one (Pollux
	// keeps at most one, to avoid their interference).
	NoAvoidance bool
}

// AllocResult is the search's outcome.
type AllocResult struct {
	// Best is the allocation of the highest fitness, job by job, node by
	// node.
	Best []int
	// Front are the allocations no other of the final population beats
	// both in fitness and in cluster utility, to seed the next round with.
	Front [][]int
	// Fitness is Best's.
	Fitness float64
}

// Defaults of the search (Pollux's NSGA-II: pymoo's population 100 for 100
// generations), and its operators' probabilities.
const (
	DefaultPopSize     = 100
	DefaultGenerations = 100
	crossoverProb      = 0.9 // pymoo's default
	resetProb          = 0.1 // a job's row back to the current allocation
	zeroRowProb        = 0.1 // a job's row has elements zeroed ...
	zeroElemProb       = 0.1 // ... each with this probability
)

// Allocate searches, as Pollux's scheduler does (Qiao et al., OSDI 2021,
// section 4.2; petuum/adaptdl osdi21-artifact simulator/pollux.py), for
// the allocation of replicas to nodes that maximises the power mean with
// exponent -1 (a fair mean: the slowest jobs weigh most) over the jobs of
//
//	s_j = Speedup_j(nodes_j, replicas_j) · d_j · N · (RestartFactor_j if j's allocation changes)
//
// d_j the job's dominant share of one replica and N the number of nodes
// (s = 1 at a dominant share of one node), with a genetic algorithm:
// single-point crossover over jobs, mutation (a job's row back to its
// current allocation, elements zeroed, elements raised at random where the
// job fits), and repair (interference avoidance: at most one job that
// spans several nodes on a node; MaxReplicas, over the nodes in random
// order; the nodes' capacity, to the jobs in order).
//
// Pollux runs NSGA-II on two objectives, this mean and the cluster
// utility, and takes the member of the final Pareto front of the best
// mean; here the search keeps the PopSize fittest by the mean alone (a
// single-objective elitist GA with binary tournaments) and carries the
// Pareto front of the final population to the next round, as Pollux does.
func Allocate(p *AllocProblem) AllocResult {
	s := newSearch(p)
	pop := s.initial()
	gens := s.gens
	if s.nj == 0 {
		// The one allocation is empty: no generation can add another
		// (TestNoJobsNoGenerations), yet each would try 4·PopSize.
		gens = 0
	}
	for range gens {
		pop = s.generation(pop)
	}
	best := pop[0]
	return AllocResult{Best: best.x, Fitness: best.fit, Front: s.front(pop)}
}

type member struct {
	x   []int
	fit float64
}

type search struct {
	p          *AllocProblem
	nj, nn, nr int
	rng        *rand.Rand
	src        *rand.PCG // rng's source, for float64 without the interface call
	scale      []float64 // d_j · N
	perNode    [][]int   // the most replicas of job j node n holds
	current    []int
	popSize    int
	gens       int
	total      []float64
	seen       map[uint64]bool
	// scratch of mutate and repair
	free  []float64   // node by node, resource by resource
	capac []float64   // Capacity, flat as free
	fits  []bool      // by demand class, node by node
	class []int       // job j's demand class: jobs of equal Demand share one
	kinds [][]float64 // each class's Demand
	fitN  []int       // how many nodes each class fits on
	taken []bool
	perm  []int
	room  []float64
	spare [][]int // allocations of discarded candidates, to reuse
}

func newSearch(p *AllocProblem) *search {
	src := rand.NewPCG(p.Seed1, p.Seed2)
	s := &search{p: p, nj: len(p.Jobs), nn: len(p.Capacity), popSize: p.PopSize, gens: p.Generations,
		rng: rand.New(src), src: src}
	if s.popSize <= 0 {
		s.popSize = DefaultPopSize
	}
	if s.gens < 0 || p.Generations == 0 {
		s.gens = DefaultGenerations
	}
	if s.nn > 0 {
		s.nr = len(p.Capacity[0])
	}
	s.free, s.capac, s.room = make([]float64, s.nn*s.nr), make([]float64, s.nn*s.nr), make([]float64, s.nn*s.nr)
	for n, c := range p.Capacity {
		copy(s.capac[n*s.nr:(n+1)*s.nr], c)
	}
	s.taken, s.perm = make([]bool, s.nn), make([]int, s.nn)
	s.class = make([]int, s.nj)
	for j, job := range p.Jobs {
		k := slices.IndexFunc(s.kinds, func(d []float64) bool { return slices.Equal(d, job.Demand) })
		if k < 0 {
			k = len(s.kinds)
			s.kinds = append(s.kinds, job.Demand)
		}
		s.class[j] = k
	}
	s.fits, s.fitN = make([]bool, len(s.kinds)*s.nn), make([]int, len(s.kinds))
	s.total = make([]float64, s.nr)
	for _, c := range p.Capacity {
		for r, x := range c {
			s.total[r] += x
		}
	}
	s.scale = make([]float64, s.nj)
	s.perNode = make([][]int, s.nj)
	s.current = make([]int, s.nj*s.nn)
	for j, job := range p.Jobs {
		d := 0.0
		for r, x := range job.Demand {
			if s.total[r] > 0 {
				d = math.Max(d, x/s.total[r])
			}
		}
		s.scale[j] = d * float64(s.nn)
		s.perNode[j] = make([]int, s.nn)
		for n, c := range p.Capacity {
			m := math.MaxInt
			for r, x := range job.Demand {
				if x > 0 {
					m = min(m, int(math.Floor(c[r]/x+1e-9)))
				}
			}
			if m == math.MaxInt {
				m = 0
			}
			s.perNode[j][n] = m
		}
		copy(s.current[j*s.nn:(j+1)*s.nn], job.Current)
	}
	return s
}

// uniform is s.rng.Float64(), the same draw from the same stream.
func (s *search) uniform() float64 { return float64(s.src.Uint64()<<11>>11) / (1 << 53) }

// clone is a copy of x, in a spare slice if there is one.
func (s *search) clone(x []int) []int {
	if k := len(s.spare); k > 0 {
		y := s.spare[k-1]
		s.spare = s.spare[:k-1]
		copy(y, x)
		return y
	}
	return slices.Clone(x)
}

// row is job j's part of x.
func (s *search) row(x []int, j int) []int { return x[j*s.nn : (j+1)*s.nn] }

// fitness is the power mean (exponent -1) of the jobs' scaled speedups.
func (s *search) fitness(x []int) float64 {
	if s.nj == 0 {
		return 0
	}
	sum := 0.0
	for j := range s.nj {
		row := s.row(x, j)
		nodes, reps := 0, 0
		for _, c := range row {
			if c > 0 {
				nodes++
				reps += c
			}
		}
		v := 0.0
		if reps > 0 {
			v = s.p.Jobs[j].Speedup(nodes, reps) * s.scale[j]
		}
		if !slices.Equal(row, s.row(s.current, j)) {
			v *= s.p.Jobs[j].RestartFactor
		}
		sum += 1 / (v + 1e-3)
	}
	return float64(s.nj) / sum
}

// utility is the cluster utility of x: the jobs' speedup per replica,
// weighted by their share of the busiest resource of the nodes in use.
func (s *search) utility(x []int) float64 {
	used := make([]bool, s.nn)
	for j := range s.nj {
		for n, c := range s.row(x, j) {
			if c > 0 {
				used[n] = true
			}
		}
	}
	total := make([]float64, s.nr)
	for n, u := range used {
		if u {
			for r, c := range s.p.Capacity[n] {
				total[r] += c
			}
		}
	}
	best := 0.0
	for r := range s.nr {
		u := 0.0
		for j := range s.nj {
			row := s.row(x, j)
			nodes, reps := 0, 0
			for _, c := range row {
				if c > 0 {
					nodes++
					reps += c
				}
			}
			if reps == 0 || total[r] == 0 {
				continue
			}
			share := float64(reps) * s.p.Jobs[j].Demand[r] / total[r]
			u += s.p.Jobs[j].Speedup(nodes, reps) / float64(reps) * share
		}
		best = math.Max(best, u)
	}
	return best
}

func (s *search) initial() []member {
	s.seen = map[uint64]bool{}
	var pop []member
	add := func(x []int) {
		s.repair(x)
		if s.fresh(x) {
			pop = append(pop, member{x, s.fitness(x)})
		}
	}
	if len(s.p.Seeds) == 0 {
		add(slices.Clone(s.current))
	}
	for _, x := range s.p.Seeds {
		if len(x) == s.nj*s.nn {
			add(slices.Clone(x))
		}
	}
	if len(pop) == 0 {
		add(slices.Clone(s.current))
		if len(pop) == 0 {
			pop = append(pop, member{slices.Clone(s.current), s.fitness(s.current)})
		}
	}
	sortPop(pop)
	return pop
}

// fresh reports whether x is new to the search (pymoo removes duplicates),
// by a 64-bit FNV-1a hash of it.
func (s *search) fresh(x []int) bool {
	k := uint64(14695981039346656037)
	for _, c := range x {
		k ^= uint64(c)
		k *= 1099511628211
	}
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	return true
}

func sortPop(pop []member) {
	slices.SortStableFunc(pop, func(a, b member) int {
		switch {
		case a.fit > b.fit:
			return -1
		case a.fit < b.fit:
			return 1
		}
		return 0
	})
}

// generation makes PopSize offspring and keeps the PopSize fittest of
// parents and offspring.
func (s *search) generation(pop []member) []member {
	var kids []member
	for tries := 0; len(kids) < s.popSize && tries < 4*s.popSize; tries++ {
		a, b := s.tournament(pop), s.tournament(pop)
		x, y := s.clone(a.x), s.clone(b.x)
		if s.uniform() < crossoverProb {
			point := s.rng.IntN(max(s.nj, 1))
			for j := range point {
				ra, rb := s.row(x, j), s.row(y, j)
				for n := range ra {
					ra[n], rb[n] = rb[n], ra[n]
				}
			}
		}
		for _, z := range [2][]int{x, y} {
			s.mutate(z)
			s.repair(z)
			if s.fresh(z) && len(kids) < s.popSize {
				kids = append(kids, member{z, s.fitness(z)})
			} else {
				s.spare = append(s.spare, z)
			}
		}
	}
	pop = append(pop, kids...)
	sortPop(pop)
	if len(pop) > s.popSize {
		// Nothing else holds the dropped members' allocations.
		for _, m := range pop[s.popSize:] {
			s.spare = append(s.spare, m.x)
		}
		pop = pop[:s.popSize]
	}
	return pop
}

// tournament is the fitter of two members drawn at random.
func (s *search) tournament(pop []member) member {
	a, b := pop[s.rng.IntN(len(pop))], pop[s.rng.IntN(len(pop))]
	if b.fit > a.fit {
		return b
	}
	return a
}

// mutate is Pollux's mutation: rows back to the current allocation, some
// elements zeroed, and elements raised at random (each node a job fits on
// with probability 1/the number of such nodes, more where it is already).
func (s *search) mutate(x []int) {
	for j := range s.nj {
		row := s.row(x, j)
		if s.uniform() < resetProb {
			copy(row, s.row(s.current, j))
		}
		if s.uniform() < zeroRowProb {
			for n := range row {
				if s.uniform() < zeroElemProb {
					row[n] = 0
				}
			}
		}
	}
	// Each node's free capacity, the jobs' demands taken in job order (as
	// node by node).
	free, nr := s.free, s.nr
	copy(free, s.capac)
	for j := range s.nj {
		dem := s.p.Jobs[j].Demand
		for n, c := range s.row(x, j) {
			if c > 0 {
				f := free[n*nr : (n+1)*nr]
				for r, d := range dem {
					f[r] -= float64(c) * d
				}
			}
		}
	}
	// Where a replica fits is the same for jobs of the same demand (free
	// does not change below).
	for k, dem := range s.kinds {
		fits, n1 := s.fits[k*s.nn:(k+1)*s.nn], 0
		for n := range s.nn {
			f := free[n*nr : (n+1)*nr]
			fit := true
			for r, d := range dem {
				if d > f[r] {
					fit = false
					break
				}
			}
			fits[n] = fit
			if fit {
				n1++
			}
		}
		s.fitN[k] = n1
	}
	for j := range s.nj {
		row := s.row(x, j)
		k := s.class[j]
		fits, n1, n2 := s.fits[k*s.nn:(k+1)*s.nn], s.fitN[k], 0
		if n1 == 0 {
			continue
		}
		for n, fit := range fits {
			if fit && row[n] > 0 {
				n2++
			}
		}
		for n := range s.nn {
			var p1, p2 float64
			if fits[n] {
				p1 = 1 / float64(n1)
				if row[n] > 0 {
					p2 = 1 / float64(n2)
				}
			}
			if s.uniform() < p1+p2-p1*p2 {
				hi := s.perNode[j][n]
				if row[n] <= hi {
					row[n] += s.rng.IntN(hi - row[n] + 1)
				}
			}
		}
	}
}

// repair makes x feasible, as Pollux's repair does: interference
// avoidance, MaxReplicas (over the nodes in a random order), then each
// node's capacity to the jobs in order.
func (s *search) repair(x []int) {
	if !s.p.NoAvoidance {
		taken := s.taken
		clear(taken)
		for j := range s.nj {
			row := s.row(x, j)
			spread := 0
			for _, c := range row {
				if c > 0 {
					spread++
				}
			}
			if spread <= 1 {
				continue
			}
			for n, c := range row {
				if c > 0 {
					if taken[n] {
						row[n] = 0
					}
					taken[n] = true
				}
			}
		}
	}
	perm := s.perm
	for j := range s.nj {
		row := s.row(x, j)
		total := 0
		for _, c := range row {
			total += c
		}
		if total <= s.p.Jobs[j].MaxReplicas {
			continue // nothing to trim: the order of the nodes does not matter
		}
		for i := range perm {
			perm[i] = i
		}
		s.rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		left := s.p.Jobs[j].MaxReplicas
		for _, n := range perm {
			row[n] = min(row[n], max(left, 0))
			left -= row[n]
		}
	}
	// Each node's capacity to the jobs in order (nodes are independent:
	// job by job, node by node is the same).
	room, nr := s.room, s.nr
	copy(room, s.capac)
	for j := range s.nj {
		row := s.row(x, j)
		dem := s.p.Jobs[j].Demand
		for n, c := range row {
			if c <= 0 {
				row[n] = 0
				continue
			}
			free := room[n*nr : (n+1)*nr]
			for r, d := range dem {
				if d > 0 {
					c = min(c, int(math.Floor(math.Max(free[r], 0)/d+1e-9)))
				}
			}
			for r, d := range dem {
				free[r] -= float64(c) * d
			}
			row[n] = c
		}
	}
}

// front is the members of pop that no other member beats in both fitness
// and utility (pop sorted by fitness, best first).
func (s *search) front(pop []member) [][]int {
	var out [][]int
	bestU := math.Inf(-1)
	for _, m := range pop {
		if u := s.utility(m.x); u > bestU {
			out = append(out, m.x)
			bestU = u
		}
	}
	return out
}
