package fit

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// ConvergencePrediction is when a fitted curve meets the convergence rule.
type ConvergencePrediction struct {
	// Epochs to convergence, counted from step 0: the best fit's (P50) and
	// the range spanned by the fits at b2's 10th and 90th percentiles.
	P10, P50, P90 int
	Capped        bool    // the best fit reaches the rule's cap first
	Final         float64 // the metric at P50 under the best fit, in its own units
}

// PredictConvergence applies the rule to a fit. The fit's curve is
// normalised by its first value, so the rule's scale is 1.
func PredictConvergence(f LossFit, epochSteps float64, rule Rule) ConvergencePrediction {
	var p ConvergencePrediction
	p.P50, p.Capped = rule.ConvergenceEpoch(f.Curve, epochSteps, 1)
	p.P10, p.P90 = p.P50, p.P50
	// Parametric uncertainty: sample (b0, b1, b2) from the Laplace
	// approximation (deterministically) and take the rule's epochs' 10th and
	// 90th percentiles.
	if samples := laplaceEpochs(f, epochSteps, rule, 200); len(samples) > 0 {
		p.P10 = min(p.P10, int(Quantile(samples, 0.1)))
		p.P90 = max(p.P90, int(math.Ceil(Quantile(samples, 0.9))))
	}
	// Widen by the drift between the predictions of the fits to parts of
	// the points (the first half, three quarters, the second half) and the
	// best fit's: a symmetric allowance for the curve not being 1/k-shaped.
	drift := 0
	for _, c := range append(f.Early[:], f.Recent) {
		e, _ := rule.ConvergenceEpoch(c, epochSteps, 1)
		drift = max(drift, e-p.P50, p.P50-e)
	}
	p.P10 = max(rule.Window, min(p.P10, p.P50-drift))
	p.P90 = min(rule.Cap, max(p.P90, p.P50+drift))
	p.Final = f.Value(f.Curve.At(float64(p.P50) * epochSteps))
	if math.IsNaN(p.Final) {
		p.Final = f.Value(f.Curve.B2)
	}
	return p
}

func laplaceEpochs(f LossFit, epochSteps float64, rule Rule, n int) []float64 {
	cov := mat.NewSymDense(3, nil)
	for a := 0; a < 3; a++ {
		for b := a; b < 3; b++ {
			cov.SetSym(a, b, f.Cov[a][b])
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		return nil
	}
	var l mat.TriDense
	chol.LTo(&l)
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		z := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		var d [3]float64
		for a := 0; a < 3; a++ {
			for b := 0; b <= a; b++ {
				d[a] += l.At(a, b) * z[b]
			}
		}
		c := Curve{B0: math.Max(0, f.Curve.B0+d[0]), B1: math.Max(1e-12, f.Curve.B1+d[1]), B2: math.Max(0, f.Curve.B2+d[2])}
		e, _ := rule.ConvergenceEpoch(c, epochSteps, 1)
		out = append(out, float64(e))
	}
	return out
}
