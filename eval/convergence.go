// Package eval measures how well optimus's models predict a user's own
// measurements, by cross-validation: fit on part of the data, predict the
// rest, compare. Operators use it to decide whether to trust the scheduler
// on their cluster.
package eval

import (
	"math"

	"github.com/optimus-sched/optimus/fit"
)

// Curve is a complete training curve.
//
// Values holds one value per whole epoch (after epoch 1, 2, ...), NaN for an
// epoch without an observation (a log evaluated every few epochs): the truth
// is computed from them. Points, when set, are what the fit sees, with steps
// counted in epochs (fractional for per-step logs and for a last, partial
// epoch); without them the fit sees Values at epochs 1, 2, ....
type Curve struct {
	Name           string
	Family         string // model family; the prior draws on the family's other curves
	Values         []float64
	Points         []fit.LossPoint
	HigherIsBetter bool
	// ScheduleEnd is the epoch at which the curve's declared learning-rate
	// schedule ends (0 when none is declared).
	ScheduleEnd float64
	// Budget is the curve's declared epoch budget (the jobs table's
	// epoch_budget, 0 when none): what the job was set to train for, as
	// its training script declares it (never its convergence epoch).
	Budget float64
}

// points is what the fit sees of the curve.
func (c Curve) points() []fit.LossPoint {
	if c.Points != nil {
		return c.Points
	}
	pts := make([]fit.LossPoint, len(c.Values))
	for e, v := range c.Values {
		pts[e] = fit.LossPoint{Step: float64(e + 1), Value: v}
	}
	return pts
}

// length is the curve's extent in epochs.
func (c Curve) length() float64 {
	n := float64(len(c.Values))
	if len(c.Points) > 0 {
		n = math.Max(n, c.Points[len(c.Points)-1].Step)
	}
	return n
}

// ConvergenceResult is the outcome of predicting one curve's convergence
// from its first epochs.
type ConvergenceResult struct {
	Curve    string
	Family   string
	Fraction float64 // share of the epochs observed
	Observed int     // epochs observed
	Epochs   int     // whole epochs in the curve

	// TrueEpoch is the epoch at which the whole curve meets the rule (see
	// TrueConvergence); Censored when it never does within the curve.
	TrueEpoch int
	Censored  bool
	// Predicted convergence epoch, 10th, 50th and 90th percentiles.
	P10, P50, P90 int
	Capped        bool
	// Covered: P10 <= TrueEpoch <= P90; for a censored truth, P90 beyond
	// the last epoch and a predicted final metric no worse than what the
	// curve had already reached (a prediction of convergence at a worse
	// value than the log shows is wrong however far its interval reaches).
	Covered bool
	// Final metric, in its own units: the truth's smoothed value at
	// TrueEpoch (the last epoch when censored) and the fitted curve's value
	// at P50.
	TrueFinal, PredFinal float64
	// PriorWeight is how much the prediction leans on the family prior (0:
	// the fit alone); Floor the evidence's earliest possible epoch (see
	// fit.Evidence); Contradicted, the fit predicted convergence before it.
	PriorWeight  float64
	Floor        int
	Contradicted bool
	Scheduled    bool
	// Plateau: the prediction said converged about now with budget left
	// and was widened to the next likely learning-rate cut; Drops, the
	// step drops seen in the observed log (see fit.Schedule).
	Plateau bool
	Drops   int

	Fit fit.LossFit
	Err string // why no prediction was made
}

// Width is P90 - P10 in epochs (NaN without a prediction).
func (r ConvergenceResult) Width() float64 {
	if r.Err != "" {
		return math.NaN()
	}
	return float64(r.P90 - r.P10)
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
	y := filled(complemented(values, higherIsBetter))
	if y == nil {
		return 0, true, nil
	}
	s := isotonicDecreasing(y)
	n := len(s)
	// The whole curve counts, however long: a curve longer than the rule's
	// cap still converges where it does (the caller warns).
	epoch = lastFall(s, rule) + 1
	switch {
	case n <= rule.Window:
		return n, true, s // too short to apply the rule
	case epoch <= n:
		return epoch, false, s
	}
	return n, true, s
}

