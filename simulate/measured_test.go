package simulate_test

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/simulate"
)

func TestMeasuredSpeedOnTheDL2Measurements(t *testing.T) {
	ms, err := datasets.Measured()
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range datasets.MeasuredModels(ms) {
		var samples []fit.SpeedSample
		lo, hi := math.Inf(1), 0.0
		for _, m := range ms {
			if m.Model == model {
				samples = append(samples, fit.SpeedSample{PS: m.PS, Workers: m.Workers, Speed: m.Speed})
				if m.Speed > 0 {
					lo, hi = math.Min(lo, m.Speed), math.Max(hi, m.Speed)
				}
			}
		}
		sp, err := simulate.NewMeasuredSpeed(samples)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			if s.Speed > 0 && sp.Speed(s.PS, s.Workers) != s.Speed {
				// Repeated measurements of a configuration are averaged.
				n, sum := 0, 0.0
				for _, o := range samples {
					if o.PS == s.PS && o.Workers == s.Workers && o.Speed > 0 {
						n, sum = n+1, sum+o.Speed
					}
				}
				if math.Abs(sp.Speed(s.PS, s.Workers)-sum/float64(n)) > 1e-12 {
					t.Errorf("%s: speed at measured (%d, %d) is %g, measured %g", model, s.PS, s.Workers, sp.Speed(s.PS, s.Workers), s.Speed)
				}
			}
		}
		for p := 1; p <= sp.MaxPS+3; p++ {
			for w := 1; w <= sp.MaxWorkers+3; w++ {
				if v := sp.Speed(p, w); !(v >= lo && v <= hi) {
					t.Fatalf("%s: speed at (%d, %d) is %g, outside the measured range [%g, %g]", model, p, w, v, lo, hi)
				}
			}
		}
		if sp.Speed(sp.MaxPS+5, sp.MaxWorkers+5) != sp.Speed(sp.MaxPS, sp.MaxWorkers) || sp.Speed(0, 3) != 0 {
			t.Errorf("%s: not clamped beyond the measured range, or a speed without PS", model)
		}
	}
	if _, err := simulate.NewMeasuredSpeed([]fit.SpeedSample{{PS: 1, Workers: 1, Speed: 0}}); err == nil {
		t.Error("a profile of failed runs only was accepted")
	}
}
