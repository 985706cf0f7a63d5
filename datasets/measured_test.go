package datasets

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/fit"
)

// The shared data's README reports that the synchronous model fitted by
// relative-error NNLS on all rows of a model leaves a median relative error
// of about 4-7% and a 90th percentile of about 9-21%.
func TestReferenceSpeedModelsMatchPublishedAccuracy(t *testing.T) {
	ms, err := Measured()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 612 {
		t.Fatalf("%d measurements, want 612", len(ms))
	}
	for _, model := range MeasuredModels(ms) {
		f, err := ReferenceSpeedModel(ms, model)
		if err != nil {
			t.Fatal(err)
		}
		var errs []float64
		for _, m := range ms {
			if m.Model == model && m.Speed > 0 {
				errs = append(errs, math.Abs(f.Model.Speed(m.PS, m.Workers)-m.Speed)/m.Speed)
			}
		}
		med, p90 := fit.Median(errs), fit.Quantile(errs, 0.9)
		t.Logf("%-12s used %3d failed %d median %.3f p90 %.3f theta %.4g", model, f.Used, f.Failed, med, p90, f.Model.Theta)
		if med > 0.08 || p90 > 0.22 {
			t.Errorf("%s: median %.3f p90 %.3f, published about 0.04-0.07 and 0.09-0.21", model, med, p90)
		}
	}
}
