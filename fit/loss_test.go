package fit

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Noiseless points of a 1/k curve give back its coefficients.
func TestFitLossRecoversExactCurve(t *testing.T) {
	truth := Curve{B0: 2e-4, B1: 0.25, B2: 0.8}
	var pts []LossPoint
	for k := 0.0; k <= 20000; k += 250 {
		pts = append(pts, LossPoint{Step: k, Value: truth.At(k)})
	}
	f, err := FitLoss(pts, DefaultLossOptions)
	if err != nil {
		t.Fatal(err)
	}
	scale := truth.At(0)
	for _, k := range []float64{0, 5000, 20000, 100000} {
		if got, want := f.Curve.At(k)*scale, truth.At(k); math.Abs(got-want) > 1e-6*want {
			t.Errorf("l(%v) = %v, want %v (fit %+v)", k, got, want, f.Curve)
		}
	}
	if f.Quality != QualityGood || f.R2 < 0.999999 || f.Used != len(pts) || f.Dropped != 0 {
		t.Errorf("quality %s R2 %v used %d dropped %d", f.Quality, f.R2, f.Used, f.Dropped)
	}
}

// On noisy 1/k curves observed halfway, the predicted convergence epoch is
// close to the truth and the interval covers it most of the time.
func TestPredictConvergenceOnNoisyCurves(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const epochSteps = 1000.0
	var covered, n int
	var errs []float64
	for trial := 0; trial < 200; trial++ {
		l0, lEnd := 2+5*rng.Float64(), 0.2+0.5*rng.Float64()
		truth := Curve{B0: math.Exp(-12 + 4*rng.Float64()), B1: 1 / (l0 - lEnd), B2: lEnd}
		trueEpoch, capped := DefaultRule.ConvergenceEpoch(truth, epochSteps, truth.At(0))
		if capped || trueEpoch < 20 {
			continue
		}
		n++
		var pts []LossPoint
		for k := 0.0; k <= float64(trueEpoch)*epochSteps/2; k += epochSteps / 4 {
			pts = append(pts, LossPoint{Step: k, Value: truth.At(k) * math.Exp(0.03*rng.NormFloat64())})
		}
		f, err := FitLoss(pts, DefaultLossOptions)
		if err != nil {
			t.Fatal(err)
		}
		p := PredictConvergence(f, epochSteps, DefaultRule)
		errs = append(errs, math.Abs(float64(p.P50-trueEpoch))/float64(trueEpoch))
		if p.P10 <= trueEpoch && trueEpoch <= p.P90 {
			covered++
		}
	}
	med := Median(errs)
	t.Logf("%d curves: median relative epoch error %.3f, coverage %.2f", n, med, float64(covered)/float64(n))
	if n < 100 {
		t.Fatalf("only %d usable curves", n)
	}
	if med > 0.1 {
		t.Errorf("median relative epoch error %.3f, want <= 0.1", med)
	}
	if c := float64(covered) / float64(n); c < 0.8 {
		t.Errorf("coverage %.2f, want >= 0.8", c)
	}
}

// The two-variable NNLS of the b2 search agrees with the general one.
func TestNNLS2MatchesNNLS(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		m := 3 + rng.IntN(10)
		a := mat.NewDense(m, 2, nil)
		b := mat.NewVecDense(m, nil)
		for i := 0; i < m; i++ {
			a.Set(i, 0, rng.NormFloat64())
			a.Set(i, 1, rng.NormFloat64())
			b.SetVec(i, rng.NormFloat64())
		}
		var ata mat.Dense
		ata.Mul(a.T(), a)
		var atb mat.VecDense
		atb.MulVec(a.T(), b)
		b0, b1 := nnls2(ata.At(0, 0), ata.At(0, 1), ata.At(1, 1), atb.AtVec(0), atb.AtVec(1))
		x, _, err := NNLS(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(b0-x.AtVec(0)) > 1e-8 || math.Abs(b1-x.AtVec(1)) > 1e-8 {
			t.Errorf("trial %d: nnls2 (%g, %g), NNLS (%g, %g)", trial, b0, b1, x.AtVec(0), x.AtVec(1))
		}
	}
}

func TestFitLossDropsAndComplements(t *testing.T) {
	truth := Curve{B0: 1e-3, B1: 2, B2: 0.1} // accuracy 1 - l: from 0.4 to 0.9
	var pts []LossPoint
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0.0; k <= 10000; k += 200 {
		pts = append(pts, LossPoint{Step: k, Value: 1 - truth.At(k)*math.Exp(0.01*rng.NormFloat64())})
	}
	pts[10].Value = math.NaN()
	pts[20].Value = math.Inf(1)
	pts[30].Value = 0.02 // a spike of the loss 1 - 0.02 = 0.98, far above the curve
	opt := DefaultLossOptions
	opt.HigherIsBetter = true
	f, err := FitLoss(pts, opt)
	if err != nil {
		t.Fatal(err)
	}
	if f.Complement != 1 || f.Dropped != 3 || f.Used != len(pts)-3 {
		t.Errorf("complement %v, dropped %d, used %d", f.Complement, f.Dropped, f.Used)
	}
	if f.Quality != QualityGood {
		t.Errorf("quality %s (R2 %.3f, autocorr %.2f)", f.Quality, f.R2, f.Autocorr)
	}
	// The fitted curve, in accuracy units, matches the truth ahead.
	for _, k := range []float64{5000, 20000} {
		if got, want := f.Value(f.Curve.At(k)), 1-truth.At(k); math.Abs(got-want) > 0.01 {
			t.Errorf("accuracy at %v: %.4f, want %.4f", k, got, want)
		}
	}
	// Percentages are complemented from 100.
	for i := range pts {
		pts[i].Value *= 100
	}
	f, err = FitLoss(pts, opt)
	if err != nil || f.Complement != 100 {
		t.Errorf("percent metric: complement %v, %v", f.Complement, err)
	}
}

func TestFitLossRejects(t *testing.T) {
	if _, err := FitLoss([]LossPoint{{0, 1}, {10, 0.9}, {5, 0.8}}, DefaultLossOptions); err == nil {
		t.Error("steps going back were accepted")
	}
	f, err := FitLoss([]LossPoint{{0, 1}, {10, math.NaN()}, {20, 0.8}}, DefaultLossOptions)
	if err != nil || f.Quality != QualityInsufficient || f.Used != 2 || f.Dropped != 1 {
		t.Errorf("two usable points: %+v, %v", f, err)
	}
	if _, err := FitLoss([]LossPoint{{0, 1}, {10, 0}, {20, -1}}, DefaultLossOptions); err == nil {
		t.Error("non-positive values were accepted")
	}
}