// lastFall is the last whole epoch e (1-based) at which the smoothed curve
// s fell by more than the rule's threshold (times its first value) over the
// previous window; Window - 1 when there is none.
func lastFall(s []float64, rule fit.Rule) int {
	last := rule.Window - 1
	for e := rule.Window + 1; e <= len(s); e++ {
		if (s[e-1-rule.Window]-s[e-1])/s[0] > rule.Threshold {
			last = e
		}
	}
	return last
}

// Floor is the evidence a log's per-epoch values give: the earliest epoch
// at which it can still converge, one past the last epoch at which its
// smoothed values fell by more than the threshold over the window (0 for a
// log too short to tell).
func Floor(values []float64, higherIsBetter bool, rule fit.Rule) int {
	y := filled(complemented(values, higherIsBetter))
	if len(y) <= rule.Window {
		return 0
	}
	return lastFall(isotonicDecreasing(y), rule) + 1
}

// Earliest is the epoch at which a log still falling at its end (its floor
// past its last epoch) meets the rule if its window fall keeps shrinking at
// the ratio r of its last window's fall to the window's before: the fall
// over the window ending at epoch n + j is F·r^(j/W), F the last one, so
// the rule (fall <= threshold) is met at n + W·ln(threshold/F)/ln(r),
// rounded up. 0 when the log is not falling at its end, its fall did not
// shrink (r >= 1: no end in sight from the log alone) or it is shorter than
// two windows.
func Earliest(values []float64, higherIsBetter bool, rule fit.Rule) int {
	y := filled(complemented(values, higherIsBetter))
	w, n := rule.Window, len(y)
	if w < 1 || n <= 2*w {
		return 0
	}
	s := isotonicDecreasing(y)
	if s[0] <= 0 {
		return 0
	}
	last := (s[n-1-w] - s[n-1]) / s[0]
	before := (s[n-1-2*w] - s[n-1-w]) / s[0]
	if last <= rule.Threshold || before <= 0 || last >= before {
		return 0
	}
	j := float64(w) * math.Log(rule.Threshold/last) / math.Log(last/before)
	return n + max(1, int(math.Ceil(j-1e-9)))
}

// Soonest is the epoch at which a log still falling at its end (its floor
// past its last epoch) meets the rule if it stops falling now: its smoothed
// values held at the last one, the window falls that end past the log are
// those of its last epochs only, and the rule is met one past the last of
// them above the threshold. No non-increasing continuation of the log meets
// the rule sooner (a further fall can only add to a window's fall), so it
// is the log's own lower end for a job still training. 0 when the log is
// not falling at its end or is not longer than a window.
func Soonest(values []float64, higherIsBetter bool, rule fit.Rule) int {
	y := filled(complemented(values, higherIsBetter))
	w, n := rule.Window, len(y)
	if w < 1 || n <= w {
		return 0
	}
	s := isotonicDecreasing(y)
	if s[0] <= 0 || lastFall(s, rule) < n {
		return 0
	}
	held := append(s[:n:n], make([]float64, w)...)
	for i := n; i < len(held); i++ {
		held[i] = s[n-1]
	}
	return lastFall(held, rule) + 1
}

