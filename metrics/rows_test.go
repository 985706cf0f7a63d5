package metrics

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestLossExact checks that every compact form of Loss gives back each
// point bit for bit, and that each form is the one chosen.
func TestLossExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	nan64 := math.Float64frombits(0x7ff8000000000123) // a payload float32 cannot hold
	cases := []struct {
		name          string
		step          func(i int) int64
		value         func(i int) float64
		stored, wide  bool // steps stored (off or steps), as int64
		f32           bool
		wantNonFinite int
	}{
		{"every step, float32", func(i int) int64 { return int64(i) }, func(i int) float64 { return float64(float32(1 / float64(i+1))) }, false, false, true, 0},
		{"every 50 steps from 7", func(i int) int64 { return 7 + 50*int64(i) }, func(i int) float64 { return float64(float32(rng.Float64())) }, false, false, true, 0},
		{"irregular, float64", func(i int) int64 { return int64(i*i + i%3) }, func(i int) float64 { return rng.Float64() }, true, false, false, 0},
		{"span past 2^32", func(i int) int64 { return int64(i) << 27 * int64(1+i/199*8000) }, func(i int) float64 { return float64(i) }, true, true, true, 0},
		{"non-finite float32", func(i int) int64 { return int64(i) }, func(i int) float64 {
			// A NaN read from a float32 (math.NaN's payload is not one's).
			return []float64{float64(math.Float32frombits(0x7fc00000)), math.Inf(1), math.Inf(-1), 0.5}[i%4]
		}, false, false, true, 150},
		{"NaN payload", func(i int) int64 { return int64(i) }, func(i int) float64 {
			if i == 10 {
				return nan64
			}
			return 1
		}, false, false, false, 1},
	}
	for _, c := range cases {
		const n = 200
		s := make([]Sample, n)
		for i := range s {
			s[i].Step, s[i].Value = c.step(i), c.value(i)
		}
		l, nonFinite := newLoss(s)
		// The columns' path (steps increase in every case) gives the same.
		steps64, vals64 := make([]int64, n), make([]float64, n)
		for i := range s {
			steps64[i], vals64[i] = s[i].Step, s[i].Value
		}
		if lc, nf := newLossColumns(steps64, vals64); !sameLoss(lc, l) || nf != nonFinite {
			t.Errorf("%s: newLossColumns gives %d non-finite and a different Loss (off %v steps %v f32 %v)", c.name, nf, lc.off != nil, lc.steps != nil, lc.f32 != nil)
		}
		if l.Len() != n || nonFinite != c.wantNonFinite {
			t.Errorf("%s: %d points, %d non-finite; want %d, %d", c.name, l.Len(), nonFinite, n, c.wantNonFinite)
		}
		if stored := l.off != nil || l.steps != nil; stored != c.stored || (l.steps != nil) != c.wide || (l.f32 != nil) != c.f32 {
			t.Errorf("%s: form off %v steps %v f32 %v", c.name, l.off != nil, l.steps != nil, l.f32 != nil)
		}
		steps, values := l.AppendSteps(nil), l.AppendValues(nil)
		for i, x := range s {
			p := l.At(i)
			if p.Step != x.Step || steps[i] != x.Step || math.Float64bits(p.Value) != math.Float64bits(x.Value) || math.Float64bits(values[i]) != math.Float64bits(x.Value) {
				t.Fatalf("%s: point %d is %v (%d, %v), want %v", c.name, i, p, steps[i], values[i], x.Point)
			}
		}
	}
	var zero Loss
	if zero.Len() != 0 || len(zero.Points()) != 0 || len(zero.AppendSteps(nil)) != 0 || len(zero.AppendValues(nil)) != 0 {
		t.Error("the zero Loss has points")
	}
}

// sameLoss compares two Losses field by field, values bit for bit (NaNs
// included, which reflect.DeepEqual never finds equal).
func sameLoss(a, b Loss) bool {
	if a.n != b.n || a.first != b.first || a.stride != b.stride || !reflect.DeepEqual(a.off, b.off) || !reflect.DeepEqual(a.steps, b.steps) ||
		(a.f32 == nil) != (b.f32 == nil) || len(a.f32) != len(b.f32) || (a.f64 == nil) != (b.f64 == nil) || len(a.f64) != len(b.f64) {
		return false
	}
	for i := range a.f32 {
		if math.Float32bits(a.f32[i]) != math.Float32bits(b.f32[i]) {
			return false
		}
	}
	for i := range a.f64 {
		if math.Float64bits(a.f64[i]) != math.Float64bits(b.f64[i]) {
			return false
		}
	}
	return true
}
