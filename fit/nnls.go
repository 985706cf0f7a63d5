// Package fit learns a job's models from its own measurements: the
// convergence curve l(k) = 1/(b0*k + b1) + b2 of its training loss and the
// speed f(p, w) it trains at with p parameter servers and w workers, both as
// in Optimus (Peng et al., EuroSys 2018, sections 3.1 and 3.2), fitted with
// non-negative least squares.
package fit

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNNLSIterations reports that NNLS did not converge within its iteration
// bound, which happens only for badly conditioned problems.
var ErrNNLSIterations = errors.New("fit: NNLS did not converge")

// NNLS solves the non-negative least-squares problem
//
//	minimise ||A x - b||_2 subject to x >= 0
//
// for an m x n matrix A by the active-set algorithm of Lawson and Hanson
// (Solving Least Squares Problems, Prentice-Hall 1974, chapter 23, algorithm
// NNLS). It returns the solution and the residual norm ||A x - b||_2.
//
// The algorithm keeps a passive set P of coefficients free to be positive
// (all others are held at zero). It repeatedly frees the coefficient whose
// gradient w = A^T (b - A x) most wants to grow, solves the unconstrained
// least-squares problem on P, and, where that solution leaves the feasible
// region, steps back along the segment to the boundary and returns the
// coefficients that hit zero to the active set. At the solution the
// Karush-Kuhn-Tucker conditions hold: x_P > 0 with w_P = 0, and w_j <= 0 for
// every j outside P.
func NNLS(a mat.Matrix, b mat.Vector) (*mat.VecDense, float64, error) {
	m, n := a.Dims()
	if b.Len() != m {
		panic(mat.ErrShape)
	}
	x := mat.NewVecDense(n, nil)
	passive := make([]bool, n)
	dependent := make([]bool, n) // columns found linearly dependent on the passive ones
	// Tolerance on the gradient, as in Lawson and Hanson's reference code:
	// a multiple of machine precision times the scale of A.
	tol := 10 * float64(max(m, n)) * 2.220446049250313e-16 * mat.Norm(a, 1)

	resid := mat.NewVecDense(m, nil)
	w := mat.NewVecDense(n, nil)
	gradient := func() {
		resid.MulVec(a, x)
		resid.SubVec(b, resid)
		w.MulVec(a.T(), resid)
	}
	gradient()

	s := make([]float64, n)
	for outer := 0; outer < 3*n+3; outer++ {
		// Free the held coefficient with the largest positive gradient.
		t, best := -1, tol
		for j := 0; j < n; j++ {
			if !passive[j] && !dependent[j] && w.AtVec(j) > best {
				t, best = j, w.AtVec(j)
			}
		}
		if t < 0 {
			return x, mat.Norm(resid, 2), nil
		}
		passive[t] = true
		for inner := 0; ; inner++ {
			if inner > 3*n+3 {
				return x, mat.Norm(resid, 2), ErrNNLSIterations
			}
			if !solvePassive(a, b, passive, s) {
				// The newly freed column depends on the passive ones: it
				// cannot improve the fit, so hold it at zero for good.
				passive[t], dependent[t] = false, true
				break
			}
			feasible := true
			for j := 0; j < n; j++ {
				if passive[j] && s[j] <= 0 {
					feasible = false
				}
			}
			if feasible {
				for j := 0; j < n; j++ {
					x.SetVec(j, s[j])
				}
				break
			}
			// Step from x towards s as far as feasibility allows.
			alpha := math.Inf(1)
			for j := 0; j < n; j++ {
				if passive[j] && s[j] <= 0 {
					xj := x.AtVec(j)
					alpha = math.Min(alpha, xj/(xj-s[j]))
				}
			}
			for j := 0; j < n; j++ {
				xj := x.AtVec(j)
				xj += alpha * (s[j] - xj)
				if passive[j] && xj <= tol*math.Max(1, math.Abs(xj)) {
					passive[j], xj = false, 0
				}
				x.SetVec(j, xj)
			}
		}
		gradient()
	}
	return x, mat.Norm(resid, 2), ErrNNLSIterations
}

// solvePassive solves the unconstrained least-squares problem restricted to
// the passive columns and writes it into s (zero elsewhere). It reports false
// when those columns are linearly dependent.
func solvePassive(a mat.Matrix, b mat.Vector, passive []bool, s []float64) bool {
	m, n := a.Dims()
	var idx []int
	for j := 0; j < n; j++ {
		s[j] = 0
		if passive[j] {
			idx = append(idx, j)
		}
	}
	if len(idx) > m {
		return false
	}
	ap := mat.NewDense(m, len(idx), nil)
	for k, j := range idx {
		for i := 0; i < m; i++ {
			ap.Set(i, k, a.At(i, j))
		}
	}
	var qr mat.QR
	qr.Factorize(ap)
	// Refuse a numerically singular system rather than return a huge
	// solution along a near-null direction.
	if c := qr.Cond(); math.IsInf(c, 1) || c > 1e12 {
		return false
	}
	sol := mat.NewVecDense(len(idx), nil)
	if err := qr.SolveVecTo(sol, false, b); err != nil {
		return false
	}
	for k, j := range idx {
		s[j] = sol.AtVec(k)
	}
	return true
}
