package fit

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Config is a number of parameter servers and workers.
type Config struct{ PS, Workers int }

// SuggestConfigs chooses n configurations from candidates to measure next:
// each pick is the candidate farthest from every configuration measured or
// picked so far, with p and w scaled to the candidates' ranges
// (farthest-point sampling). The picks spread over the whole range of p
// and w rather than along p == w, as the authors' code samples, where the
// w/p term is constant and cannot be told apart from the constant term.
//
// Spread beats the alternatives we measured on the DL2 measurements, random
// choice and greedy D-optimal design (which favours the extreme corners,
// where the model fits worst): see docs/models.md. Ties break by (p, w), so
// the choice is deterministic.
func SuggestConfigs(measured, candidates []Config, n int) []Config {
	cands := slices.Clone(candidates)
	slices.SortFunc(cands, func(a, b Config) int {
		if c := cmp.Compare(a.PS, b.PS); c != 0 {
			return c
		}
		return cmp.Compare(a.Workers, b.Workers)
	})
	cands = slices.Compact(cands)
	maxP, maxW := 1.0, 1.0
	for _, c := range append(slices.Clone(measured), cands...) {
		maxP, maxW = math.Max(maxP, float64(c.PS)), math.Max(maxW, float64(c.Workers))
	}
	dist := func(a, b Config) float64 {
		dp := float64(a.PS-b.PS) / maxP
		dw := float64(a.Workers-b.Workers) / maxW
		return dp*dp + dw*dw
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
	slices.SortFunc(distinct, func(a, b Config) int {
		if c := cmp.Compare(a.PS, b.PS); c != 0 {
			return c
		}
		return cmp.Compare(a.Workers, b.Workers)
	})
	distinct = slices.Compact(distinct)
	if len(distinct) < k {
		return false
	}
	a := mat.NewDense(len(distinct), k, nil)
	x := make([]float64, 5)
	for i, c := range distinct {
		row(mode, globalBatch, float64(c.PS), float64(c.Workers), x)
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

// Grid lists every configuration with 1..maxPS servers and 1..maxWorkers
// workers.
func Grid(maxPS, maxWorkers int) []Config {
	var out []Config
	for p := 1; p <= maxPS; p++ {
		for w := 1; w <= maxWorkers; w++ {
			out = append(out, Config{p, w})
		}
	}
	return out
}
