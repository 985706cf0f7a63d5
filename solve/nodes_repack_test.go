package solve

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// countDown is how the exhaustive search found the most tasks that fit
// before mostThatFit: trying every count from left down.
func countDown(f, eps, d []float64, left int) int {
	n := left
	for n > 0 && !fitsN(f, eps, d, n) {
		n--
	}
	return n
}

func TestMostThatFitCountsAsCountingDown(t *testing.T) {
	eps := []float64{1e-9 * 64, 1e-9 * 256, 1e-9}
	cases := []struct {
		name string
		f, d []float64
		left int
	}{
		{"exact multiple", []float64{8, 32, 1}, []float64{2, 8, 0.25}, 9},
		{"one resource binds", []float64{8, 5, 1}, []float64{1, 2, 0}, 10},
		{"nothing fits", []float64{0.5, 32, 1}, []float64{1, 1, 0.1}, 4},
		{"left binds", []float64{64, 256, 1}, []float64{1, 1, 0.01}, 3},
		{"no demand", []float64{0, 0, 0}, []float64{0, 0, 0}, 7},
		{"none left", []float64{8, 8, 8}, []float64{1, 1, 1}, 0},
		{"thirds, rounding at the edge", []float64{1, 1, 1}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 5},
		{"tenths, rounding at the edge", []float64{0.3, 0.7, 1}, []float64{0.1, 0.1, 0.1}, 12},
		{"overdrawn node", []float64{-1, 4, 4}, []float64{1, 1, 1}, 3},
		{"negative demand", []float64{-1, 4, 4}, []float64{-1, 1, 1}, 3},
		{"infinite room", []float64{math.Inf(1), 4, 4}, []float64{1, 1, 1}, 6},
		{"tiny demand", []float64{4, 4, 4}, []float64{5e-324, 0, 0}, 6},
	}
	for _, c := range cases {
		want := countDown(c.f, eps, c.d, c.left)
		if got := mostThatFit(c.f, eps, c.d, c.left); got != want {
			t.Errorf("%s: mostThatFit(%v, %v, %d) = %d, counting down gives %d", c.name, c.f, c.d, c.left, got, want)
		}
	}
	// Free capacities made of whole tasks and remainders, as a node's are
	// after tasks of several demands were taken and given back.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		d := make([]float64, 3)
		f := make([]float64, 3)
		for r := range d {
			d[r] = float64(rng.IntN(9)) / float64(1+rng.IntN(10))
			f[r] = float64(rng.IntN(40))*d[r] + float64(rng.IntN(5))/float64(1+rng.IntN(7)) - float64(rng.IntN(2))*eps[r]
		}
		left := rng.IntN(30)
		if got, want := mostThatFit(f, eps, d, left), countDown(f, eps, d, left); got != want {
			t.Fatalf("mostThatFit(%v, %v, %d) = %d, counting down gives %d", f, d, left, got, want)
		}
	}
}

func TestStateKeyIsTheMultisetOfFreeCapacities(t *testing.T) {
	pg := &packing{pk: &packer{nr: 2}}
	key := func(k int, free ...float64) string {
		pg.free = free
		b, _ := pg.stateKey(nil, k, nil)
		return string(b)
	}
	base := key(3, 4, 1, 2, 8, 4, 0.5)
	for _, c := range []struct {
		name string
		same bool
		key  string
	}{
		{"the same nodes", true, key(3, 4, 1, 2, 8, 4, 0.5)},
		{"the nodes in another order", true, key(3, 2, 8, 4, 0.5, 4, 1)},
		{"another kind next", false, key(2, 4, 1, 2, 8, 4, 0.5)},
		{"one capacity differs", false, key(3, 4, 1, 2, 8, 4, 0.25)},
		{"resources of a node swapped", false, key(3, 1, 4, 2, 8, 4, 0.5)},
		{"capacities swapped across nodes", false, key(3, 4, 8, 2, 1, 4, 0.5)},
	} {
		if (c.key == base) != c.same {
			t.Errorf("%s: same key %v, want %v", c.name, c.key == base, c.same)
		}
	}
	// The order of the nodes does not matter, over every permutation of
	// four nodes with two alike.
	nodes := [][2]float64{{1, 2}, {1, 2}, {0, 3}, {2, 0}}
	want := ""
	perm := []int{0, 1, 2, 3}
	for {
		var free []float64
		for _, i := range perm {
			free = append(free, nodes[i][0], nodes[i][1])
		}
		got := key(1, free...)
		if want == "" {
			want = got
		} else if got != want {
			t.Fatalf("nodes in order %v give another key", perm)
		}
		if !nextPermutation(perm) {
			break
		}
	}
}

// nextPermutation steps p to the next permutation in lexicographic order,
// reporting false after the last.
func nextPermutation(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}
