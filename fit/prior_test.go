package fit

import (
	"math"
	"testing"
)

// TestBlend: what the prior, the evidence and a declared schedule do to a
// fit's prediction.
func TestBlend(t *testing.T) {
	rule := DefaultRule
	fitP := ConvergencePrediction{P10: 20, P50: 25, P90: 30}
	family := FamilyPrior{Epochs: []float64{60, 62, 64, 66}}
	cases := []struct {
		name    string
		quality string
		prior   FamilyPrior
		ev      Evidence
		check   func(b Blended) bool
	}{
		{"good fit without a prior: the fit's own interval", QualityGood, FamilyPrior{}, Evidence{},
			func(b Blended) bool {
				return b.PriorWeight == 0 && b.P10 >= 19 && b.P10 <= 21 && b.P90 >= 29 && b.P90 <= 31
			}},
		{"poor fit with a family: mostly the family", QualityPoor, family, Evidence{},
			func(b Blended) bool { return b.PriorWeight == 0.9 && b.P50 >= 55 && b.P50 <= 70 }},
		{"a family whose jobs the fit missed lends more weight", QualityGood, FamilyPrior{Epochs: family.Epochs, Fit: Record{Misses: 4, Tried: 4}}, Evidence{},
			func(b Blended) bool { return b.PriorWeight > 0.8 && b.P50 >= 55 }},
		{"a family on which the fit works lends little", QualityPoor, FamilyPrior{Epochs: family.Epochs, Fit: Record{Misses: 0, Tried: 4}}, Evidence{},
			func(b Blended) bool { return b.PriorWeight < 0.2 && b.P50 <= 30 }},
		{"contradicted by the log: poor, and from the floor on", QualityGood, FamilyPrior{}, Evidence{Floor: 40},
			func(b Blended) bool { return b.Contradicted && b.P10 >= 40 && b.P10 <= 45 && b.P90 >= 75 }},
		{"contradicted, part of its interval past the floor: the fit given the floor", QualityGood, FamilyPrior{}, Evidence{Floor: 27},
			func(b Blended) bool { return b.Contradicted && b.P10 >= 27 && b.P90 <= 30 }},
		{"a prior that predicted the finished jobs worse than the fit lends in proportion", QualityPoor,
			FamilyPrior{Epochs: family.Epochs, Fit: Record{Tried: 4, Misses: 4, SqRelErr: 4 * 0.3 * 0.3}, Prior: Record{Tried: 4, Misses: 4, SqRelErr: 4 * 1.5 * 1.5}}, Evidence{},
			func(b Blended) bool { return b.PriorWeight < 0.1 && b.P50 <= 30 }},
		{"a prior that predicted them better keeps the fit's record's weight", QualityPoor,
			FamilyPrior{Epochs: family.Epochs, Fit: Record{Tried: 4, Misses: 4, SqRelErr: 4 * 0.3 * 0.3}, Prior: Record{Tried: 4, SqRelErr: 4 * 0.05 * 0.05}}, Evidence{},
			func(b Blended) bool { return b.PriorWeight > 0.95 && b.P50 >= 55 }},
		{"the floor cuts the interval below", QualityGood, FamilyPrior{}, Evidence{Floor: 24},
			func(b Blended) bool { return !b.Contradicted && b.P10 == 24 && b.P50 >= 25 }},
		{"a declared schedule sets the end", QualityGood, family, Evidence{ScheduleEnd: 47.5},
			func(b Blended) bool { return b.Scheduled && b.P50 == 48 && b.P90 == 48 && b.P10 == 20 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := Blend(fitP, true, c.quality, c.prior, c.ev, rule)
			if !c.check(b) {
				t.Errorf("%+v", b)
			}
		})
	}
	if b := Blend(ConvergencePrediction{}, false, QualityInsufficient, family, Evidence{}, rule); b.PriorWeight != 1 || b.P50 < 55 {
		t.Errorf("no fit, a family: %+v", b)
	}
	if b := Blend(ConvergencePrediction{}, false, QualityInsufficient, FamilyPrior{}, Evidence{}, rule); b.P50 >= 0 {
		t.Errorf("no fit, no family: %+v, want none", b)
	}
}

// TestRecordAdd: a hit within RecordTolerance, a miss beyond it, and a
// stopped (censored) job missed only by a prediction within it.
func TestRecordAdd(t *testing.T) {
	var r Record
	r.Add(55, 50, false) // 10% late: a hit
	r.Add(40, 50, false) // 20% early: a miss
	r.Add(90, 50, true)  // past a stopped job's end: a hit, no error
	r.Add(45, 50, true)  // within it: a miss
	want := Record{Tried: 4, Misses: 2, SqRelErr: 0.01 + 0.04 + 0 + 0.01}
	if r.Tried != want.Tried || r.Misses != want.Misses || math.Abs(r.SqRelErr-want.SqRelErr) > 1e-12 {
		t.Errorf("got %+v, want %+v", r, want)
	}
}

