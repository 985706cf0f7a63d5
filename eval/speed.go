package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/optimus-sched/optimus/fit"
)

// SpeedMeasurement is one measured speed of a job (or model) at a
// configuration.
type SpeedMeasurement struct {
	Key         string // job or model
	Mode        string
	GlobalBatch float64
	PS, Workers int
	Speed       float64 // 0 or NaN: a failed run
	// Nodes and LocalBatch, for allreduce, as in fit.SpeedSample.
	Nodes      int
	LocalBatch float64
}

func (m SpeedMeasurement) sample() fit.SpeedSample {
	return fit.SpeedSample{PS: m.PS, Workers: m.Workers, Speed: m.Speed, Nodes: m.Nodes, LocalBatch: m.LocalBatch}
}

// Sampling strategies for Speed.
const (
	// SampleRandom draws the fitted configurations uniformly at random.
	SampleRandom = "random"
	// SampleSuggest takes the smallest configuration (where a job starts),
	// then the rest as fit.SuggestConfigs would choose them among the
	// measured configurations. It is deterministic: one trial suffices.
	SampleSuggest = "suggest"
)

// SpeedResult is the cross-validated accuracy of the speed model for one
// key.
type SpeedResult struct {
	Key        string
	Mode       string
	Configs    int // measured configurations (failed runs included)
	Samples    int // configurations fitted on, per trial
	Trials     int
	Failed     int // failed runs among the sampled ones, over all trials
	Predicted  int // predictions compared, over all trials
	MedianErr  float64
	P90Err     float64
	MaxErr     float64
	Err        string
	LastTheta  [5]float64
	SampledCfg []fit.Config // the last trial's sampled configurations
}

// Bounds of Speed's arguments: each trial fits a model, so trials bound the
// time, samples what one fit holds.
const (
	MaxSamples = 10_000
	MaxTrials  = 10_000
)

// InputError is a problem with the arguments of an evaluation: the caller's
// input (the CLI exits 2 on it).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// InvalidInput marks the error as one of the input.
func (e *InputError) InvalidInput() bool { return true }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// Speed fits, for each key, the speed model on n sampled configurations
// and predicts every other measured configuration; errors are
// |predicted - measured| / measured. Random sampling repeats this over the
// given number of trials, each drawing a new sample from the seeded
// generator, and pools the errors. Failed runs count
// as sampled (a failed measurement costs its time too) but are never
// predicted.
func Speed(ms []SpeedMeasurement, n, trials int, seed uint64, sampling string) ([]SpeedResult, error) {
	if sampling != SampleRandom && sampling != SampleSuggest {
		return nil, inputErrorf("unknown sampling %q (suggest or random)", sampling)
	}
	if n < 1 || n > MaxSamples {
		return nil, inputErrorf("%d configurations to fit on: give 1 to %d", n, MaxSamples)
	}
	if sampling == SampleRandom && (trials < 1 || trials > MaxTrials) {
		return nil, inputErrorf("%d trials: give 1 to %d", trials, MaxTrials)
	}
	if sampling == SampleSuggest {
		trials = 1
	}
	byKey := map[string][]SpeedMeasurement{}
	var keys []string
	for _, m := range ms {
		if _, ok := byKey[m.Key]; !ok {
			keys = append(keys, m.Key)
		}
		byKey[m.Key] = append(byKey[m.Key], m)
	}
	slices.Sort(keys)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []SpeedResult
	for _, key := range keys {
		rows := byKey[key]
		r := SpeedResult{Key: key, Mode: rows[0].Mode, Configs: len(rows), Samples: n, Trials: trials}
		if len(rows) <= n {
			r.Err = fmt.Sprintf("only %d configurations measured: nothing left to predict after sampling %d", len(rows), n)
			out = append(out, r)
			continue
		}
		var errs []float64
		for t := 0; t < trials; t++ {
			idx := sampleIndices(rows, n, rng, sampling)
			in := make(map[int]bool, n)
			var samples []fit.SpeedSample
			r.SampledCfg = r.SampledCfg[:0]
			for _, i := range idx {
				in[i] = true
				samples = append(samples, rows[i].sample())
				r.SampledCfg = append(r.SampledCfg, fit.SampleConfig(rows[i].sample()))
			}
			f, err := fit.FitSpeed(rows[0].Mode, rows[0].GlobalBatch, samples)
			r.Failed += f.Failed
			if err != nil {
				continue // too many failed runs in this sample: no model
			}
			r.LastTheta = f.Model.Theta
			for i, m := range rows {
				if in[i] || !(m.Speed > 0) || math.IsInf(m.Speed, 0) {
					continue
				}
				errs = append(errs, math.Abs(f.Model.SampleSpeed(m.sample())-m.Speed)/m.Speed)
			}
		}
		r.Predicted = len(errs)
		if len(errs) == 0 {
			r.Err = "no trial gave a model"
		} else {
			r.MedianErr, r.P90Err, r.MaxErr = fit.Median(errs), fit.Quantile(errs, 0.9), slices.Max(errs)
		}
		out = append(out, r)
	}
	return out, nil
}

func sampleIndices(rows []SpeedMeasurement, n int, rng *rand.Rand, sampling string) []int {
	if sampling == SampleRandom {
		return rng.Perm(len(rows))[:n]
	}
	// Suggest: the smallest configuration first (1 PS + 1 worker, where
	// every job starts), then what fit.SuggestConfigs would measure next
	// among the measured configurations.
	first := 0
	for i, m := range rows {
		if m.PS+m.Workers < rows[first].PS+rows[first].Workers {
			first = i
		}
	}
	index := map[fit.Config]int{}
	var cands []fit.Config
	for i, m := range rows {
		c := fit.SampleConfig(m.sample())
		if _, dup := index[c]; !dup && i != first {
			index[c] = i
			cands = append(cands, c)
		}
	}
	measured := []fit.Config{fit.SampleConfig(rows[first].sample())}
	idx := []int{first}
	for _, c := range fit.SuggestConfigs(measured, cands, n-1) {
		idx = append(idx, index[c])
	}
	return idx
}
