package eval

import (
	"math"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/fit"
)

func TestIsotonicDecreasing(t *testing.T) {
	got := isotonicDecreasing([]float64{5, 3, 4, 2, 2.5, 1})
	want := []float64{5, 3.5, 3.5, 2.25, 2.25, 1}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// On a noiseless 1/k curve the truth is the rule's own answer.
func TestTrueConvergenceMatchesRule(t *testing.T) {
	c := fit.Curve{B0: 0.05, B1: 1, B2: 0.2}
	var values []float64
	for e := 1; e <= 100; e++ {
		values = append(values, c.At(float64(e)))
	}
	want, capped := fit.DefaultRule.ConvergenceEpoch(c, 1, c.At(1))
	got, censored, _ := TrueConvergence(values, false, fit.DefaultRule)
	if capped || censored || got != want {
		t.Errorf("truth %d (censored %v), rule %d (capped %v)", got, censored, want, capped)
	}
	// A plateau followed by a drop (a learning-rate step) has not
	// converged on the plateau.
	step := slices.Clone(values[:60])
	for i := 30; i < 60; i++ {
		step[i] = values[i] - 0.2
	}
	if got, _, _ := TrueConvergence(step, false, fit.DefaultRule); got <= 30 {
		t.Errorf("converged at %d, before the drop at 30", got)
	}
	// Too short to apply a 10-epoch window: censored.
	if _, censored, _ := TrueConvergence(values[:8], false, fit.DefaultRule); !censored {
		t.Error("an 8-epoch curve was not censored")
	}
}

// TestConvergenceOnDegenerateCurves: curves too short, flat, NaN or with
// no epoch at all give a result for every fraction, never a panic.
func TestConvergenceOnDegenerateCurves(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name    string
		values  []float64
		wantErr bool
	}{
		{"no epoch (log ends inside the first)", nil, true},
		{"empty, not nil", []float64{}, true},
		{"one epoch", []float64{2.5}, true},
		{"two epochs", []float64{2.5, 2}, true},
		{"all NaN", []float64{nan, nan, nan, nan, nan}, true},
		{"flat zero", make([]float64, 30), false},
		{"one NaN among values", []float64{3, 2.5, nan, 2, 1.8, 1.7, 1.65, 1.6, 1.58, 1.57, 1.56, 1.55}, false},
	}
	fractions := []float64{0, 0.01, 0.5, 1}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Convergence([]Curve{{Name: "j", Values: c.values}}, fractions, fit.DefaultRule, fit.DefaultLossOptions)
			if len(res) != len(fractions) {
				t.Fatalf("%d results, want one per fraction (%d)", len(res), len(fractions))
			}
			for _, r := range res {
				if r.Observed > len(c.values) || r.TrueEpoch > len(c.values) {
					t.Errorf("fraction %v: observed %d, truth %d of %d epochs", r.Fraction, r.Observed, r.TrueEpoch, len(c.values))
				}
			}
			if c.wantErr && res[len(res)-1].Err == "" {
				t.Errorf("no reason given for a curve that cannot be predicted")
			}
		})
	}
}

// TestConvergenceFractionsOutOfRange: a share of epochs outside (0, 1]
// (more than the curve, NaN, negative) gives a reason, not an index past
// the curve.
func TestConvergenceFractionsOutOfRange(t *testing.T) {
	values := []float64{3, 2.5, 2.2, 2, 1.9, 1.85, 1.8, 1.78, 1.76, 1.75, 1.74, 1.73}
	for _, frac := range []float64{1.5, -0.5, math.NaN(), math.Inf(1), 1e300} {
		res := Convergence([]Curve{{Name: "j", Values: values}}, []float64{frac}, fit.DefaultRule, fit.DefaultLossOptions)
		if len(res) != 1 || res[0].Err == "" || res[0].Observed > len(values) {
			t.Errorf("fraction %v: %+v", frac, res)
		}
	}
}
