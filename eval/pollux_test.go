package eval

import (
	"math"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
)

// Pollux's curves observed half way, families left out or no prior (the
// prior weighs 0.03-0.22, up to 0.65 with budgets): imagenet's follow
// a step schedule (cuts at 30, 60 and 80 of 90 epochs) and sit on the
// plateau after the first cut, where their 1/k fit across the drop expects
// a slow fall to epoch 83-87 while the truth (71) comes a window after the
// next cut; three deepspeech2 logs have been flat since their truth
// (30-34) while their fit expects convergence 6-9 epochs later. The fit's
// mass is moved as far as the flat stretch speaks against its slow fall
// (fit.Blend): the median error at 50% observed falls from 21% (20% with
// budgets, 23% and 21% without a prior) to 11% (11%, 12%, 9%),
// benchmarks/convergence-budgets.md, and no uncensored curve loses its cover.
func TestPolluxHalfWayFlatLogs(t *testing.T) {
	vcs, err := datasets.PolluxCurves()
	if err != nil {
		t.Fatal(err)
	}
	var curves []Curve
	for _, v := range vcs {
		curves = append(curves, Curve{Name: v.Name, Family: v.App, HigherIsBetter: v.HigherIsBetter, Values: v.Metric,
			Budget: float64(datasets.PolluxEpochs[v.App])})
	}
	for _, c := range []struct {
		name  string
		cfg   ConvergenceConfig
		bound float64 // session 6: 21%, 20%, 23%, 21%
	}{
		{"leave-family-out", ConvergenceConfig{FamilyPrior: true, OtherFamilies: true}, 0.11},
		{"leave-family-out, budgets", ConvergenceConfig{FamilyPrior: true, OtherFamilies: true, Budgets: true}, 0.12},
		{"no prior", ConvergenceConfig{}, 0.12},
		{"no prior, budgets", ConvergenceConfig{Budgets: true}, 0.09},
	} {
		res := ConvergenceWith(curves, []float64{0.5}, fit.DefaultRule, fit.DefaultLossOptions, c.cfg)
		var rel []float64
		covered, imagenet := 0, 0
		for _, r := range res {
			if r.Err != "" || r.Censored {
				continue
			}
			rel = append(rel, math.Abs(float64(r.P50-r.TrueEpoch))/float64(r.TrueEpoch))
			if r.Covered {
				covered++
			}
			if r.Family == "imagenet" && r.Covered && r.P50 >= 64 && r.P50 <= 78 {
				imagenet++
			}
		}
		slices.Sort(rel)
		med := (rel[(len(rel)-1)/2] + rel[len(rel)/2]) / 2
		t.Logf("%s: %d of %d covered, median error %.1f%%, imagenet within 10%%: %d of 7", c.name, covered, len(rel), 100*med, imagenet)
		if len(rel) != 25 || covered < 24 || med > c.bound || imagenet != 7 {
			t.Errorf("%s: %d of %d uncensored covered (want 24 of 25), median error %.1f%% (want at most %.0f%%), %d of 7 imagenet medians within 10%% of the truth (want 7)",
				c.name, covered, len(rel), 100*med, 100*c.bound, imagenet)
		}
	}
}
