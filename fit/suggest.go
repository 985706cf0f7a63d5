package fit

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Config is a number of parameter servers and workers; for AllReduce (PS
// 0) also the nodes the workers span and their per-GPU batch (0: one node,
// the job's M/w), as in SpeedSample.
type Config struct {
	PS, Workers int
	Nodes       int
	LocalBatch  float64
}

// SampleConfig is the configuration a sample was measured at.
// An all-reduce sample (PS 0) of unknown nodes is on one node.
func SampleConfig(s SpeedSample) Config {
	c := Config{PS: s.PS, Workers: s.Workers, Nodes: s.Nodes, LocalBatch: s.LocalBatch}
	if c.PS == 0 && c.Nodes == 0 {
		c.Nodes = 1
	}
	return c
}

func compareConfigs(a, b Config) int {
	return cmp.Or(cmp.Compare(a.PS, b.PS), cmp.Compare(a.Workers, b.Workers),
		cmp.Compare(a.Nodes, b.Nodes), cmp.Compare(a.LocalBatch, b.LocalBatch))
}

// SuggestConfigs chooses n configurations from candidates to measure next:
// each pick is the candidate farthest from every configuration measured or
// picked so far, with p and w scaled to the candidates' ranges
// (farthest-point sampling). The picks spread over the whole range of p
// and w rather than along p == w, as the authors' code samples, where the
// w/p term is constant and cannot be told apart from the constant term.
//
// For all-reduce candidates (PS 0) the nodes (and a per-GPU batch, where
// given) count as further dimensions,
// and being on one GPU or many, on one node or many, as two more: the
// model's terms switch on there.
//
// Spread beats the alternatives we measured on the DL2 measurements, random
// choice and greedy D-optimal design (which favours the extreme corners,
// where the model fits worst): see docs/models.md. Ties break by (p, w), so
// the choice is deterministic.
func SuggestConfigs(measured, candidates []Config, n int) []Config {
	cands := slices.Clone(candidates)
	slices.SortFunc(cands, compareConfigs)
	cands = slices.Compact(cands)
	maxP, maxW := 1.0, 1.0
	for _, c := range append(slices.Clone(measured), cands...) {
		maxP, maxW = math.Max(maxP, float64(c.PS)), math.Max(maxW, float64(c.Workers))
	}
	maxN, maxL := 1.0, 1.0
	for _, c := range append(slices.Clone(measured), cands...) {
		maxN, maxL = math.Max(maxN, float64(c.Nodes)), math.Max(maxL, c.LocalBatch)
	}
	dist := func(a, b Config) float64 {
		dp := float64(a.PS-b.PS) / maxP
		dw := float64(a.Workers-b.Workers) / maxW
		dn := float64(a.Nodes-b.Nodes) / maxN
		dl := (a.LocalBatch - b.LocalBatch) / maxL
		d := dp*dp + dw*dw + dn*dn + dl*dl
		if a.PS == 0 && b.PS == 0 {
			// All-reduce: the model switches terms on with w > 1 and
			// n > 1, so configurations on either side of those steps
			// are far apart whatever their counts.
			d += step(a.Workers > 1, b.Workers > 1) + step(a.Nodes > 1, b.Nodes > 1)
		}
		return d
	}
	near := make([]float64, len(cands))
	for i, c := range cands {
		near[i] = math.Inf(1)
		for _, m := range measured {
			near[i] = math.Min(near[i], dist(c, m))
		}
	}
	var picks []Config
	for len(picks) < n {
		best := -1
		for i := range cands {
			if near[i] > 0 && (best < 0 || near[i] > near[best]) {
				best = i
			}
		}
		if best < 0 {
			break // every candidate is measured or picked
		}
		pick := cands[best]
		picks = append(picks, pick)
		for i, c := range cands {
			near[i] = math.Min(near[i], dist(c, pick))
		}
	}
	return picks
}

// Identifiable reports whether speed samples at configs determine every
// coefficient of the mode's model: whether the regressors x(p, w) of the
// distinct configurations have full column rank.
func Identifiable(mode string, globalBatch float64, configs []Config) bool {
	k := NumTheta(mode)
	distinct := slices.Clone(configs)
	slices.SortFunc(distinct, compareConfigs)
	distinct = slices.Compact(distinct)
	if len(distinct) < k {
		return false
	}
	a := mat.NewDense(len(distinct), k, nil)
	x := make([]float64, 5)
	for i, c := range distinct {
		sampleRow(mode, globalBatch, SpeedSample{PS: c.PS, Workers: c.Workers, Nodes: c.Nodes, LocalBatch: c.LocalBatch}, x)
		for j := 0; j < k; j++ {
			a.Set(i, j, x[j])
		}
	}
	// Scale columns so that the rank test does not depend on units.
	for j := 0; j < k; j++ {
		n := mat.Norm(a.ColView(j), 2)
		for i := 0; i < len(distinct); i++ {
			a.Set(i, j, a.At(i, j)/n)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		return false
	}
	v := svd.Values(nil)
	return v[len(v)-1] > 1e-9*v[0]
}

// AllReduceGrid lists every all-reduce configuration of 1..maxWorkers
// workers on the fewest nodes of workersPerNode that hold them and, where
// that is more than one node, also spread one per node up to maxNodes, so
// that the network terms can be told from the others.
func AllReduceGrid(maxWorkers, workersPerNode, maxNodes int) []Config {
	var out []Config
	workersPerNode = max(workersPerNode, 1)
	for w := 1; w <= maxWorkers; w++ {
		n := (w + workersPerNode - 1) / workersPerNode
		out = append(out, Config{Workers: w, Nodes: n})
		if spread := min(w, maxNodes); spread > n {
			out = append(out, Config{Workers: w, Nodes: spread})
		}
	}
	return out
}

// Grid lists every configuration with 1..maxPS servers and 1..maxWorkers
// workers.
func Grid(maxPS, maxWorkers int) []Config {
	var out []Config
	for p := 1; p <= maxPS; p++ {
		for w := 1; w <= maxWorkers; w++ {
			out = append(out, Config{PS: p, Workers: w})
		}
	}
	return out
}

// step is 1 when a and b differ, else 0.
func step(a, b bool) float64 {
	if a != b {
		return 1
	}
	return 0
}
