package eval

import (
	"math"

	"github.com/optimus-sched/optimus/fit"
)

// familyMember is a finished curve of a family: its per-epoch values
// (complemented, gaps filled) and its convergence epoch.
type familyMember struct {
	y        []float64
	epoch    float64
	curve    Curve
	censored bool
}

// lossOptions are the fit's options for a curve.
func lossOptions(opt fit.LossOptions, c Curve) fit.LossOptions {
	opt.HigherIsBetter = c.HigherIsBetter
	return opt
}

// fitRecord fits each finished member's first epochs (as many as the job
// has run) and scores the fit's median epoch against the member's
// convergence (fit.Record). Members too short to leave anything unseen, or
// too short to fit, are not counted.
func fitRecord(members []familyMember, epochs int, opt fit.LossOptions, rule fit.Rule) fit.Record {
	var r fit.Record
	for _, m := range members {
		if epochs >= len(m.curve.Values) {
			continue
		}
		var pts []fit.LossPoint
		for _, p := range m.curve.points() {
			if p.Step <= float64(epochs)+1e-9 {
				pts = append(pts, p)
			}
		}
		f, err := fit.FitLoss(pts, lossOptions(opt, m.curve))
		if err != nil || f.Quality == fit.QualityInsufficient {
			continue
		}
		r.Add(fit.PredictConvergence(f, 1, rule).P50, int(m.epoch), m.censored)
	}
	return r
}

// priorRecord scores the prior the way fitRecord scores the fit: each
// finished member's first epochs (as many as the job has run) are matched
// against the other members (warpedEpochs) and the prior's median epoch is
// compared with the member's convergence. With crossFamily the other
// members are those of other families than the member's own, so that the
// record says how far curves carry over between families, as they must
// for a job whose own family is left out. The prior's two parts are
// weighed for each member as for the job (shareWeight).
func priorRecord(members []familyMember, epochs int, crossFamily, budgets bool, rule fit.Rule) fit.Record {
	var r fit.Record
	for i, m := range members {
		if epochs >= len(m.curve.Values) || epochs < 3 {
			continue
		}
		var pool []familyMember
		for k, o := range members {
			if k != i && (!crossFamily || o.curve.Family != m.curve.Family) {
				pool = append(pool, o)
			}
		}
		if len(pool) == 0 {
			continue
		}
		budget := 0.0
		if budgets {
			budget = m.curve.Budget
		}
		warp, share := priorParts(m.y[:epochs], budget, pool, budgets)
		prior := weighted(warp, share, shareWeight(epochs, budget, crossFamily))
		b := fit.Blend(fit.ConvergencePrediction{}, false, fit.QualityInsufficient, prior, fit.Evidence{Budget: budget}, rule)
		r.Add(b.P50, int(m.epoch), m.censored)
	}
	return r
}

// budgetOf is the curve's budget when the configuration uses budgets.
func budgetOf(c Curve, cfg ConvergenceConfig) float64 {
	if cfg.Budgets {
		return c.Budget
	}
	return 0
}

// priorParts is the family prior over a job's convergence epoch in two
// parts: each finished member's epoch matched by shape (warpedEpochs),
// and, with budgets and the job's budget known, each member that declared
// one lends its epoch a second time, as the same share of the job's budget
// (budgetEpochs; nil otherwise). Both are kept because neither is right
// for every recipe: a schedule laid out in shares of its budget converges
// at the same share, one cutting every so many epochs at the same epoch;
// the mixture leaves the choice to the job's fit and the prior's record.
// (Measured: the share alone lost coverage at 50% observed on step-curves
// with families left out, 30 -> 27 of 31 on seed 2; both kept 28.)
func priorParts(obs []float64, budget float64, members []familyMember, budgets bool) (warp, share []float64) {
	warp = warpedEpochs(obs, members)
	if !budgets || budget <= 0 {
		return warp, nil
	}
	for _, m := range members {
		if m.curve.Budget > 0 {
			share = append(share, budgetEpochs(m, budget))
		}
	}
	return warp, share
}

// priorEpochs is every epoch of the prior, both parts.
func priorEpochs(obs []float64, budget float64, members []familyMember, budgets bool) []float64 {
	warp, share := priorParts(obs, budget, members, budgets)
	return append(warp, share...)
}

// budgetEpochs is a finished member's convergence epoch stretched to a job
// of the given budget: the same share of the budget. Schedules are laid
// out in shares of the budget (cuts at 30%, 60% and 80%, a cosine to the
// end), so runs of one recipe converge at about the same share.
func budgetEpochs(m familyMember, budget float64) float64 {
	return m.epoch * budget / m.curve.Budget
}

