package eval

import (
	"math"
	"slices"

	"github.com/optimus-sched/optimus/fit"
)

// What a declared budget says when a job's own family is left out (the
// prior's curves are of other recipes). Their shapes do not carry over,
// but the share of their budgets at which they converged partly does; and
// before any learning-rate cut a 1/k fit of the job's constant-rate phase
// says nothing of where its schedule ends.

// shareWeight is the share of the prior's mass that its budget shares
// (budgetEpochs) get against its shape-matched epochs, for a job that has
// run epochs of its declared budget with the prior drawn from other
// families: the share of the budget still unseen. The budget shares say
// where in its budget a job converges, which its log cannot say yet; the
// shape match speaks from the log's features (a drop, a bend), which grow
// with the share seen. Half-way through, the two weigh alike, as each
// epoch of the prior does otherwise (negative: alike, for a prior from the
// job's own family, or without a budget).
func shareWeight(epochs int, budget float64, crossFamily bool) float64 {
	if !crossFamily || !(budget > 0) {
		return -1
	}
	return math.Max(0, 1-float64(epochs)/budget)
}

// weighted is the prior of the shape-matched epochs and the budget
// shares, the shares given a of its mass (a < 0, or either part empty:
// every epoch alike).
func weighted(warp, share []float64, a float64) fit.FamilyPrior {
	p := fit.FamilyPrior{Epochs: append(slices.Clone(warp), share...)}
	if a < 0 || len(warp) == 0 || len(share) == 0 {
		return p
	}
	p.Weights = make([]float64, len(p.Epochs))
	for k := range p.Weights {
		if k < len(warp) {
			p.Weights[k] = (1 - a) / float64(len(warp))
		} else {
			p.Weights[k] = a / float64(len(share))
		}
	}
	return p
}

// beforeFirstCut says whether a job with a declared budget, its prior
// drawn from other families, is in its first phase: its own log (obs,
// complemented and filled) has no step drop and is still falling faster
// than the rule allows at its end (or is too short to tell), and it has
// run a smaller share of its budget than any finished member had when it
// first dropped in a step (when none did, the job's own log decides). A
// 1/k fit of such a log follows the constant-rate phase only.
func beforeFirstCut(obs []float64, observed int, budget float64, members []familyMember, rule fit.Rule) bool {
	if !(budget > 0) || len(fit.StepDrops(obs, rule)) > 0 {
		return false
	}
	if len(obs) > rule.Window && lastFall(isotonicDecreasing(obs), rule) < len(obs) {
		return false // flat by the rule: a plateau, the plateau rule's case
	}
	first := math.Inf(1)
	for _, m := range members {
		if d := fit.StepDrops(m.y, rule); len(d) > 0 && m.curve.Budget > 0 {
			first = math.Min(first, float64(d[0])/m.curve.Budget)
		}
	}
	return float64(observed)/budget < first
}
