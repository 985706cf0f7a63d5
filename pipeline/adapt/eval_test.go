package adapt

import (
	"math"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/pipeline"
)

// TestCurveByEpoch: points at any spacing become one value per whole epoch
// (the mean of the epoch's points, missing where an epoch has none), and
// the fit's points keep a last, partial epoch. Issue 12, defects 3 and 7.
func TestCurveByEpoch(t *testing.T) {
	nan := math.NaN()
	pts := func(steps []float64, values []float64) pipeline.LossSeries {
		s := pipeline.LossSeries{Job: "j"}
		for i := range steps {
			s.Points = append(s.Points, fit.LossPoint{Step: steps[i], Value: values[i]})
		}
		return s
	}
	cases := []struct {
		name       string
		series     pipeline.LossSeries
		epochSteps float64
		values     []float64
		fitSteps   []float64
	}{
		{"one point per epoch", pts([]float64{10, 20, 30}, []float64{3, 2, 1}), 10,
			[]float64{3, 2, 1}, []float64{1, 2, 3}},
		{"every 2 epochs: odd epochs missing, not an error", pts([]float64{20, 40, 60}, []float64{3, 2, 1}), 10,
			[]float64{nan, 3, nan, 2, nan, 1}, []float64{2, 4, 6}},
		{"per step: averaged, not subsampled", pts([]float64{1, 2, 3, 4}, []float64{4, 2, 3, 1}), 2,
			[]float64{3, 2}, []float64{0.75, 1.75}},
		{"points after the last whole epoch are fitted", pts([]float64{10, 20, 25}, []float64{3, 2, 1.5}), 10,
			[]float64{3, 2}, []float64{1, 2, 2.5}},
		{"a NaN point is left out of its epoch's mean", pts([]float64{1, 2, 3, 4}, []float64{4, nan, 3, 1}), 2,
			[]float64{4, 2}, []float64{0.5, 1.75}},
		{"a step-0 point joins the first epoch", pts([]float64{0, 10}, []float64{5, 3}), 10,
			[]float64{4}, []float64{0.5}},
		{"log inside the first epoch", pts([]float64{1, 2}, []float64{3, 2}), 10,
			[]float64{}, []float64{0.15}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := curveByEpoch(c.series, c.epochSteps)
			eq := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12 }
			if !slices.EqualFunc(got.Values, c.values, eq) {
				t.Errorf("values %v, want %v", got.Values, c.values)
			}
			var steps []float64
			for _, p := range got.Points {
				steps = append(steps, p.Step)
			}
			if !slices.EqualFunc(steps, c.fitSteps, eq) {
				t.Errorf("fit steps %v, want %v", steps, c.fitSteps)
			}
		})
	}
}
