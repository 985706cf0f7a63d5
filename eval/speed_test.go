package eval

import (
	"errors"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
)

func measured(t *testing.T) []SpeedMeasurement {
	ms, err := datasets.Measured()
	if err != nil {
		t.Fatal(err)
	}
	var out []SpeedMeasurement
	for _, m := range ms {
		out = append(out, SpeedMeasurement{Key: m.Model, Mode: m.Mode, GlobalBatch: float64(m.GlobalBatch), PS: m.PS, Workers: m.Workers, Speed: m.Speed})
	}
	return out
}

// Random sampling pools its trials; suggest sampling is one deterministic
// trial that starts at 1 PS + 1 worker.
func TestSpeedSampling(t *testing.T) {
	ms := measured(t)
	random, err := Speed(ms, 10, 7, 3, SampleRandom)
	if err != nil {
		t.Fatal(err)
	}
	suggest, err := Speed(ms, 10, 7, 3, SampleSuggest)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Speed(ms, 10, 1, 99, SampleSuggest)
	for i, r := range random {
		if r.Trials != 7 || r.Predicted < 7*(r.Configs-10-10) {
			t.Errorf("%s random: %d trials, %d predictions of %d configurations", r.Key, r.Trials, r.Predicted, r.Configs)
		}
		s := suggest[i]
		if s.Trials != 1 || s.SampledCfg[0].PS != 1 || s.SampledCfg[0].Workers != 1 {
			t.Errorf("%s suggest: %d trials, first sample %v", s.Key, s.Trials, s.SampledCfg[0])
		}
		if s.MedianErr != again[i].MedianErr || s.P90Err != again[i].P90Err {
			t.Errorf("%s suggest depends on the seed", s.Key)
		}
	}
	if _, err := Speed(ms, 10, 1, 1, "grid"); err == nil {
		t.Error("unknown sampling accepted")
	}
}

// TestSpeedBoundsItsArguments: samples and trials that would size a map
// negatively or run without end are input errors.
func TestSpeedBoundsItsArguments(t *testing.T) {
	ms := []SpeedMeasurement{{Key: "m", Mode: fit.Async, PS: 1, Workers: 1, Speed: 1}, {Key: "m", Mode: fit.Async, PS: 1, Workers: 2, Speed: 2}}
	for _, c := range []struct {
		n, trials int
		sampling  string
	}{{0, 1, SampleSuggest}, {-3, 1, SampleRandom}, {MaxSamples + 1, 1, SampleSuggest}, {2, 0, SampleRandom}, {2, 1 << 40, SampleRandom}} {
		_, err := Speed(ms, c.n, c.trials, 1, c.sampling)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("samples %d, trials %d, %s: %v", c.n, c.trials, c.sampling, err)
		}
	}
}
