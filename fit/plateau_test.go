package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// stepLog is a per-epoch loss under a step schedule: the model of
// datasets.GenerateScheduleCurves (L0 + A·(1 + S/s0)^-α + B·lr, S the
// summed rate), the rate multiplied by factor at each cut epoch, with
// relative noise.
func stepLog(epochs int, cuts []int, factor, noise float64, rng *rand.Rand) []float64 {
	var y []float64
	lr, cum, k := 1.0, 0.0, 0
	for e := 0; e < epochs; e++ {
		if k < len(cuts) && e == cuts[k] {
			lr *= factor
			k++
		}
		cum += lr
		clean := 0.7 + 2.5*math.Pow(1+cum/3, -0.6) + 0.8*lr
		y = append(y, clean*(1+noise*rng.NormFloat64()))
	}
	return y
}

// StepDrops finds each cut of a step schedule within a few epochs of it,
// and nothing before the first: several cut points and factors, noise of
// 1-4%, several seeds.
func TestStepDrops(t *testing.T) {
	cases := []struct {
		epochs int
		cuts   []int
		factor float64
	}{
		{160, []int{48, 96, 128}, 0.2}, // CIFAR: 30%, 60%, 80%
		{120, []int{60, 90}, 0.1},      // halves
		{150, []int{50, 100}, 0.3},     // thirds, a mild factor
		{90, []int{30, 60}, 0.1},       // ImageNet: every 30 epochs
	}
	for _, c := range cases {
		for _, noise := range []float64{0.01, 0.04} {
			for seed := uint64(1); seed <= 3; seed++ {
				name := fmt.Sprintf("cuts %v x%v noise %v seed %d", c.cuts, c.factor, noise, seed)
				y := stepLog(c.epochs, c.cuts, c.factor, noise, rand.New(rand.NewPCG(seed, 7)))
				got := StepDrops(y, DefaultRule)
				if len(got) == 0 || got[0] < c.cuts[0] || got[0] > c.cuts[0]+dropSpan+1 {
					t.Errorf("%s: drops %v, want the first near %d", name, got, c.cuts[0])
				}
				// Every cut found is near a cut (the mild ones may fall
				// short of the threshold once the rate is small).
				for _, d := range got {
					near := false
					for _, cut := range c.cuts {
						near = near || (d >= cut && d <= cut+dropSpan+1)
					}
					if !near {
						t.Errorf("%s: drop at %d is near no cut (drops %v)", name, d, got)
					}
				}
			}
		}
	}
}

// A 1/k curve has no step drop, however noisy (up to 4%) or fast.
func TestStepDropsNoneOnOneOverK(t *testing.T) {
	for _, b0 := range []float64{0.05, 0.2, 1} {
		for seed := uint64(1); seed <= 5; seed++ {
			rng := rand.New(rand.NewPCG(seed, 11))
			c := Curve{B0: b0, B1: 1, B2: 0.3}
			var y []float64
			for e := 1; e <= 100; e++ {
				y = append(y, c.At(float64(e))*(1+0.04*rng.NormFloat64()))
			}
			if got := StepDrops(y, DefaultRule); len(got) > 0 {
				t.Errorf("b0 %v seed %d: drops %v on a 1/k curve", b0, seed, got)
			}
		}
	}
}

// A prediction of convergence now, on a plateau with budget left, covers
// both outcomes: converged now, and a window after the next likely cut.
// Without the evidence (the zero Schedule) it is what it was.
func TestBlendPlateau(t *testing.T) {
	rule := Rule{Threshold: 0.02, Window: 10, Cap: 200}
	now := ConvergencePrediction{P10: 40, P50: 40, P90: 40}
	cases := []struct {
		name           string
		sch            Schedule
		lo, reachAtLst int // P10 at most lo, P90 at least reach
	}{
		{"one drop at 30", Schedule{Observed: 45, Drops: []int{30}, DropsKnown: true}, 45, 75},
		{"drops at 30 and 60, periodic", Schedule{Observed: 70, Drops: []int{30, 60}, DropsKnown: true}, 70, 95},
		{"no drop, family stepped", Schedule{Observed: 45, DropsKnown: true, FamilyDrops: []int{2, 2, 3, 2, 2, 3}}, 45, 70},
		{"nothing known but the log", Schedule{Observed: 45, DropsKnown: true}, 45, 60},
		{"step-shaped fit (predict)", Schedule{Observed: 45, StepShaped: true}, 45, 60},
	}
	for _, c := range cases {
		ev := Evidence{Floor: 35, Schedule: c.sch}
		b := Blend(now, true, QualityGood, FamilyPrior{}, ev, rule)
		if !b.Plateau || b.P10 > c.lo || b.P90 < c.reachAtLst || b.P90 > rule.Cap {
			t.Errorf("%s: %+v; want P10 <= %d (converged now) and P90 >= %d (after the next cut), within the cap", c.name, b, c.lo, c.reachAtLst)
		}
	}
	// A family none of whose finished runs dropped in steps says the
	// plateau is the end: the median stays at now.
	flat := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{Floor: 35, Schedule: Schedule{Observed: 45, DropsKnown: true, FamilyDrops: make([]int, 9)}}, rule)
	if flat.P50 > 45 {
		t.Errorf("family without steps: %+v; want the median at now", flat)
	}
	// A 1/k fit in predict (no log, not step-shaped) is taken at its word.
	if b := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{Schedule: Schedule{Observed: 45}}, rule); b.Plateau || b.P50 != 40 {
		t.Errorf("1/k fit without the log: %+v", b)
	}
	// A job that has had as many cuts as its family's runs had is past
	// its schedule: the median stays at now.
	over := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{Floor: 35, Schedule: Schedule{Observed: 80, Drops: []int{30, 60}, DropsKnown: true, FamilyDrops: []int{2, 2, 2, 2}}}, rule)
	if over.P50 > 80 || over.P90 <= over.P50 {
		t.Errorf("as many cuts as the family had: %+v; want the median at now", over)
	}
	if b := Blend(now, true, QualityGood, FamilyPrior{}, Evidence{}, rule); b.P10 != 40 || b.P90 != 40 {
		t.Errorf("without evidence: %+v, want the fit's 40/40/40", b)
	}
}

