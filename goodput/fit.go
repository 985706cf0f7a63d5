package goodput

import (
	"math"
	"slices"
)

// Sample is one measured configuration: a step of Replicas replicas over
// Nodes nodes at a micro-batch of Atomic examples took StepTime seconds, of
// which GradTime computing (the rest waiting for synchronisation).
type Sample struct {
	Nodes, Replicas    int
	Atomic             float64
	GradTime, StepTime float64
}

// Fit returns the PerfParams closest to samples, as Pollux's simulator fits
// them (goodput.py, fit_perf_params): it minimises the root mean squared
// error of log GradTime and of log StepTime, plus 1e-3·(γ-1)² (a smaller γ
// is easier to fit) and 1e-2·((β_n/α_n)² + (β_r/α_r)²) (the more optimistic
// model), over α, β >= 1e-8 and 1 <= γ <= 10. Parameters the samples cannot
// tell are held: α_c at half the mean GradTime when one micro-batch size
// was seen; α_n, β_n at 1e-8 without a sample over nodes; α_r, β_r without
// one of several replicas on one node; β_n and β_r without one of more than
// 2 replicas. Without a sample over nodes, α_n and β_n are then raised to
// 1.1 times α_r and β_r (the network is slower than a node's bus).
//
// Pollux minimises with scipy's L-BFGS-B and exact gradients; here it is
// Nelder-Mead's simplex search (restarted from its result with a smaller simplex while that improves) on the
// parameters mapped to their bounds (x = 1e-8 + e^z, γ = 1 + 9/(1+e^-z)),
// from the same starting point (α 0.1, β 0.01, γ 1.001): the optimum is
// the same where both find it, the path to it is not.
func Fit(samples []Sample) PerfParams {
	x := [7]float64{1e-1, 1e-2, 1e-1, 1e-2, 1e-1, 1e-2, 1 + 1e-3}
	free := [7]bool{true, true, true, true, true, true, true}
	atomics := map[float64]bool{}
	multiNode, intraNode, many := false, false, false
	meanGrad := 0.0
	for _, s := range samples {
		atomics[s.Atomic] = true
		multiNode = multiNode || s.Nodes > 1
		intraNode = intraNode || (s.Nodes == 1 && s.Replicas > 1)
		many = many || s.Replicas > 2
		meanGrad += s.GradTime
	}
	if len(samples) == 0 {
		return PerfParams{x[0], x[1], x[2], x[3], x[4], x[5], x[6]}
	}
	meanGrad /= float64(len(samples))
	hold := func(i int, v float64) { x[i], free[i] = v, false }
	if len(atomics) == 1 {
		hold(0, meanGrad/2)
	}
	if !multiNode {
		hold(2, tiny)
		hold(3, tiny)
	}
	if !intraNode {
		hold(4, tiny)
		hold(5, tiny)
	}
	if !many {
		hold(3, tiny)
		hold(5, tiny)
	}
	var idx []int
	for i, f := range free {
		if f {
			idx = append(idx, i)
		}
	}
	toParams := func(z []float64) PerfParams {
		v := x
		for k, i := range idx {
			if i == 6 {
				v[i] = 1 + 9/(1+math.Exp(-z[k]))
			} else {
				v[i] = tiny + math.Exp(z[k])
			}
		}
		return PerfParams{v[0], v[1], v[2], v[3], v[4], v[5], v[6]}
	}
	data := newFitData(samples)
	obj := func(z []float64) float64 { return data.objective(toParams(z)) }
	z0 := make([]float64, len(idx))
	for k, i := range idx {
		if i == 6 {
			p := (x[i] - 1) / 9
			z0[k] = math.Log(p / (1 - p))
		} else {
			z0[k] = math.Log(x[i] - tiny)
		}
	}
	best := toParams(z0)
	if len(idx) > 0 {
		z, f := z0, obj(z0)
		for step := 1.0; step > 0.01; step /= 2 {
			z2 := nelderMead(obj, z, step, fitEvals)
			f2 := obj(z2)
			if !(f2 < f-1e-12) {
				break
			}
			z, f = z2, f2
		}
		best = toParams(z)
	}
	if !multiNode {
		best.AlphaN = math.Max(best.AlphaN, best.AlphaR*1.1)
		best.BetaN = math.Max(best.BetaN, best.BetaR*1.1)
	}
	return best
}

// fitData is what every evaluation of Fit's objective needs of the
// samples: log GradTime and log StepTime of each, and the distinct atomic
// batches and (nodes, replicas) pairs they are at, so that an evaluation
// takes a power of the gradient and synchronisation times once per
// distinct value rather than once per sample (a few hundred samples over
// 70 pairs and 5-21 batches; the same operations on the same values, so
// the same bits).
type fitData struct {
	logs          [][2]float64
	atomic, pair  []int // each sample's index in atomics, pairs
	atomics       []float64
	pairs         [][2]int
	logGrad, powG []float64 // per atomic: log GradTime, GradTime^γ
	powS          []float64 // per pair: SyncTime^γ
}