// Evidence.Earliest lowers only p10 (to it, never below the floor): the
// median and p90 stay the fit's.
func TestBlendEarliest(t *testing.T) {
	rule := Rule{Threshold: 0.02, Window: 10, Cap: 100}
	p := ConvergencePrediction{P10: 50, P50: 62, P90: 74}
	b := Blend(p, true, QualityGood, FamilyPrior{}, Evidence{Floor: 41, Earliest: 45}, rule)
	if b.P10 != 45 || b.P50 != 62 || b.P90 != 74 {
		t.Errorf("with Earliest 45: %d/%d/%d, want 45/62/74", b.P10, b.P50, b.P90)
	}
	if b := Blend(p, true, QualityGood, FamilyPrior{}, Evidence{Floor: 41, Earliest: 55}, rule); b.P10 != 50 {
		t.Errorf("Earliest past p10: p10 %d, want 50", b.P10)
	}
	if b := Blend(p, true, QualityGood, FamilyPrior{}, Evidence{Floor: 41}, rule); b.P10 != 50 {
		t.Errorf("no Earliest: p10 %d, want 50", b.P10)
	}
}

// TestBlendBudget: a declared epoch budget is where the job stops, so no
// outcome lies past it: the fit's and the prior's mass beyond it is at it,
// and the plateau's next-cut window ends there; without a budget, the cap.
func TestBlendBudget(t *testing.T) {
	rule := Rule{Threshold: 0.02, Window: 10, Cap: 200}
	fitP := ConvergencePrediction{P10: 60, P50: 90, P90: 140}
	b := Blend(fitP, true, QualityGood, FamilyPrior{}, Evidence{Budget: 99.5}, rule)
	if b.P10 != 60 || b.P50 < 89 || b.P50 > 91 || b.P90 != 100 {
		t.Errorf("budget 99.5: %d/%d/%d, want 60/90/100", b.P10, b.P50, b.P90)
	}
	if b := Blend(fitP, true, QualityGood, FamilyPrior{}, Evidence{}, rule); b.P90 != 140 {
		t.Errorf("no budget: p90 %d, want 140", b.P90)
	}
	// A plateau at 45 with a drop at 30 (the next cut up to 75, half the
	// mass uniform over a window after it, 55-85): p90 near 80 under the
	// cap, within a budget of 70 with it; a plateau at the budget has no
	// budget left.
	now := ConvergencePrediction{P10: 40, P50: 40, P90: 40}
	sch := Schedule{Observed: 45, Drops: []int{30}, DropsKnown: true}
	if b := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{Floor: 35, Schedule: sch}, rule); !b.Plateau || b.P90 < 75 {
		t.Errorf("no budget: %+v, want the next cut's window past 75", b)
	}
	if b := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{Floor: 35, Schedule: sch, Budget: 70}, rule); !b.Plateau || b.P90 < 60 || b.P90 > 70 {
		t.Errorf("budget 70: %+v, want p90 in the window's part before the budget", b)
	}
	if b := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{Floor: 35, Schedule: sch, Budget: 45}, rule); b.Plateau || b.P90 > 45 {
		t.Errorf("budget spent: %+v, want no plateau and nothing past 45", b)
	}
}

// TestBlendPriorWeights: the prior's epochs weigh as their Weights say
// (nil, the wrong length or no positive total: alike).
func TestBlendPriorWeights(t *testing.T) {
	rule := DefaultRule
	epochs := []float64{30, 30, 30, 80}
	p50 := func(w []float64) int {
		return Blend(ConvergencePrediction{}, false, QualityInsufficient, FamilyPrior{Epochs: epochs, Weights: w}, Evidence{}, rule).P50
	}
	if got := p50(nil); got < 27 || got > 33 {
		t.Errorf("alike: p50 %d, want near 30 (three of four epochs)", got)
	}
	if got := p50([]float64{1, 1, 1, 9}); got < 72 || got > 88 {
		t.Errorf("80 weighing three quarters: p50 %d, want near 80", got)
	}
	for _, w := range [][]float64{{1, 1}, {0, 0, 0, 0}, {-1, 0, 0, 0}} {
		if got := p50(w); got != p50(nil) {
			t.Errorf("weights %v: p50 %d, want %d (alike)", w, got, p50(nil))
		}
	}
}
