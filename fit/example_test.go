package fit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
)

// Fit a job's convergence curve to the loss it has logged so far, and
// predict when it converges. The loss here is logged every 100 steps for
// the first 15 epochs of 500 steps, from the curve 1/(0.0004·k + 0.45) +
// 0.25 with 1% of noise (seeded), as a real log has.
func ExampleFitLoss() {
	truth := fit.Curve{B0: 0.0004, B1: 0.45, B2: 0.25}
	const epochSteps = 500
	rng := rand.New(rand.NewPCG(1, 2))
	var points []fit.LossPoint
	for k := 100.0; k <= 15*epochSteps; k += 100 {
		points = append(points, fit.LossPoint{Step: k, Value: truth.At(k) * (1 + 0.01*rng.NormFloat64())})
	}
	f, err := fit.FitLoss(points, fit.DefaultLossOptions)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d points used, quality %s\n", f.Used, f.Quality)
	// The curve is fitted to losses divided by the first one (f.Scale);
	// f.Value converts back.
	fmt.Printf("loss at epoch 60: %.3f fitted, %.3f true\n", f.Value(f.Curve.At(60*epochSteps)), truth.At(60*epochSteps))

	p := fit.PredictConvergence(f, epochSteps, fit.DefaultRule)
	// The rule measures the fall relative to the loss at the start.
	trueEpoch, _ := fit.DefaultRule.ConvergenceEpoch(truth, epochSteps, truth.At(points[0].Step))
	fmt.Printf("converges at epoch %d (p10 %d, p90 %d); the true curve at epoch %d\n", p.P50, p.P10, p.P90, trueEpoch)
	// Output:
	// 75 points used, quality good
	// loss at epoch 60: 0.332 fitted, 0.330 true
	// converges at epoch 37 (p10 36, p90 37); the true curve at epoch 37
}

// Fit the speed model of a synchronous job to profiling runs at a few
// configurations and predict its speed at the others: ResNet-50's measured
// speeds (the embedded measurements, datasets.Measured) with 1, 2, 4, 8 or 12 PS and workers, against all the others.
func ExampleFitSpeed() {
	ms, err := datasets.Measured()
	if err != nil {
		fmt.Println(err)
		return
	}
	profiled := func(n int) bool { return slices.Contains([]int{1, 2, 4, 8, 12}, n) }
	var samples, others []fit.SpeedSample
	for _, m := range ms {
		s := fit.SpeedSample{PS: m.PS, Workers: m.Workers, Speed: m.Speed}
		switch {
		case m.Model != "resnet-50" || !(m.Speed > 0): // another model, a failed run
		case profiled(m.PS) && profiled(m.Workers):
			samples = append(samples, s)
		default:
			others = append(others, s)
		}
	}
	f, err := fit.FitSpeed(fit.Sync, 32, samples)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("fitted to %d runs: median error %.1f%%\n", f.Used, 100*f.MedianRelErr)
	var errs []float64
	for _, s := range others {
		errs = append(errs, math.Abs(f.Model.Speed(s.PS, s.Workers)-s.Speed)/s.Speed)
	}
	fmt.Printf("%d other configurations: median error %.1f%%\n", len(others), 100*fit.Median(errs))
	for _, s := range others {
		if c := [2]int{s.PS, s.Workers}; c == [2]int{3, 6} || c == [2]int{6, 12} || c == [2]int{10, 10} {
			fmt.Printf("%2d PS, %2d workers: %5.2f steps/s predicted, %5.2f measured\n", s.PS, s.Workers, f.Model.Speed(s.PS, s.Workers), s.Speed)
		}
	}
	// Output:
	// fitted to 25 runs: median error 11.6%
	// 185 other configurations: median error 10.1%
	//  3 PS,  6 workers: 22.61 steps/s predicted, 30.17 measured
	//  6 PS, 12 workers: 22.79 steps/s predicted, 19.29 measured
	// 10 PS, 10 workers: 33.36 steps/s predicted, 36.74 measured
}
