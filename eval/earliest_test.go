package eval

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/fit"
)

// A log whose window fall shrinks geometrically meets the rule where
// Earliest extrapolates it to; a 1/k log's fall shrinks slower, so Earliest
// comes no later than its truth; a log flat at its end, or one whose fall
// grows, gives 0.
func TestEarliest(t *testing.T) {
	rule := fit.Rule{Threshold: 0.02, Window: 10, Cap: 200}
	curve := func(n int, f func(e float64) float64) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = f(float64(i + 1))
		}
		return y
	}
	geo := curve(120, func(e float64) float64 { return 0.3 + 0.7*math.Pow(0.95, e) })
	truth, cens, _ := TrueConvergence(geo, false, rule)
	if cens {
		t.Fatal("the geometric curve is censored")
	}
	if got := Earliest(geo[:30], false, rule); got < truth-1 || got > truth+1 || got <= 30 {
		t.Errorf("geometric: Earliest %d, truth %d", got, truth)
	}
	inv := curve(150, func(e float64) float64 { return 0.2 + 1/(0.1*e+1) })
	truth, _, _ = TrueConvergence(inv, false, rule)
	if got := Earliest(inv[:25], false, rule); got <= 25 || got > truth {
		t.Errorf("1/k: Earliest %d, want in (25, %d]", got, truth)
	}
	if got := Earliest(geo[:100], false, rule); got != 0 {
		t.Errorf("flat at its end: Earliest %d, want 0", got)
	}
	grow := curve(40, func(e float64) float64 { return 1 - 0.0002*e*e })
	if got := Earliest(grow, false, rule); got != 0 {
		t.Errorf("a fall that grows: Earliest %d, want 0", got)
	}
	if got := Earliest(geo[:15], false, rule); got != 0 {
		t.Errorf("shorter than two windows: Earliest %d, want 0", got)
	}
}

// Soonest, the epoch a still-falling log meets the rule if it stops falling
// now, comes past the log's end and no later than the truth of any
// continuation that keeps falling (geometric, 1/k), and no later than
// Earliest; a log flat at its end, or no longer than a window, gives 0.
func TestSoonest(t *testing.T) {
	rule := fit.Rule{Threshold: 0.02, Window: 10, Cap: 200}
	curve := func(n int, f func(e float64) float64) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = f(float64(i + 1))
		}
		return y
	}
	checked := 0
	for name, y := range map[string][]float64{
		"geometric": curve(150, func(e float64) float64 { return 0.3 + 0.7*math.Pow(0.95, e) }),
		"1/k":       curve(150, func(e float64) float64 { return 0.2 + 1/(0.1*e+1) }),
	} {
		truth, _, _ := TrueConvergence(y, false, rule)
		for _, n := range []int{15, 25, 40} {
			if Floor(y[:n], false, rule) <= n {
				continue // flat by the rule already
			}
			checked++
			s := Soonest(y[:n], false, rule)
			if s <= n || s > truth {
				t.Errorf("%s observed %d: Soonest %d, want in (%d, %d]", name, n, s, n, truth)
			}
			if e := Earliest(y[:n], false, rule); e > 0 && s > e {
				t.Errorf("%s observed %d: Soonest %d after Earliest %d", name, n, s, e)
			}
		}
	}
	if checked < 4 {
		t.Fatalf("%d logs still falling at their end, want at least 4", checked)
	}
	geo := curve(120, func(e float64) float64 { return 0.3 + 0.7*math.Pow(0.95, e) })
	if got := Soonest(geo[:100], false, rule); got != 0 {
		t.Errorf("flat at its end: Soonest %d, want 0", got)
	}
	if got := Soonest(geo[:10], false, rule); got != 0 {
		t.Errorf("no longer than a window: Soonest %d, want 0", got)
	}
}
