package solve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The stability rule's candidates computed from a guessed plan from scratch
// (grownAlone) replace only candidates with the same pins: the plan is the
// same with the guess and without it, on problems where the guess holds
// and where capacity binds and it does not, and the same whether the
// candidates are computed at the same time or one after the other.
func TestGuessedCandidatesChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	used := 0
	for i := range 150 {
		p := randomProblem(t, rng)
		if i%2 == 0 {
			// A cluster large enough for every job's limits: the guess holds.
			for range 8 {
				p.Nodes = append(p.Nodes, []float64{8, 64, 512, 50}, []float64{0, 96, 384, 50})
			}
		}
		for _, rc := range []float64{30, 300, 1e9} {
			for _, capacity := range CapacityChecks {
				opts := Options{Policy: Optimus, RestartCost: rc, BaselineCap: DefaultBaselineCap, Capacity: capacity}
				plain := prepare(p, opts)
				plain.noGuess = true
				guessing := prepare(p, opts)
				guessing.concurrent = i%4 != 3 // also without goroutines, as small problems go
				want := fmt.Sprintf("%+v", *plain.result(plain.stableGreedy(rc), opts))
				got := fmt.Sprintf("%+v", *guessing.result(guessing.stableGreedy(rc), opts))
				if got != want {
					t.Fatalf("problem %d, restart cost %g, %s capacity: with the guess\n%s\nwithout\n%s", i, rc, capacity, got, want)
				}
				if guessing.guessUsed {
					used++
				}
			}
		}
	}
	if used == 0 {
		t.Fatal("no guessed candidate was used: the test checks nothing")
	}
	t.Logf("guessed candidates used in %d of %d solves", used, 150*3*2)
}

// appendGain writes what fmt's %.4g writes.
func TestAppendGainIsFmtG4(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-300, 5e-324, 1e300, math.MaxFloat64, 12345.678, 9999.5, 99995, 0.00012345,
		math.Inf(1), math.Inf(-1), math.NaN()}
	for range 100000 {
		vals = append(vals, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(40)-20)), math.Float64frombits(rng.Uint64()))
	}
	for _, x := range vals {
		if got, want := string(appendGain(nil, x)), fmt.Sprintf("%.4g", x); got != want {
			t.Fatalf("%v: %q, fmt writes %q", x, got, want)
		}
	}
}
