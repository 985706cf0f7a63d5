package fit

import (
	"math"
	"slices"
)

// FamilyPrior is what the finished jobs of a model family say about a
// job's convergence: the epoch at which each of them converged (or stopped).
type FamilyPrior struct {
	Epochs []float64
	// Weights, when set (one per epoch), are the epochs' relative shares
	// of the prior; nil weighs them alike.
	Weights []float64
	// Fit, when Fit.Tried > 0, says how the 1/k fit fared on the family's
	// finished jobs when it saw as many epochs of each as the job has run.
	// A family on which the fit fails lends the prior more weight than the
	// fit's own quality verdict would.
	Fit Record
	// Prior, when Prior.Tried > 0, is the prior's own record on the same
	// jobs: each predicted from the others' curves alone. A prior that
	// predicted them worse than the fit did lends less weight: the curves
	// of other families, or of a family whose runs differ, do not carry
	// over to this job.
	Prior Record
}

// Record is how a predictor fared on finished jobs, each observed for as
// many epochs as the job being predicted has run.
type Record struct {
	Tried int
	// Misses: predictions off by more than RecordTolerance of the job's
	// convergence epoch (for a job stopped before it converged: predicted
	// no later than its end).
	Misses int
	// SqRelErr is the sum of the squared relative errors of those
	// predictions (0 for one past the end of a stopped job).
	SqRelErr float64
}

// RecordTolerance is the relative epoch error within which a prediction
// on a finished job counts as a hit.
const RecordTolerance = 0.15

// Add scores one prediction (epochs) of a finished job that converged at
// epoch, or stopped there unconverged when censored.
func (r *Record) Add(predicted, epoch int, censored bool) {
	rel := float64(predicted-epoch) / float64(max(epoch, 1))
	miss := math.Abs(rel) > RecordTolerance
	if censored {
		rel, miss = math.Min(rel, 0), predicted <= epoch
	}
	r.Tried++
	r.SqRelErr += rel * rel
	if miss {
		r.Misses++
	}
}

// weight is the share of a prediction given to the prior for a fit of
// that quality: the quality's weight (priorWeights) as one pseudo-trial,
// plus the fit's misses on the family's finished jobs; then, when the
// prior has a record, scaled by the ratio of the fit's mean squared
// relative error to the prior's where the prior's is larger (each with
// the quality's pseudo-trial at RecordTolerance), so that a prior that
// has predicted the finished jobs worse than the fit has lends in
// proportion. Without a prior record (pipeline's predict) it is as before.
func (p FamilyPrior) weight(quality string) float64 {
	wq := priorWeights[quality]
	w := wq
	if p.Fit.Tried > 0 {
		w = (float64(p.Fit.Misses) + wq) / float64(p.Fit.Tried+1)
	}
	if p.Prior.Tried > 0 {
		const tol2 = RecordTolerance * RecordTolerance
		fitErr := (p.Fit.SqRelErr + wq*tol2) / float64(p.Fit.Tried+1)
		priorErr := (p.Prior.SqRelErr + (1-wq)*tol2) / float64(p.Prior.Tried+1)
		w *= math.Min(1, fitErr/priorErr)
	}
	return w
}

// shares are the prior's epochs' shares of its mass, summing to 1; nil
// (equal shares) without Weights, or when they do not sum to a positive
// number.
func (p FamilyPrior) shares() []float64 {
	if len(p.Weights) != len(p.Epochs) {
		return nil
	}
	total := 0.0
	for _, v := range p.Weights {
		total += math.Max(v, 0)
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil
	}
	out := make([]float64, len(p.Epochs))
	for k, v := range p.Weights {
		out[k] = math.Max(v, 0) / total
	}
	return out
}

// Evidence is what a job's own log says for certain about its convergence.
type Evidence struct {
	// Floor is the earliest epoch the job can still converge at: one past
	// the last whole epoch at which its observed, smoothed curve fell by
	// more than the rule's threshold over the previous window (0 when
	// unknown). A fit predicting convergence before it is contradicted by
	// the log itself.
	Floor int
	// ScheduleEnd is the epoch at which the job's declared learning-rate
	// schedule ends (0 when none is declared): training stops there.
	ScheduleEnd float64
	// Budget is the job's declared epoch budget (the jobs table's
	// epoch_budget; 0 when none is declared): the job trains no further,
	// so it has converged by then at the latest. Blend caps every outcome
	// there (the rule's cap when that is earlier); a plateau has budget
	// left only before it.
	Budget float64
	// Schedule is what the job's and its family's logs say of a step
	// schedule (its zero value changes nothing).
	Schedule Schedule
	// Earliest, when past Floor, is the epoch at which a log still falling
	// at its end would meet the rule if its fall kept shrinking as fast as
	// it did over its last two windows (geometrically: the fastest way a
	// fall ends without a schedule's help; 1/k, the fit's shape, ends
	// slower). Blend lowers p10 to it; 0 changes nothing (predict, which
	// has no log).
	Earliest int
}

