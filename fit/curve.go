package fit

import "math"

// Curve is the convergence model of Optimus (section 3.1): training loss
// after k steps,
//
//	l(k) = 1/(B0·k + B1) + B2,  B0, B1, B2 >= 0,
//
// the O(1/k) convergence of SGD. B2 is the loss it tends to.
type Curve struct{ B0, B1, B2 float64 }

// At is l(k).
func (c Curve) At(k float64) float64 { return 1/(c.B0*k+c.B1) + c.B2 }

// Rule decides when a curve has converged, as the Optimus authors' scheduler
// does: at the first whole epoch e >= Window at which the loss fell by no
// more than Threshold over the previous Window epochs, with the loss
// measured relative to its scale (the loss at the start, so that one
// threshold fits every job). A curve that has not converged by Cap epochs
// stops at Cap. The authors' code uses a window of 10 epochs and a cap of
// 100 on raw losses with an absolute threshold of 0.05.
type Rule struct {
	Threshold float64 // largest relative fall over Window epochs that counts as converged
	Window    int     // epochs
	Cap       int     // epochs
}

// DefaultRule is the rule optimus uses unless told otherwise: 2% of the
// initial loss over 10 epochs (0.05 absolute on a cross-entropy loss that
// starts near 2.3, as in the authors' CIFAR-10 jobs), at most 100 epochs.
var DefaultRule = Rule{Threshold: 0.02, Window: 10, Cap: 100}

// ConvergenceEpoch is the epoch at which the curve, sampled at whole epochs
// of epochSteps steps and divided by scale, meets the rule, and whether the
// cap was reached first. Because l is convex and decreasing, its fall over a
// fixed window only shrinks with time, so the first such epoch is found by
// bisection.
func (r Rule) ConvergenceEpoch(c Curve, epochSteps, scale float64) (epoch int, capped bool) {
	fall := func(e int) float64 {
		return (c.At(float64(e-r.Window)*epochSteps) - c.At(float64(e)*epochSteps)) / scale
	}
	converged := func(e int) bool { return fall(e) <= r.Threshold || math.IsNaN(fall(e)) }
	lo, hi := r.Window, r.Cap
	if hi < lo {
		return r.Cap, true
	}
	if !converged(hi) {
		return r.Cap, true
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if converged(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, false
}
