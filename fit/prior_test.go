package fit

import "testing"

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
		{"a family whose jobs the fit missed lends more weight", QualityGood, FamilyPrior{Epochs: family.Epochs, Misses: 4, Tried: 4}, Evidence{},
			func(b Blended) bool { return b.PriorWeight > 0.8 && b.P50 >= 55 }},
		{"a family on which the fit works lends little", QualityPoor, FamilyPrior{Epochs: family.Epochs, Misses: 0, Tried: 4}, Evidence{},
			func(b Blended) bool { return b.PriorWeight < 0.2 && b.P50 <= 30 }},
		{"contradicted by the log: poor, and from the floor on", QualityGood, FamilyPrior{}, Evidence{Floor: 40},
			func(b Blended) bool { return b.Contradicted && b.P10 >= 40 && b.P10 <= 45 && b.P90 >= 75 }},
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