// No interval of a job still training is narrower than the log's spacing
// and its noise allow, at least 2 epochs.
func TestBlendMinimumWidth(t *testing.T) {
	rule := DefaultRule
	for _, p := range []ConvergencePrediction{{P10: 30, P50: 30, P90: 30}, {P10: 10, P50: 10, P90: 10}, {P10: 99, P50: 100, P90: 100}} {
		for _, sch := range []Schedule{
			{Observed: 20, Noise: 0, Spacing: 1},
			{Observed: 20, Noise: 0.01, Spacing: 1},
			{Observed: 20, Noise: 0.002, Spacing: 5},
		} {
			b := Blend(p, true, QualityGood, FamilyPrior{}, Evidence{Schedule: sch}, rule)
			h := sch.minHalfWidth(rule)
			if b.P90-b.P10 < 2 || b.P90-b.P10 < min(2*h, rule.Cap-rule.Window) && b.P10 > rule.Window && b.P90 < rule.Cap {
				t.Errorf("%+v with %+v: %+v, width below %d", p, sch, b, 2*h)
			}
		}
	}
	if h := (Schedule{Noise: 0.01}).minHalfWidth(rule); h != 2 {
		// 0.01/sqrt(10) over 0.002 a epoch: 1.6, rounded up.
		t.Errorf("half-width %d for 1%% noise, want 2", h)
	}
}

// On a plateau after a cut, a fit expecting convergence long after the
// next cut's window (a 1/k fit across the drop expects a slow fall) is
// contradicted by the log's flat stretch: the share the stretch speaks for
// moves into the next cut's window, the one fall still to come. The
// prior's epochs are finished runs' convergences, not a slow fall: they
// stay. A log flat for no epoch moves nothing.
func TestBlendPlateauLateFit(t *testing.T) {
	rule := Rule{Threshold: 0.02, Window: 10, Cap: 200}
	late := ConvergencePrediction{P10: 70, P50: 110, P90: 150}
	sch := Schedule{Observed: 45, Drops: []int{30}, DropsKnown: true}
	// The next cut's window: from a window past now to a window past now
	// plus the first phase's length (45+10 .. 45+30+10).
	for _, c := range []struct {
		floor      int
		lo, hi     int // the median's range
		p90AtLeast int
	}{
		{35, 55, 85, 80},    // flat for a window: the fit's late mass is in the window
		{40, 55, 100, 140},  // flat for half a window: half of it moves, half stays
		{45, 105, 115, 150}, // flat at the last epoch only: nothing moves
	} {
		b := Blend(late, true, QualityPoor, FamilyPrior{}, Evidence{Floor: c.floor, Schedule: sch}, rule)
		if !b.Plateau || b.P50 < c.lo || b.P50 > c.hi || b.P90 < c.p90AtLeast {
			t.Errorf("floor %d: %+v; want the median in %d-%d and P90 >= %d", c.floor, b, c.lo, c.hi, c.p90AtLeast)
		}
	}
	prior := FamilyPrior{Epochs: []float64{120, 125, 130, 135}}
	if b := Blend(ConvergencePrediction{}, false, QualityInsufficient, prior, Evidence{Floor: 35, Schedule: sch}, rule); b.P50 < 115 {
		t.Errorf("prior past the window: %+v; want its median kept (about 127)", b)
	}
}

// A log flat by the rule for a window, without a drop, on which the fit
// expects a slow fall to come (so the prediction is not "converged now"):
// the fit's mass between the floor and now is ruled out, and its mass
// past now is split as a plateau's, converged at the floor or after the
// next likely cut. A flat stretch the log's noise cannot tell from a slow
// fall moves nothing.
func TestBlendFlatLogLateFit(t *testing.T) {
	rule := Rule{Threshold: 0.02, Window: 10, Cap: 200}
	slow := ConvergencePrediction{P10: 30, P50: 39, P90: 59}
	sch := Schedule{Observed: 40, DropsKnown: true, Spacing: 1}
	b := Blend(slow, true, QualityGood, FamilyPrior{}, Evidence{Floor: 30, Schedule: sch}, rule)
	if b.Plateau || b.P50 != 30 || b.P90 < 50 {
		t.Errorf("flat for a window: %+v; want the median at the floor 30 and P90 past the next cut's window start (50)", b)
	}
	noisy := sch
	noisy.Noise = 0.08 // noise as large as the rule's fall over a window
	if b := Blend(slow, true, QualityGood, FamilyPrior{}, Evidence{Floor: 30, Schedule: noisy}, rule); b.P50 != 39 {
		t.Errorf("flat within the noise: %+v; want the fit's median 39", b)
	}
	if b := Blend(slow, true, QualityGood, FamilyPrior{}, Evidence{Floor: 30}, rule); b.P50 != 39 {
		t.Errorf("without the log (predict): %+v; want the fit's median 39", b)
	}
}
