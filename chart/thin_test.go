package chart

import (
	"reflect"
	"testing"
)

func TestThinSteps(t *testing.T) {
	times := []float64{0, 60, 120, 180, 240, 300}
	state := []int{1, 1, 2, 2, 2, 3}
	same := func(a, b int) bool { return state[a] == state[b] }
	// Where nothing changed there is no point; the first and last stay.
	got, thinned := thinSteps(times, same, 10)
	want := []stepPoint{{0, 0}, {120, 2}, {300, 5}}
	if thinned || !reflect.DeepEqual(got, want) {
		t.Errorf("thinSteps = %v (thinned %v), want %v", got, thinned, want)
	}
	// Beyond max points: the state at evenly spaced times, ending at the last.
	var many []float64
	var alt []int
	for i := 0; i < 1000; i++ {
		many = append(many, float64(i))
		alt = append(alt, i%2)
	}
	got, thinned = thinSteps(many, func(a, b int) bool { return alt[a] == alt[b] }, 100)
	if !thinned || len(got) > 101 || got[0] != (stepPoint{0, 0}) || got[len(got)-1].t != 999 {
		t.Fatalf("thinSteps of 1000 changes to 100: %d points, first %v, last %v", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i].t <= got[i-1].t || many[got[i].x] > got[i].t {
			t.Fatalf("point %d %v after %v: not ascending, or a state from the future", i, got[i], got[i-1])
		}
	}
}