// filled replaces missing (NaN or infinite) values by linear interpolation
// between their finite neighbours, and leading or trailing ones by the
// nearest finite value; nil when no value is finite. A NaN in the first
// epoch thus neither becomes the rule's scale nor poisons the smoothing.
func filled(y []float64) []float64 {
	var idx []int
	for i, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	out := make([]float64, len(y))
	k := 0
	for i := range y {
		for k+1 < len(idx) && idx[k+1] <= i {
			k++
		}
		switch {
		case i <= idx[0]:
			out[i] = y[idx[0]]
		case k+1 >= len(idx):
			out[i] = y[idx[len(idx)-1]]
		case idx[k] == i:
			out[i] = y[i]
		default:
			a, b := idx[k], idx[k+1]
			out[i] = y[a] + (y[b]-y[a])*float64(i-a)/float64(b-a)
		}
	}
	return out
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

// isotonicDecreasing is the least-squares non-increasing fit to y
// (fit.Isotonic).
func isotonicDecreasing(y []float64) []float64 { return fit.Isotonic(y) }

// NoWholeEpoch is the Err of a curve with no value: its log ends within its
// first epoch.
const NoWholeEpoch = "no whole epoch: the log ends before its first epoch does"

// ConvergenceConfig says what the prediction may use besides the curve's
// own observed points.
type ConvergenceConfig struct {
	// FamilyPrior: the other curves of the same family, complete, as the
	// finished jobs of a family would be on a cluster (leave-one-out: a
	// curve never informs its own prediction). Curves without a family
	// have no prior.
	FamilyPrior bool
	// OtherFamilies, with FamilyPrior, draws the prior from the curves of
	// every other family instead (leave-one-family-out: nothing of a
	// curve's own family informs its prediction).
	OtherFamilies bool
	// Schedules: the curves' declared learning-rate schedules.
	Schedules bool
	// Budgets: the curves' declared epoch budgets (Curve.Budget), as
	// predict has them for a job whose jobs-table row declares one: the
	// prediction is capped there (fit.Evidence.Budget) and the prior's
	// finished curves are scaled by the ratio of the budgets
	// (budgetEpochs) instead of matched by shape. The truth does not
	// change: it is the rule's epoch on the whole curve either way.
	Budgets bool
}

// Convergence predicts each curve's convergence epoch from its first epochs
// (each fraction of them in turn) and compares with the truth, using the
// family prior and declared schedules.
func Convergence(curves []Curve, fractions []float64, rule fit.Rule, opt fit.LossOptions) []ConvergenceResult {
	return ConvergenceWith(curves, fractions, rule, opt, ConvergenceConfig{FamilyPrior: true, Schedules: true})
}

// ConvergenceWith is Convergence with a choice of what to use.
func ConvergenceWith(curves []Curve, fractions []float64, rule fit.Rule, opt fit.LossOptions, cfg ConvergenceConfig) []ConvergenceResult {
	type truth struct {
		epoch    int
		censored bool
		final    float64
		ok       bool
	}
	truths := make([]truth, len(curves))
	for i, c := range curves {
		e, cens, smooth := TrueConvergence(c.Values, c.HigherIsBetter, rule)
		if smooth == nil {
			continue
		}
		// A declared schedule that the curve ran to its end stopped
		// training there: the run converged at its end at the latest,
		// whether the predictor is told of the schedule or not.
		if end := int(math.Ceil(c.ScheduleEnd - 1e-9)); c.ScheduleEnd > 0 && len(smooth) >= end && (cens || e > end) {
			e, cens = end, false
		}
		t := truth{epoch: e, censored: cens, final: smooth[e-1], ok: true}
		if base := complementBase(c.Values, c.HigherIsBetter); base > 0 {
			t.final = base - t.final
		}
		truths[i] = t
	}
	var out []ConvergenceResult
	for ci, c := range curves {
		tr := truths[ci]
		if !tr.ok {
			// No finite value past the first epoch (one point, a few steps
			// inside an epoch, an epoch longer than the log): nothing to
			// fit or to compare with.
			for _, frac := range fractions {
				out = append(out, ConvergenceResult{Curve: c.Name, Family: c.Family, Fraction: frac, Epochs: len(c.Values), Censored: true,
					TrueFinal: math.NaN(), PredFinal: math.NaN(), Err: NoWholeEpoch})
			}
			continue
		}
		var members []familyMember
		if cfg.FamilyPrior && c.Family != "" {
			for k, o := range curves {
				if k != ci && (o.Family == c.Family) != cfg.OtherFamilies && truths[k].ok {
					members = append(members, familyMember{y: filled(complemented(o.Values, o.HigherIsBetter)), epoch: float64(truths[k].epoch), curve: o, censored: truths[k].censored})
				}
			}
		}
		length := c.length()
		for _, frac := range fractions {
			r := ConvergenceResult{Curve: c.Name, Family: c.Family, Fraction: frac, Epochs: len(c.Values),
				TrueEpoch: tr.epoch, Censored: tr.censored, TrueFinal: tr.final, PredFinal: math.NaN()}
			if !(frac > 0 && frac <= 1) {
				r.Err = "the share of epochs to observe must be in (0, 1]"
				out = append(out, r)
				continue
			}
			r.Observed = min(len(c.Values), int(math.Ceil(frac*length-1e-9)))
			cut := math.Max(frac*length, float64(r.Observed))
			var pts []fit.LossPoint
			for _, p := range c.points() {
				if p.Step <= cut+1e-9 {
					pts = append(pts, p)
				}
			}
			f, err := fit.FitLoss(pts, lossOptions(opt, c))
			r.Fit = f
			if err != nil {
				r.Err = err.Error()
				out = append(out, r)
				continue
			}
			ev := fit.Evidence{Floor: Floor(c.Values[:r.Observed], c.HigherIsBetter, rule), Earliest: lowerEnd(c.Values[:r.Observed], c.HigherIsBetter, rule), Schedule: scheduleEvidence(c, r.Observed, f, members, cfg.OtherFamilies, rule)}
			var prior fit.FamilyPrior
			if len(members) > 0 {
				if obs := filled(complemented(c.Values[:r.Observed], c.HigherIsBetter)); obs != nil {
					warp, share := priorParts(obs, budgetOf(c, cfg), members, cfg.Budgets)
					prior = weighted(warp, share, shareWeight(r.Observed, budgetOf(c, cfg), cfg.OtherFamilies))
				}
				prior.Fit = fitRecord(members, r.Observed, opt, rule)
				prior.Prior = priorRecord(members, r.Observed, cfg.OtherFamilies, cfg.Budgets, rule)
			}
			if cfg.Schedules {
				ev.ScheduleEnd = c.ScheduleEnd
			}
			if cfg.Budgets {
				ev.Budget = c.Budget
			}
			fitted := f.Quality != fit.QualityInsufficient
			var p fit.ConvergencePrediction
			if fitted {
				p = fit.PredictConvergence(f, 1, rule)
				r.Capped, r.PredFinal = p.Capped, p.Final
			}
			b := fit.Blend(p, fitted, f.Quality, prior, ev, rule)
			if fitted && cfg.OtherFamilies && len(prior.Epochs) > 0 {
				// Before the first cut, with families left out, the fit's
				// median says nothing of where the schedule ends: the
				// prior alone, but the fit's lower end (the job may yet
				// converge early) is kept.
				if obs := filled(complemented(c.Values[:r.Observed], c.HigherIsBetter)); obs != nil && beforeFirstCut(obs, r.Observed, budgetOf(c, cfg), members, rule) {
					if bp := fit.Blend(p, false, f.Quality, prior, ev, rule); bp.P50 >= 0 {
						bp.P10 = min(bp.P10, b.P10)
						b = bp
					}
				}
			}
			if b.P50 < 0 {
				r.Err = "too few points"
				out = append(out, r)
				continue
			}
			r.P10, r.P50, r.P90 = b.P10, b.P50, b.P90
			r.PriorWeight, r.Floor, r.Contradicted, r.Scheduled = b.PriorWeight, ev.Floor, b.Contradicted, b.Scheduled
			r.Plateau, r.Drops = b.Plateau, len(ev.Schedule.Drops)
			if fitted && r.P50 != p.P50 {
				r.PredFinal = f.Value(f.Curve.At(float64(r.P50)))
			}
			if tr.censored {
				r.Covered = r.P90 > len(c.Values) && !worse(r.PredFinal, tr.final, c.HigherIsBetter)
			} else {
				r.Covered = r.P10 <= tr.epoch && tr.epoch <= r.P90
			}
			out = append(out, r)
		}
	}
	return out
}

// lowerEnd is the evidence's lower end for a log still falling at its end
// (fit.Evidence.Earliest): the sooner of Earliest (its fall shrinking as
// fast as over its last two windows) and Soonest (it stops falling now).
func lowerEnd(values []float64, higherIsBetter bool, rule fit.Rule) int {
	e, s := Earliest(values, higherIsBetter, rule), Soonest(values, higherIsBetter, rule)
	if e == 0 || s > 0 && s < e {
		return s
	}
	return e
}

// worse says whether a predicted final metric is worse than one already
// reached (NaN predictions are not: there is nothing to compare).
func worse(pred, reached float64, higherIsBetter bool) bool {
	if math.IsNaN(pred) || math.IsNaN(reached) {
		return false
	}
	if higherIsBetter {
		return pred < reached
	}
	return pred > reached
}
