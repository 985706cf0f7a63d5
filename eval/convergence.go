// Package eval measures how well optimus's models predict a user's own
// measurements, by cross-validation: fit on part of the data, predict the
// rest, compare. Operators use it to decide whether to trust the scheduler
// on their cluster.
package eval

import (
	"math"

	"github.com/optimus-sched/optimus/fit"
)

// Curve is a complete training curve: one value per epoch, after epoch 1,
// 2, ..., as a validation log records it.
type Curve struct {
	Name           string
	Values         []float64
	HigherIsBetter bool
}

// ConvergenceResult is the outcome of predicting one curve's convergence
// from its first epochs.
type ConvergenceResult struct {
	Curve    string
	Fraction float64 // share of the epochs observed
	Observed int     // epochs observed
	Epochs   int     // epochs in the whole curve

	// TrueEpoch is the epoch at which the whole curve meets the rule (see
	// TrueConvergence); Censored when it never does within the curve.
	TrueEpoch int
	Censored  bool
	// Predicted convergence epoch, 10th, 50th and 90th percentiles.
	P10, P50, P90 int
	Capped        bool
	// Covered: P10 <= TrueEpoch <= P90 (for a censored truth: P90 beyond
	// the last epoch).
	Covered bool
	// Final metric, in its own units: the truth's smoothed value at
	// TrueEpoch (the last epoch when censored) and the fitted curve's value
	// at P50.
	TrueFinal, PredFinal float64

	Fit fit.LossFit
	Err string // why no prediction was made
}

// EpochError is P50 - TrueEpoch (NaN when there is no prediction or the
// truth is censored).
func (r ConvergenceResult) EpochError() float64 {
	if r.Err != "" || r.Censored {
		return math.NaN()
	}
	return float64(r.P50 - r.TrueEpoch)
}

// TrueConvergence applies the convergence rule to a whole observed curve:
// the values (complemented when higher is better, as the fitter does) are
// smoothed into a non-increasing sequence by isotonic regression, so that
// noise neither triggers nor delays the rule, and the curve has converged
// at the first whole epoch from which on the smoothed value falls by no
// more than the threshold (times the first smoothed value) over every later
// window. "From which on" matters for real curves: a plateau followed by a
// learning-rate drop has not converged. A fitted 1/k curve's fall only
// shrinks, so for it this is the rule's first epoch, as in
// fit.Rule.ConvergenceEpoch. It returns the epoch (1-based) and false, or
// the last epoch and true when the curve was still falling faster at its
// end (censored: it converges later, or was stopped first).
//
// A curve without values has no epoch: it returns 0 and true.
func TrueConvergence(values []float64, higherIsBetter bool, rule fit.Rule) (epoch int, censored bool, smoothed []float64) {
	if len(values) == 0 {
		return 0, true, nil
	}
	y := complemented(values, higherIsBetter)
	s := isotonicDecreasing(y)
	n := len(s)
	scale := s[0]
	last := min(n, rule.Cap)
	epoch = rule.Window // converged as soon as the rule can be applied, unless a later fall says otherwise
	for e := rule.Window + 1; e <= last; e++ {
		if (s[e-1-rule.Window]-s[e-1])/scale > rule.Threshold {
			epoch = e + 1
		}
	}
	switch {
	case last <= rule.Window:
		return n, true, s // too short to apply the rule
	case epoch <= last:
		return epoch, false, s
	case n >= rule.Cap:
		return rule.Cap, false, s
	}
	return n, true, s
}

// complemented turns a higher-is-better metric into a lower-is-better one
// the way fit.FitLoss does (1 - v, or 100 - v for percentages).
func complemented(values []float64, higherIsBetter bool) []float64 {
	y := make([]float64, len(values))
	copy(y, values)
	if base := complementBase(values, higherIsBetter); base > 0 {
		for i := range y {
			y[i] = base - y[i]
		}
	}
	return y
}

// complementBase is 0 for a lower-is-better metric, else 1 for values in
// [0, 1] and 100 for percentages.
func complementBase(values []float64, higherIsBetter bool) float64 {
	if !higherIsBetter {
		return 0
	}
	for _, v := range values {
		if v > 1 {
			return 100
		}
	}
	return 1
}

// isotonicDecreasing is the least-squares non-increasing fit to y, by the
// pool-adjacent-violators algorithm.
func isotonicDecreasing(y []float64) []float64 {
	type block struct {
		sum  float64
		n    int
		mean float64
	}
	var blocks []block
	for _, v := range y {
		blocks = append(blocks, block{v, 1, v})
		for len(blocks) > 1 && blocks[len(blocks)-2].mean < blocks[len(blocks)-1].mean {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			m := block{a.sum + b.sum, a.n + b.n, 0}
			m.mean = m.sum / float64(m.n)
			blocks = append(blocks[:len(blocks)-2], m)
		}
	}
	out := make([]float64, 0, len(y))
	for _, b := range blocks {
		for i := 0; i < b.n; i++ {
			out = append(out, b.mean)
		}
	}
	return out
}

// NoWholeEpoch is the Err of a curve with no value: its log ends within its
// first epoch.
const NoWholeEpoch = "no whole epoch: the log ends before its first epoch does"

// Convergence predicts each curve's convergence epoch from its first epochs
// (each fraction of them in turn) and compares with the truth.
func Convergence(curves []Curve, fractions []float64, rule fit.Rule, opt fit.LossOptions) []ConvergenceResult {
	var out []ConvergenceResult
	for _, c := range curves {
		if len(c.Values) == 0 {
			// No point past the first epoch (one point, a few steps inside
			// an epoch, an epoch longer than the log): nothing to fit or
			// to compare with.
			for _, frac := range fractions {
				out = append(out, ConvergenceResult{Curve: c.Name, Fraction: frac, Censored: true,
					TrueFinal: math.NaN(), PredFinal: math.NaN(), Err: NoWholeEpoch})
			}
			continue
		}
		trueEpoch, censored, smooth := TrueConvergence(c.Values, c.HigherIsBetter, rule)
		trueFinal := smooth[trueEpoch-1]
		if base := complementBase(c.Values, c.HigherIsBetter); base > 0 {
			trueFinal = base - trueFinal
		}
		for _, frac := range fractions {
			r := ConvergenceResult{Curve: c.Name, Fraction: frac, Epochs: len(c.Values),
				TrueEpoch: trueEpoch, Censored: censored, TrueFinal: trueFinal}
			if !(frac > 0 && frac <= 1) {
				r.Err, r.PredFinal = "the share of epochs to observe must be in (0, 1]", math.NaN()
				out = append(out, r)
				continue
			}
			r.Observed = int(math.Ceil(frac * float64(len(c.Values))))
			pts := make([]fit.LossPoint, r.Observed)
			for e := range pts {
				pts[e] = fit.LossPoint{Step: float64(e + 1), Value: c.Values[e]}
			}
			o := opt
			o.HigherIsBetter = c.HigherIsBetter
			f, err := fit.FitLoss(pts, o)
			r.Fit = f
			switch {
			case err != nil:
				r.Err = err.Error()
			case f.Quality == fit.QualityInsufficient:
				r.Err = "too few points"
			default:
				p := fit.PredictConvergence(f, 1, rule)
				r.P10, r.P50, r.P90, r.Capped = p.P10, p.P50, p.P90, p.Capped
				r.PredFinal = p.Final
				if censored {
					r.Covered = r.P90 > len(c.Values)
				} else {
					r.Covered = r.P10 <= trueEpoch && trueEpoch <= r.P90
				}
			}
			out = append(out, r)
		}
	}
	return out
}
