package fit

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Published reference solutions.
func TestNNLSReference(t *testing.T) {
	cases := []struct {
		name  string
		a     *mat.Dense
		b     []float64
		x     []float64
		rnorm float64
		tol   float64
	}{
		{
			// SciPy's scipy.optimize.nnls documentation example.
			name: "scipy", a: mat.NewDense(3, 2, []float64{1, 0, 1, 0, 0, 1}),
			b: []float64{2, 1, 1}, x: []float64{1.5, 1}, rnorm: 0.7071067811865476, tol: 1e-12,
		},
		{
			// The same with b on the wrong side of every column: x = 0.
			name: "scipy-negative", a: mat.NewDense(3, 2, []float64{1, 0, 1, 0, 0, 1}),
			b: []float64{-1, -1, -1}, x: []float64{0, 0}, rnorm: math.Sqrt(3), tol: 1e-12,
		},
		{
			// MATLAB's lsqnonneg documentation example (printed to 4 digits;
			// MATLAB reports the squared residual norm, resnorm = 0.8315):
			// the unconstrained solution has a negative first coefficient.
			name: "matlab-lsqnonneg",
			a: mat.NewDense(4, 2, []float64{
				0.0372, 0.2869,
				0.6861, 0.7071,
				0.6233, 0.6245,
				0.6344, 0.6170}),
			b: []float64{0.8587, 0.1781, 0.0747, 0.8405}, x: []float64{0, 0.6929}, rnorm: math.Sqrt(0.8315), tol: 1e-4,
		},
	}
	for _, c := range cases {
		x, rnorm, err := NNLS(c.a, mat.NewVecDense(len(c.b), c.b))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range c.x {
			if math.Abs(x.AtVec(i)-c.x[i]) > c.tol {
				t.Errorf("%s: x[%d] = %.6g, want %.6g", c.name, i, x.AtVec(i), c.x[i])
			}
		}
		if math.Abs(rnorm-c.rnorm) > c.tol {
			t.Errorf("%s: residual %.6g, want %.6g", c.name, rnorm, c.rnorm)
		}
	}
}

// bruteForceNNLS solves NNLS by trying every support set: the optimum is the
// best unconstrained least-squares solution on a support that stays
// non-negative.
func bruteForceNNLS(a *mat.Dense, b *mat.VecDense) float64 {
	m, n := a.Dims()
	best := mat.Norm(b, 2) // x = 0
	for mask := 1; mask < 1<<n; mask++ {
		var idx []int
		for j := 0; j < n; j++ {
			if mask&(1<<j) != 0 {
				idx = append(idx, j)
			}
		}
		if len(idx) > m {
			continue
		}
		sub := mat.NewDense(m, len(idx), nil)
		for k, j := range idx {
			for i := 0; i < m; i++ {
				sub.Set(i, k, a.At(i, j))
			}
		}
		var s mat.VecDense
		if err := s.SolveVec(sub, b); err != nil {
			continue
		}
		ok := true
		for k := range idx {
			if s.AtVec(k) < 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var r mat.VecDense
		r.MulVec(sub, &s)
		r.SubVec(b, &r)
		best = math.Min(best, mat.Norm(&r, 2))
	}
	return best
}

func TestNNLSMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		m, n := 3+rng.IntN(12), 1+rng.IntN(6)
		a := mat.NewDense(m, n, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		b := mat.NewVecDense(m, nil)
		for i := 0; i < m; i++ {
			b.SetVec(i, rng.NormFloat64()*3)
		}
		x, rnorm, err := NNLS(a, b)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for j := 0; j < n; j++ {
			if x.AtVec(j) < 0 {
				t.Fatalf("trial %d: x[%d] = %g < 0", trial, j, x.AtVec(j))
			}
		}
		want := bruteForceNNLS(a, b)
		if rnorm > want*(1+1e-9)+1e-12 {
			t.Errorf("trial %d (%dx%d): residual %.12g, brute force %.12g", trial, m, n, rnorm, want)
		}
		// KKT: the gradient A^T(b - Ax) is <= 0 where x = 0 and ~0 where x > 0.
		var r, g mat.VecDense
		r.MulVec(a, x)
		r.SubVec(b, &r)
		g.MulVec(a.T(), &r)
		for j := 0; j < n; j++ {
			if x.AtVec(j) > 0 && math.Abs(g.AtVec(j)) > 1e-8 || x.AtVec(j) == 0 && g.AtVec(j) > 1e-8 {
				t.Errorf("trial %d: KKT fails at %d: x=%g gradient=%g", trial, j, x.AtVec(j), g.AtVec(j))
			}
		}
	}
}

// Dependent columns must not make NNLS loop or blow up.
func TestNNLSDependentColumns(t *testing.T) {
	a := mat.NewDense(4, 3, []float64{
		1, 2, 3,
		2, 4, 6,
		1, 2, 3,
		0, 0, 1})
	b := mat.NewVecDense(4, []float64{1, 2, 1, 1})
	x, rnorm, err := NNLS(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := bruteForceNNLS(a, b); rnorm > want+1e-9 {
		t.Errorf("residual %g, brute force %g (x=%v)", rnorm, want, mat.Formatted(x.T()))
	}
}
