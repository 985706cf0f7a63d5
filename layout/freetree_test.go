package layout

import (
	"math/rand/v2"
	"testing"
)

// First agrees with a linear scan for first fit, through random updates,
// with and without a skip set and a starting node.
func TestFreeTreeIsFirstFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		n, nr := 1+rng.IntN(40), 1+rng.IntN(3)
		eps := make([]float64, nr)
		for r := range eps {
			eps[r] = 1e-9
		}
		free := make([][]float64, n)
		for i := range free {
			free[i] = make([]float64, nr)
			for r := range free[i] {
				free[i][r] = float64(rng.IntN(5))
			}
		}
		tree := NewFreeTree(n, nr, eps, func(k int) []float64 { return free[k] })
		for step := range 50 {
			i := rng.IntN(n)
			for r := range free[i] {
				free[i][r] = float64(rng.IntN(5))
			}
			tree.Set(i, free[i])
			d := make([]float64, nr)
			for r := range d {
				d[r] = float64(rng.IntN(4))
			}
			from := rng.IntN(n + 1)
			odd := func(k int) bool { return k%2 == 1 }
			for _, skip := range []func(int) bool{nil, odd} {
				want := -1
				for k := from; k < n; k++ {
					fits := skip == nil || !skip(k)
					for r := range d {
						fits = fits && d[r] <= free[k][r]+eps[r]
					}
					if fits {
						want = k
						break
					}
				}
				if got := tree.First(from, d, skip); got != want {
					t.Fatalf("trial %d step %d: first fit of %v from %d: %d, want %d", trial, step, d, from, got, want)
				}
			}
		}
		// A clone is updated on its own.
		c := tree.Clone()
		c.Set(0, make([]float64, nr))
		if tree.seg[tree.leaves*nr] == 0 && free[0][0] != 0 {
			t.Fatalf("trial %d: updating a clone changed the original", trial)
		}
	}
}
