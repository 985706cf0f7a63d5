package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/fit"
)

// stepCurve is a per-epoch loss under a step schedule, the model of
// datasets.GenerateStepCurves (L0 + A·(1 + S/s0)^-α + B·lr, S the summed
// rate), the rate multiplied by factor at each cut (a share of the budget),
// with 3% relative noise.
func stepCurve(name string, epochs int, cuts []float64, factor float64, rng *rand.Rand) Curve {
	c := Curve{Name: name, Family: "steps"}
	cum := 0.0
	for e := 0; e < epochs; e++ {
		lr := 1.0
		for _, s := range cuts {
			if float64(e) >= s*float64(epochs) {
				lr *= factor
			}
		}
		cum += lr
		clean := 0.7 + 2.5*math.Pow(1+cum/3, -0.6) + 0.8*lr
		c.Values = append(c.Values, clean*(1+0.03*rng.NormFloat64()))
	}
	return c
}

// Observed late in a run whose schedule is spent (after its last cuts,
// drops shrinking by the rate's factor), a job is predicted converged at
// the floor it already reached: the plateau rule's second outcome (another
// cut) loses its weight when the job's own falls say the next would be
// smaller than the rule's threshold, or the plateau has outlasted its
// longest phase. Observed at half way (a cut still to come), the interval
// still reaches the truth. No family prior: the job's own log only.
func TestPlateauRuleSpentSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 24))
	var curves []Curve
	for i := 0; i < 6; i++ {
		curves = append(curves, stepCurve(fmt.Sprintf("cifar-%d", i), 120+15*i, []float64{0.3, 0.6, 0.8}, 0.2, rng))
		curves = append(curves, stepCurve(fmt.Sprintf("thirds-%d", i), 120+15*i, []float64{1.0 / 3, 2.0 / 3}, 0.3, rng))
	}
	rule := fit.DefaultRule
	rule.Cap = 200
	res := ConvergenceWith(curves, []float64{0.5, 0.9}, rule, fit.DefaultLossOptions, ConvergenceConfig{})
	for _, frac := range []float64{0.5, 0.9} {
		var rel []float64
		covered, n := 0, 0
		for _, r := range res {
			if r.Fraction != frac || r.Err != "" || r.Censored {
				continue
			}
			n++
			if r.Covered {
				covered++
			}
			if r.P90-r.P10 < 2 {
				t.Errorf("%s at %.0f%%: interval %d-%d is narrower than 2 epochs", r.Curve, 100*frac, r.P10, r.P90)
			}
			rel = append(rel, math.Abs(float64(r.P50-r.TrueEpoch))/float64(r.TrueEpoch))
		}
		slices.Sort(rel)
		med := fit.Median(rel)
		t.Logf("%.0f%% observed: %d of %d covered, median relative error %.2f", 100*frac, covered, n, med)
		if n < 10 || float64(covered) < 0.8*float64(n) {
			t.Errorf("%.0f%% observed: %d of %d covered", 100*frac, covered, n)
		}
		if frac == 0.9 && med > 0.05 {
			t.Errorf("90%% observed: median relative error %.2f; the schedule is spent, the floor is the truth", med)
		}
	}
}

// Spent: drops shrinking below the threshold, or a plateau outlasting the
// job's longest phase, lower the chance of another cut; one drop, seen
// recently, says nothing.
func TestScheduleSpent(t *testing.T) {
	rule := fit.DefaultRule
	cases := []struct {
		name string
		s    fit.Schedule
		lo   float64
		hi   float64
	}{
		{"one drop, plateau short", fit.Schedule{Observed: 60, Drops: []int{40}, DropSizes: []float64{0.15}, LastFall: 0.15, LastFallEpoch: 45}, 1, 1},
		{"second fall a fifth of the first", fit.Schedule{Observed: 100, Drops: []int{40}, DropSizes: []float64{0.15}, LastFall: 0.03, LastFallEpoch: 85}, 0.2, 0.4},
		{"falls equal", fit.Schedule{Observed: 100, Drops: []int{40, 80}, DropSizes: []float64{0.1, 0.1}}, 1, 1},
		{"outlasted", fit.Schedule{Observed: 100, Drops: []int{30}, DropSizes: []float64{0.15}, LastFall: 0.15, LastFallEpoch: 35}, 0.25, 0.25},
	}
	for _, c := range cases {
		if got := c.s.Spent(rule); got < c.lo-1e-9 || got > c.hi+1e-9 {
			t.Errorf("%s: %.3f, want in [%.2f, %.2f]", c.name, got, c.lo, c.hi)
		}
	}
}