func newFitData(samples []Sample) *fitData {
	d := &fitData{logs: make([][2]float64, len(samples)), atomic: make([]int, len(samples)), pair: make([]int, len(samples))}
	atomicAt, pairAt := map[float64]int{}, map[[2]int]int{}
	for i, s := range samples {
		d.logs[i] = [2]float64{math.Log(s.GradTime), math.Log(s.StepTime)}
		a, ok := atomicAt[s.Atomic]
		if !ok {
			a = len(d.atomics)
			atomicAt[s.Atomic] = a
			d.atomics = append(d.atomics, s.Atomic)
		}
		key := [2]int{s.Nodes, s.Replicas}
		q, ok := pairAt[key]
		if !ok {
			q = len(d.pairs)
			pairAt[key] = q
			d.pairs = append(d.pairs, key)
		}
		d.atomic[i], d.pair[i] = a, q
	}
	d.logGrad, d.powG, d.powS = make([]float64, len(d.atomics)), make([]float64, len(d.atomics)), make([]float64, len(d.pairs))
	return d
}

// objective is Fit's loss of p on the samples: log GradTime's and log
// StepTime's root mean square errors (StepTime as PerfParams.optimTime
// computes it) plus the penalties.
func (d *fitData) objective(p PerfParams) float64 {
	g := p.Gamma
	for k, a := range d.atomics {
		grad := p.GradTime(a)
		d.logGrad[k], d.powG[k] = math.Log(grad), math.Pow(grad, g)
	}
	for k, q := range d.pairs {
		d.powS[k] = math.Pow(p.SyncTime(q[0], q[1]), g)
	}
	var e1, e2 float64
	for i, l := range d.logs {
		a := d.atomic[i]
		d1 := d.logGrad[a] - l[0]
		d2 := math.Log(math.Pow(d.powG[a]+d.powS[d.pair[i]], 1/g)) - l[1]
		e1 += d1 * d1
		e2 += d2 * d2
	}
	n := float64(len(d.logs))
	r1 := p.BetaN / p.AlphaN
	r2 := p.BetaR / p.AlphaR
	return math.Sqrt(e1/n) + math.Sqrt(e2/n) + 1e-3*(p.Gamma-1)*(p.Gamma-1) + 1e-2*(r1*r1+r2*r2)
}

// fitEvals bounds the objective evaluations of one simplex search.
const fitEvals = 1500

// nelderMead minimises f from x0 with the simplex method (reflection 1,
// expansion 2, contraction 1/2, shrink 1/2), the first simplex x0 and x0
// moved by step along each axis, for at most maxEvals evaluations or until
// the simplex's values agree to 1e-10. It returns the best point.
func nelderMead(f func([]float64) float64, x0 []float64, step float64, maxEvals int) []float64 {
	n := len(x0)
	pts := make([][]float64, n+1)
	vals := make([]float64, n+1)
	for i := range pts {
		pts[i] = slices.Clone(x0)
		if i > 0 {
			pts[i][i-1] += step
		}
		vals[i] = f(pts[i])
	}
	evals := n + 1
	order := make([]int, n+1)
	centroid, trial, trial2 := make([]float64, n), make([]float64, n), make([]float64, n)
	at := func(dst []float64, t float64, worst []float64) {
		for k := range dst {
			dst[k] = centroid[k] + t*(worst[k]-centroid[k])
		}
	}
	for evals < maxEvals {
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case vals[a] < vals[b]:
				return -1
			case vals[a] > vals[b]:
				return 1
			}
			return 0
		})
		best, worst, second := order[0], order[n], order[n-1]
		if math.Abs(vals[worst]-vals[best]) <= 1e-10*(1+math.Abs(vals[best])) {
			break
		}
		clear(centroid)
		for _, i := range order[:n] {
			for k := range centroid {
				centroid[k] += pts[i][k] / float64(n)
			}
		}
		at(trial, -1, pts[worst])
		fr := f(trial)
		evals++
		switch {
		case fr < vals[best]:
			at(trial2, -2, pts[worst])
			if fe := f(trial2); fe < fr {
				copy(pts[worst], trial2)
				vals[worst] = fe
			} else {
				copy(pts[worst], trial)
				vals[worst] = fr
			}
			evals++
		case fr < vals[second]:
			copy(pts[worst], trial)
			vals[worst] = fr
		default:
			t := 0.5
			if fr < vals[worst] {
				t = -0.5
			}
			at(trial2, t, pts[worst])
			fc := f(trial2)
			evals++
			if fc < math.Min(fr, vals[worst]) {
				copy(pts[worst], trial2)
				vals[worst] = fc
				continue
			}
			for _, i := range order[1:] {
				for k := range pts[i] {
					pts[i][k] = pts[best][k] + 0.5*(pts[i][k]-pts[best][k])
				}
				vals[i] = f(pts[i])
				evals++
			}
		}
	}
	bi := 0
	for i := range vals {
		if vals[i] < vals[bi] {
			bi = i
		}
	}
	return pts[bi]
}