// warpedEpochs is the family prior over a job's convergence epoch, by
// shape: each finished member's curve is stretched in time by the factor
// that best matches the job's observed values (after an affine change of
// scale, since runs of one family start and end at different losses), and
// its convergence epoch stretched alike. A step schedule's drop, or a
// cooldown's bend, seen in the job's log then lines up with the member's.
// A log without such features matches any stretch about equally well; a
// small penalty on the stretch's logarithm then prefers none.
func warpedEpochs(obs []float64, members []familyMember) []float64 {
	var out []float64
	if len(obs) < 3 {
		for _, m := range members {
			out = append(out, m.epoch)
		}
		return out
	}
	var sst float64
	mean := 0.0
	for _, v := range obs {
		mean += v
	}
	mean /= float64(len(obs))
	for _, v := range obs {
		sst += (v - mean) * (v - mean)
	}
	for _, m := range members {
		best, bestLambda := math.Inf(1), 1.0
		for i := -20; i <= 20; i++ {
			lambda := math.Pow(2, float64(i)/20)
			sse, ok := affineSSE(obs, m.y, lambda)
			if !ok {
				continue
			}
			// Relative error plus a penalty on the stretch.
			l := math.Log(lambda)
			score := sse/math.Max(sst, 1e-12) + 0.02*l*l
			if score < best {
				best, bestLambda = score, lambda
			}
		}
		out = append(out, m.epoch/bestLambda)
	}
	return out
}

// affineSSE is the squared error of the best fit obs[t] ≈ a + b·m(λ·(t+1))
// with b >= 0, m read at fractional epochs by linear interpolation; false
// when λ stretches the observed epochs past the member's end.
func affineSSE(obs, m []float64, lambda float64) (float64, bool) {
	n := len(obs)
	if lambda*float64(n) > float64(len(m)) {
		return 0, false
	}
	x := make([]float64, n)
	for t := range obs {
		pos := lambda*float64(t+1) - 1 // 0-based index into m
		switch {
		case pos <= 0:
			x[t] = m[0]
		default:
			k := int(pos)
			if k+1 >= len(m) {
				x[t] = m[len(m)-1]
			} else {
				f := pos - float64(k)
				x[t] = m[k]*(1-f) + m[k+1]*f
			}
		}
	}
	var mx, my float64
	for t := range obs {
		mx += x[t]
		my += obs[t]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx float64
	for t := range obs {
		sxy += (x[t] - mx) * (obs[t] - my)
		sxx += (x[t] - mx) * (x[t] - mx)
	}
	b := 0.0
	if sxx > 0 && sxy > 0 {
		b = sxy / sxx
	}
	sse := 0.0
	for t := range obs {
		r := obs[t] - my - b*(x[t]-mx)
		sse += r * r
	}
	return sse, true
}

// scheduleEvidence is what a curve's first epochs and its prior's finished
// curves say of a step schedule (fit.Schedule): the curve's own step drops,
// how many times each finished curve dropped in steps, the fit's noise and the
// log's point spacing.
func scheduleEvidence(c Curve, observed int, f fit.LossFit, members []familyMember, crossFamily bool, rule fit.Rule) fit.Schedule {
	s := fit.Schedule{Observed: observed, Noise: f.RMSE, Spacing: 1, DropsKnown: true, StepShaped: fit.StepShapedFit(f)}
	if y := filled(complemented(c.Values[:observed], c.HigherIsBetter)); y != nil {
		s.Drops, s.DropSizes = fit.StepDropSizes(y, rule)
		s.LastFall, s.LastFallEpoch = lastFallSize(y, rule)
	}
	logged := 0
	for _, v := range c.Values[:observed] {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			logged++
		}
	}
	if logged > 0 {
		s.Spacing = float64(observed) / float64(logged)
	}
	if crossFamily {
		// Other families' cuts say nothing of this job's recipe (as
		// their curves' record says of its convergence): the plateau
		// stays ambiguous.
		return s
	}
	for _, m := range members {
		s.FamilyDrops = append(s.FamilyDrops, len(fit.StepDrops(m.y, rule)))
	}
	return s
}

// lastFallSize is the largest fall over a window of the smoothed log y
// (relative to its first smoothed value, as the rule measures) at the
// epochs up to a window before its floor, and its epoch: the size of the
// last fall the rule saw (0 when there is none).
func lastFallSize(y []float64, rule fit.Rule) (float64, int) {
	if len(y) <= rule.Window {
		return 0, 0
	}
	s := isotonicDecreasing(y)
	last := lastFall(s, rule)
	if last < rule.Window+1 || s[0] <= 0 {
		return 0, 0
	}
	best, at := 0.0, 0
	for e := max(rule.Window+1, last-rule.Window); e <= last; e++ {
		if d := (s[e-1-rule.Window] - s[e-1]) / s[0]; d > best {
			best, at = d, e
		}
	}
	return best, at
}