// Prior weights by fit quality: how much a prediction leans on the family
// when its own fit is of that quality. A good 1/k fit is trusted; a poor
// one (a schedule the model cannot follow) mostly gives way. They were
// chosen before any scoring and are not fitted to data.
var priorWeights = map[string]float64{
	QualityGood: 0.25, QualityFair: 0.5, QualityPoor: 0.9, QualityInsufficient: 1,
}

// Blended is a prediction combined from a job's fit, its family prior and
// its evidence.
type Blended struct {
	P10, P50, P90 int
	// PriorWeight is the share of the prediction that comes from the
	// family prior: 0 for the fit alone, 1 for the prior alone.
	PriorWeight float64
	// Contradicted: the fit predicted convergence before the evidence's
	// floor (its quality is then taken as poor).
	Contradicted bool
	// Scheduled: the declared schedule set the prediction.
	Scheduled bool
	// Plateau: the prediction said converged about now with budget left,
	// and was widened to the next likely learning-rate cut (Schedule).
	Plateau bool
}

// Blend combines a fit's prediction (fitted false when there is none) with
// the family prior and the evidence. The result's distribution is a
// mixture: the fit's (linear between its 10th, 50th and 90th percentiles)
// with weight 1 - w and the prior's (each finished job's epoch, ±10%) with
// weight w (FamilyPrior.weight: by the fit's quality and the records of
// the fit and the prior; 1 without a fit, 0 without a prior). Mass below
// the evidence's floor moves to the floor: the job has not converged
// before it. A fit that predicts convergence before the floor (its median
// before it) is wrong about this job and counts as poor; its share of the
// mixture is then its own distribution given that the job has not
// converged by the floor (the part of its interval past the floor), or,
// when its whole interval lies before the floor, only what the log says:
// spread from the floor to twice the floor. Quantiles are clamped to the
// rule's window and cap. A declared schedule's end sets the prediction:
// the job stops there. With ev.Schedule (see Schedule) a prediction of
// convergence on a plateau with budget left also covers a window after the
// next likely cut, the chance of a cut (Schedule.continuation) scaled by
// the job's own evidence that its schedule is spent (Schedule.Spent); with
// the log seen, the "converged now" outcome is the floor, where the log
// met the rule, and the fit's mass past the next cut's window moves into
// it as far as the log's flat stretch speaks against the fit's slow fall.
// A log flat for longer than its noise resolves, on which the prediction
// expects convergence later, treats the fit's mass alike: a plateau's two
// outcomes for the share its flat stretch speaks for. A job still training gets at least the interval its log's
// spacing and noise allow.
func Blend(p ConvergencePrediction, fitted bool, quality string, prior FamilyPrior, ev Evidence, rule Rule) Blended {
	var b Blended
	if ev.ScheduleEnd > 0 {
		end := int(math.Ceil(ev.ScheduleEnd - 1e-9))
		b.Scheduled = true
		b.P50, b.P90 = end, end
		b.P10 = end
		if fitted {
			b.P10 = min(end, p.P10)
		}
		b.P10 = max(b.P10, min(end, ev.Floor))
		return b
	}
	w := 0.0
	if fitted {
		if p.P50 < ev.Floor {
			b.Contradicted = true
			quality = QualityPoor
		}
		w = prior.weight(quality)
	} else {
		w = 1
	}
	if len(prior.Epochs) == 0 {
		w = 0
	}
	if !fitted && w == 0 {
		return Blended{P10: -1, P50: -1, P90: -1}
	}
	type sample struct {
		epoch, weight float64
		fit           bool // the fit's mass (else the prior's or the rule's)
	}
	var kept []sample
	const n = 100
	floor := float64(ev.Floor)
	if w < 1 {
		var fitted []float64
		for i := 0; i < n; i++ {
			q := (float64(i) + 0.5) / n
			e := quantileOf3(p, q)
			switch {
			case !b.Contradicted:
				// The log says only that the job has not converged
				// before the floor: the fit's mass before it goes to it.
				fitted = append(fitted, math.Max(e, floor))
			case e >= floor:
				// Contradicted: the fit given that the job has not
				// converged by the floor (its interval past the floor).
				fitted = append(fitted, e)
			}
		}
		if len(fitted) == 0 {
			// The fit's whole interval lies before the floor: all the
			// log says is that the job has not converged by then.
			// Scale-free ignorance: between the floor and twice the
			// floor.
			for i := 0; i < n; i++ {
				q := (float64(i) + 0.5) / n
				fitted = append(fitted, floor+floor*q)
			}
		}
		for _, e := range fitted {
			kept = append(kept, sample{e, (1 - w) / float64(len(fitted)), true})
		}
	}
	if w > 0 {
		per := max(n/len(prior.Epochs), 5)
		share := prior.shares()
		for k, e := range prior.Epochs {
			for i := 0; i < per; i++ {
				u := (float64(i)+0.5)/float64(per)*0.2 - 0.1
				wt := w / float64(len(prior.Epochs)*per)
				if share != nil {
					wt = w * share[k] / float64(per)
				}
				kept = append(kept, sample{math.Max(e*(1+u), floor), wt, false})
			}
		}
	}
	total := 0.0
	for _, x := range kept {
		total += x.weight
	}
	b.PriorWeight = w
	lo, hi := rule.Window, rule.Cap
	if ev.Budget > 0 {
		// The job stops at its budget: no outcome lies past it.
		hi = max(lo, min(hi, int(math.Ceil(ev.Budget-1e-9))))
	}
	sortSamples := func() {
		slices.SortFunc(kept, func(a, c sample) int {
			switch {
			case a.epoch < c.epoch:
				return -1
			case a.epoch > c.epoch:
				return 1
			}
			return 0
		})
	}
	sortSamples()
	wq := func(q float64) float64 {
		acc := 0.0
		for _, x := range kept {
			acc += x.weight / total
			if acc >= q {
				return x.epoch
			}
		}
		return kept[len(kept)-1].epoch
	}
	sch := ev.Schedule
	nowP10 := math.Inf(1) // the plateau's "converged now" keeps its lower end
	onPlateau := sch.Observed > 0 && sch.Observed < hi && ev.Floor <= sch.Observed
	convergedNow := wq(0.9) <= float64(sch.Observed+rule.Window)
	if onPlateau && (len(sch.Drops) > 0 || convergedNow && (sch.StepShaped || sch.DropsKnown)) {
		// The log is flat by the rule (or not known), with budget left,
		// and the job has dropped in steps before, or the prediction
		// says converged about now while the job's history is
		// step-shaped or known: a plateau, which a step schedule's next
		// cut would end. (Without the log, predict takes a fit that
		// follows the log as 1/k, flat end and all, at its word.) Unless the evidence says the schedule is over, the
		// prediction covers both outcomes: of the mixture's mass before
		// a window past the next likely cut, a share 1 - q stays
		// (converged now) and q moves to a window after the cut (uniform
		// over its range); mass already past it stays where it is.
		b.Plateau = true
		nowP10 = math.Floor(wq(0.1))
		spent := sch.Spent(rule)
		q := sch.continuation() * spent
		dlo, dhi := sch.nextDrop()
		dlo = math.Min(dlo+float64(rule.Window), float64(hi))
		dhi = math.Min(math.Max(dhi+float64(rule.Window), dlo), float64(hi))
		// Seen flat by the rule since its floor, the log has converged
		// there unless a cut comes: with the log known, the "converged
		// now" outcome is the floor itself (the rule cannot be met
		// again later without another fall).
		// Mass between the floor and now is of outcomes the log has
		// ruled out; mass past now (the fit or the prior seeing a slow
		// fall still to come) moves to the floor in proportion to how
		// long the log has been flat, up to a window.
		atFloor := sch.DropsKnown && ev.Floor > 0
		flat := math.Min(1, float64(sch.Observed-ev.Floor)/float64(max(rule.Window, 1)))
		moved := 0.0
		var toFloor []sample
		for i := range kept {
			switch {
			case kept[i].epoch < dlo:
				moved += q * kept[i].weight
				kept[i].weight *= 1 - q
				switch {
				case !atFloor:
				case kept[i].epoch <= float64(sch.Observed):
					kept[i].epoch = floor
				case flat > 0:
					toFloor = append(toFloor, sample{floor, flat * kept[i].weight, false})
					kept[i].weight *= 1 - flat
				}
			case atFloor && flat > 0 && spent < 1:
				// The job's own log says the schedule is spent: a
				// convergence past the next cut's window needs a fall as
				// much as the cut does; of the mass the log's flat
				// stretch speaks for, 1 - q is converged at the floor.
				f := flat * (1 - q)
				toFloor = append(toFloor, sample{floor, f * kept[i].weight, false})
				kept[i].weight *= 1 - f
			case atFloor && flat > 0 && kept[i].epoch > dhi && kept[i].fit:
				// The fit's mass past the next cut's window: a 1/k
				// fall still to come, which the log's flat stretch
				// speaks against (the prior's epochs are finished runs'
				// convergences, cuts and all: they stay). A fall that
				// can still come is a cut's, and the next comes first:
				// the share the flat stretch speaks for moves into its
				// window. None goes to the floor: the fit expects more
				// progress, and the schedule is not known to be spent.
				moved += flat * kept[i].weight
				kept[i].weight *= 1 - flat
			}
		}
		kept = append(kept, toFloor...)
		if atFloor {
			nowP10 = floor
		}
		for i := 0; i < n && moved > 0; i++ {
			u := (float64(i) + 0.5) / n
			kept = append(kept, sample{dlo + (dhi-dlo)*u, moved / n, false})
		}
		sortSamples()
	}
	if !b.Plateau && onPlateau && sch.DropsKnown && ev.Floor > 0 && sch.Observed-ev.Floor > sch.minHalfWidth(rule) {
		// Flat by the rule for longer than its noise resolves, while the
		// prediction expects convergence later than a window past now
		// (so the plateau rule above did not apply): of the fit's mass,
		// what lies between the floor and now is ruled out by the log
		// (it met the rule at the floor and stayed flat), and what lies
		// past now is a 1/k fall the flat stretch speaks against, in
		// proportion to its length. That share is a plateau's: converged
		// at the floor (1 - q) or after the next likely cut (q). The
		// prior's epochs are finished runs' and stay.
		q := sch.continuation() * sch.Spent(rule)
		dlo, dhi := sch.nextDrop()
		dlo = math.Min(dlo+float64(rule.Window), float64(hi))
		dhi = math.Min(math.Max(dhi+float64(rule.Window), dlo), float64(hi))
		flat := math.Min(1, float64(sch.Observed-ev.Floor)/float64(max(rule.Window, 1)))
		moved := 0.0
		var toFloor []sample
		for i := range kept {
			switch {
			case !kept[i].fit || kept[i].epoch <= floor:
			case kept[i].epoch <= float64(sch.Observed):
				kept[i].epoch = floor
			default:
				toFloor = append(toFloor, sample{floor, flat * (1 - q) * kept[i].weight, false})
				moved += flat * q * kept[i].weight
				kept[i].weight *= 1 - flat
			}
		}
		kept = append(kept, toFloor...)
		for i := 0; i < n && moved > 0; i++ {
			u := (float64(i) + 0.5) / n
			kept = append(kept, sample{dlo + (dhi-dlo)*u, moved / n, false})
		}
		sortSamples()
	}
	clamp := func(v int) int { return max(lo, min(hi, v)) }
	b.P10 = clamp(int(math.Min(math.Floor(wq(0.1)), nowP10)))
	b.P50 = clamp(int(math.Round(wq(0.5))))
	b.P90 = clamp(int(math.Ceil(wq(0.9))))
	b.P10 = max(b.P10, min(ev.Floor, hi))
	if ev.Earliest > ev.Floor && ev.Floor > 0 {
		// The log's own fall, extrapolated as it shrinks, may end before
		// the fit's 1/k does: the lower end covers it (the median and
		// p90 stay the mixture's).
		b.P10 = max(min(b.P10, ev.Earliest), ev.Floor, lo)
	}
	b.P50, b.P90 = max(b.P50, b.P10), max(b.P90, b.P10)
	if sch.Observed > 0 {
		// A job still training is never predicted to the epoch: the
		// interval spans at least the log's point spacing and what its
		// noise leaves undecided on either side of the median.
		h := sch.minHalfWidth(rule)
		b.P10 = max(min(b.P10, b.P50-h), min(ev.Floor, b.P10), lo)
		b.P90 = min(max(b.P90, b.P50+h, b.P10+2*h), hi)
		b.P10 = max(min(b.P10, b.P90-2*h), min(ev.Floor, b.P10), lo)
	}
	return b
}

// quantileOf3 is the q-quantile of a distribution known by its 10th, 50th
// and 90th percentiles: linear between them, constant beyond.
func quantileOf3(p ConvergencePrediction, q float64) float64 {
	p10, p50, p90 := float64(p.P10), float64(p.P50), float64(p.P90)
	switch {
	case q <= 0.1:
		return p10
	case q <= 0.5:
		return p10 + (p50-p10)*(q-0.1)/0.4
	case q <= 0.9:
		return p50 + (p90-p50)*(q-0.5)/0.4
	}
	return p90
}
