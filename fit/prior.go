package fit

import (
	"math"
	"slices"
)

// FamilyPrior is what the finished jobs of a model family say about a
// job's convergence: the epoch at which each of them converged (or stopped).
type FamilyPrior struct {
	Epochs []float64
	// Misses and Tried, when Tried > 0, say how the 1/k fit fared on the
	// family's finished jobs when it saw as many epochs of each as the job
	// has run: in how many of Tried their convergence epoch fell outside
	// the fit's interval. A family on which the fit fails lends the prior
	// more weight than the fit's own quality verdict would.
	Misses, Tried int
}

// weight is the share of a prediction given to the prior for a fit of
// that quality: the quality's weight (priorWeights) as one pseudo-trial,
// plus the family's record of the fit.
func (p FamilyPrior) weight(quality string) float64 {
	w := priorWeights[quality]
	if p.Tried > 0 {
		w = (float64(p.Misses) + w) / float64(p.Tried+1)
	}
	return w
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
}

// Blend combines a fit's prediction (fitted false when there is none) with
// the family prior and the evidence. The result's distribution is a
// mixture: the fit's (linear between its 10th, 50th and 90th percentiles)
// with weight 1 - w and the prior's (each finished job's epoch, ±10%) with
// weight w (FamilyPrior.weight: by the fit's quality and the family's
// record; 1 without a fit, 0 without a prior). Mass below the evidence's
// floor moves to the floor: the job has not converged before it. A fit
// that predicts convergence before the floor is wrong about this job and
// counts as poor; its share of the mixture then says only what the log
// does, that the job converges after the floor, spread from the floor to
// twice the floor or the fit's p90, whichever is later. Quantiles are clamped to the rule's window and cap. A
// declared schedule's end sets the prediction: the job stops there.
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
	type sample struct{ epoch, weight float64 }
	var kept []sample
	const n = 100
	floor := float64(ev.Floor)
	if w < 1 {
		for i := 0; i < n; i++ {
			q := (float64(i) + 0.5) / n
			e := quantileOf3(p, q)
			if b.Contradicted {
				// The fit is wrong about this job: all the log says is
				// that it has not converged by the floor. Scale-free
				// ignorance: between the floor and twice the floor, or
				// the fit's own p90 when that reaches further.
				e = floor + (math.Max(2*floor, float64(p.P90))-floor)*q
			}
			kept = append(kept, sample{math.Max(e, floor), (1 - w) / n})
		}
	}
	if w > 0 {
		per := max(n/len(prior.Epochs), 5)
		for _, e := range prior.Epochs {
			for i := 0; i < per; i++ {
				u := (float64(i)+0.5)/float64(per)*0.2 - 0.1
				kept = append(kept, sample{math.Max(e*(1+u), floor), w / float64(len(prior.Epochs)*per)})
			}
		}
	}
	total := 0.0
	for _, x := range kept {
		total += x.weight
	}
	b.PriorWeight = w
	lo, hi := rule.Window, rule.Cap
	slices.SortFunc(kept, func(a, c sample) int {
		switch {
		case a.epoch < c.epoch:
			return -1
		case a.epoch > c.epoch:
			return 1
		}
		return 0
	})
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
	clamp := func(v int) int { return max(lo, min(hi, v)) }
	b.P10 = clamp(int(math.Floor(wq(0.1))))
	b.P50 = clamp(int(math.Round(wq(0.5))))
	b.P90 = clamp(int(math.Ceil(wq(0.9))))
	b.P10 = max(b.P10, min(ev.Floor, hi))
	b.P50, b.P90 = max(b.P50, b.P10), max(b.P90, b.P10)
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
