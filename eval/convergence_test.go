package eval

import (
	"fmt"
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

// TestTrueConvergenceNaNFirstEpoch: a NaN in the first epoch neither
// becomes the rule's scale nor spreads through the smoothing (issue 12,
// defect 6): the truth is that of the curve with the first value filled
// in from the second.
func TestTrueConvergenceNaNFirstEpoch(t *testing.T) {
	c := fit.Curve{B0: 0.5, B1: 1, B2: 0.2}
	var values []float64
	for e := 1; e <= 80; e++ {
		values = append(values, c.At(float64(e)))
	}
	withNaN := slices.Clone(values)
	withNaN[0] = math.NaN()
	filledIn := slices.Clone(values)
	filledIn[0] = values[1]
	got, censored, smooth := TrueConvergence(withNaN, false, fit.DefaultRule)
	want, _, _ := TrueConvergence(filledIn, false, fit.DefaultRule)
	if censored || got != want {
		t.Errorf("truth %d (censored %v), want %d", got, censored, want)
	}
	for i, v := range smooth {
		if math.IsNaN(v) {
			t.Fatalf("smoothed value %d is NaN", i+1)
		}
	}
	res := Convergence([]Curve{{Name: "j", Values: withNaN}}, []float64{0.5}, fit.DefaultRule, fit.DefaultLossOptions)
	if r := res[0]; r.Err != "" || math.IsNaN(r.TrueFinal) || r.TrueEpoch != want {
		t.Errorf("%+v", r)
	}
}

// TestTrueConvergenceWholeCurve: a curve longer than the rule's cap has its
// truth from the whole curve, not its first Cap epochs (defect 4).
func TestTrueConvergenceWholeCurve(t *testing.T) {
	var values []float64
	for e := 1; e <= 150; e++ {
		v := 3.0 / math.Sqrt(float64(e))
		if e > 120 {
			v -= 0.5 // a late learning-rate drop
		}
		values = append(values, v)
	}
	got, censored, _ := TrueConvergence(values, false, fit.DefaultRule)
	if censored || got <= 120 {
		t.Errorf("truth %d (censored %v), want past the drop at 120", got, censored)
	}
}

// TestCensoredScoredAgainstReached: a censored curve is covered only when
// the interval reaches past its end and the predicted final metric is no
// worse than what the curve already reached (defect 5).
func TestCensoredScoredAgainstReached(t *testing.T) {
	// 1/k for 30 epochs, then a linear fall to the end: still falling at
	// its end (censored), and far below what a fit to the first half
	// expects.
	var values []float64
	for e := 1; e <= 40; e++ {
		v := 1/(0.1*float64(e)+1) + 1
		if e > 20 {
			v -= 0.03 * float64(e-20)
		}
		values = append(values, v)
	}
	res := ConvergenceWith([]Curve{{Name: "j", Values: values}}, []float64{0.5}, fit.Rule{Threshold: 0.02, Window: 10, Cap: 100}, fit.DefaultLossOptions, ConvergenceConfig{})
	r := res[0]
	if !r.Censored || r.Err != "" {
		t.Fatalf("%+v", r)
	}
	if r.PredFinal <= r.TrueFinal {
		t.Fatalf("predicted final %v is not worse than the reached %v: the case does not test the rule", r.PredFinal, r.TrueFinal)
	}
	if r.Covered {
		t.Errorf("covered with p90 %d past the end %d although the predicted final %.3f is worse than the reached %.3f", r.P90, len(values), r.PredFinal, r.TrueFinal)
	}
}

// TestDeclaredScheduleIsTheTruth: a curve that ran its declared schedule
// to the end converged there at the latest, and a prediction told of the
// schedule says so.
func TestDeclaredScheduleIsTheTruth(t *testing.T) {
	var values []float64
	for e := 1; e <= 40; e++ {
		values = append(values, 3-0.05*float64(e)) // still falling when the schedule ends
	}
	c := Curve{Name: "j", Values: values, ScheduleEnd: 40}
	for _, cfg := range []ConvergenceConfig{{Schedules: true}, {}} {
		r := ConvergenceWith([]Curve{c}, []float64{0.5}, fit.DefaultRule, fit.DefaultLossOptions, cfg)[0]
		if r.Censored || r.TrueEpoch != 40 {
			t.Errorf("schedules %v: truth %d (censored %v), want 40", cfg.Schedules, r.TrueEpoch, r.Censored)
		}
		if cfg.Schedules && !(r.Scheduled && r.P50 == 40 && r.P90 == 40 && r.Covered) {
			t.Errorf("with the schedule: %+v", r)
		}
	}
}

// The prior draws on the curve's own family, or with OtherFamilies on the
// other families only: a curve alone in its family gets a prior only then.
func TestPriorFamilies(t *testing.T) {
	curve := func(name, family string, b0 float64) Curve {
		var v []float64
		for e := 1; e <= 60; e++ {
			v = append(v, 1/(b0*float64(e)+1)+0.2)
		}
		return Curve{Name: name, Family: family, Values: v}
	}
	curves := []Curve{curve("a1", "a", 0.1), curve("a2", "a", 0.12), curve("b1", "b", 0.08)}
	rule := fit.Rule{Threshold: 0.02, Window: 10, Cap: 100}
	weights := func(cfg ConvergenceConfig) map[string]bool {
		out := map[string]bool{}
		for _, r := range ConvergenceWith(curves, []float64{0.5}, rule, fit.DefaultLossOptions, cfg) {
			out[r.Curve] = r.PriorWeight > 0
		}
		return out
	}
	own, others := weights(ConvergenceConfig{FamilyPrior: true}), weights(ConvergenceConfig{FamilyPrior: true, OtherFamilies: true})
	if !own["a1"] || !own["a2"] || own["b1"] {
		t.Errorf("own family: prior used %v; want a1 and a2 (each other's), not b1 (alone)", own)
	}
	if !others["a1"] || !others["a2"] || !others["b1"] {
		t.Errorf("other families: prior used %v; want every curve (a from b, b from a)", others)
	}
}

// priorRecord with crossFamily scores each member's prior from the other
// families only: smooth curves do not foretell a family's learning-rate
// drop, so the cross-family record is worse than the same-family one.
func TestPriorRecordCrossFamily(t *testing.T) {
	rule := fit.Rule{Threshold: 0.02, Window: 10, Cap: 100}
	byFamily := map[string][]familyMember{}
	var all []familyMember
	add := func(name, family string, values []float64) {
		c := Curve{Name: name, Family: family, Values: values}
		e, cens, _ := TrueConvergence(values, false, rule)
		m := familyMember{y: filled(values), epoch: float64(e), curve: c, censored: cens}
		byFamily[family], all = append(byFamily[family], m), append(all, m)
	}
	for i, rate := range []float64{0.6, 0.8, 1.0} {
		var smooth, step []float64
		for e := 1; e <= 80; e++ {
			k := float64(e)
			smooth = append(smooth, 1/(rate*k+1)+0.1)
			v := 1/(rate*k+1) + 0.4
			if e > 50 {
				v -= 0.3 // a learning-rate drop at epoch 50
			}
			step = append(step, v)
		}
		add(fmt.Sprintf("smooth%d", i), "smooth", smooth)
		add(fmt.Sprintf("step%d", i), "step", step)
	}
	// Within each family (the default prior draws on the job's family
	// only), and across families (leave-one-family-out).
	var same fit.Record
	for _, fam := range []string{"smooth", "step"} {
		r := priorRecord(byFamily[fam], 30, false, false, rule)
		same.Tried, same.Misses, same.SqRelErr = same.Tried+r.Tried, same.Misses+r.Misses, same.SqRelErr+r.SqRelErr
	}
	cross := priorRecord(all, 30, true, false, rule)
	if same.Tried != 6 || cross.Tried != 6 {
		t.Fatalf("tried %d and %d, want every member (6)", same.Tried, cross.Tried)
	}
	if same.Misses > 1 || cross.Misses < 3 || cross.SqRelErr <= 2*same.SqRelErr {
		t.Errorf("same family %+v, other families %+v: want at most one miss within a family and the other families' prior missing at least half", same, cross)
	}
}

// With budgets, a finished member lends its convergence epoch twice: as
// matched by shape and as the same share of the job's budget; a member
// without a budget, and the configuration without budgets, lend it once.
// The prediction of a curve with a budget never passes it.
func TestPriorBudgets(t *testing.T) {
	obs := []float64{1, 0.8, 0.7, 0.65, 0.6}
	a := familyMember{y: []float64{1, 0.8, 0.7, 0.65, 0.6, 0.58, 0.57, 0.56}, epoch: 60, curve: Curve{Budget: 100}}
	b := familyMember{y: a.y, epoch: 60, curve: Curve{}}
	got := priorEpochs(obs, 150, []familyMember{a, b}, true)
	if len(got) != 3 || got[2] != 90 {
		t.Errorf("with budgets: %v, want the two shape-matched epochs and 60/100 x 150 = 90", got)
	}
	if got := priorEpochs(obs, 150, []familyMember{a, b}, false); len(got) != 2 {
		t.Errorf("without budgets: %v, want the two shape-matched epochs", got)
	}
	if got := priorEpochs(obs, 0, []familyMember{a, b}, true); len(got) != 2 {
		t.Errorf("a job without a budget: %v, want the two shape-matched epochs", got)
	}
	curve := func(name string, b0 float64, budget float64) Curve {
		var v []float64
		for e := 1; e <= 60; e++ {
			v = append(v, 1/(b0*float64(e)+1)+0.2)
		}
		return Curve{Name: name, Family: "f", Values: v, Budget: budget}
	}
	rule := fit.Rule{Threshold: 0.01, Window: 10, Cap: 200}
	curves := []Curve{curve("slow", 0.01, 60), curve("slow2", 0.012, 60)}
	for _, cfg := range []ConvergenceConfig{{FamilyPrior: true}, {FamilyPrior: true, Budgets: true}} {
		for _, r := range ConvergenceWith(curves, []float64{0.25}, rule, fit.DefaultLossOptions, cfg) {
			if cfg.Budgets && r.P90 > 60 || !cfg.Budgets && r.P90 <= 60 {
				t.Errorf("budgets %v: %s predicted %d/%d/%d (budget 60)", cfg.Budgets, r.Curve, r.P10, r.P50, r.P90)
			}
		}
	}
}
