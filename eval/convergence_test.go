package eval

import (
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
