package datasets

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/optimus-sched/optimus/fit"
)

//go:embed data/ps-sync-measured.csv
var measuredCSV []byte

// Measurement is one row of the embedded speed measurements
// (data/ps-sync-measured.csv, see data/README.md).
type Measurement struct {
	Model       string
	Mode        string
	GlobalBatch int
	PS, Workers int
	Speed       float64 // steps/s; 0 for a failed run
}

var (
	measuredOnce sync.Once
	measured     []Measurement
	measuredErr  error
)

// Measured returns the embedded speed measurements, in file order.
func Measured() ([]Measurement, error) {
	measuredOnce.Do(func() { measured, measuredErr = ParseMeasured(measuredCSV, "ps-sync-measured.csv") })
	return measured, measuredErr
}

// ParseMeasured parses speed measurements in the layout of
// ps-sync-measured.csv (model, mode, global_batch, ps, workers, speed, ...).
func ParseMeasured(data []byte, source string) ([]Measurement, error) {
	r := csv.NewReader(bytes.NewReader(data))
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", source)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"model", "mode", "global_batch", "ps", "workers", "speed"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s: missing column %q", source, h)
		}
	}
	out := make([]Measurement, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		m := Measurement{Model: rec[col["model"]], Mode: rec[col["mode"]]}
		var errs [4]error
		m.GlobalBatch, errs[0] = strconv.Atoi(rec[col["global_batch"]])
		m.PS, errs[1] = strconv.Atoi(rec[col["ps"]])
		m.Workers, errs[2] = strconv.Atoi(rec[col["workers"]])
		m.Speed, errs[3] = strconv.ParseFloat(rec[col["speed"]], 64)
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s: row %d: %v", source, i+1, e)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// MeasuredModels lists the models of the measurements, sorted.
func MeasuredModels(ms []Measurement) []string {
	seen := map[string]bool{}
	var names []string
	for _, m := range ms {
		if !seen[m.Model] {
			seen[m.Model] = true
			names = append(names, m.Model)
		}
	}
	sort.Strings(names)
	return names
}

// ReferenceSpeedModel fits the speed model to every measurement of a model
// (failed runs excluded): the best description of the model's speed the
// data allow, used as the ground truth of generated jobs.
func ReferenceSpeedModel(ms []Measurement, model string) (fit.SpeedFit, error) {
	var samples []fit.SpeedSample
	mode, batch := "", 0
	for _, m := range ms {
		if m.Model == model {
			samples = append(samples, fit.SpeedSample{PS: m.PS, Workers: m.Workers, Speed: m.Speed})
			mode, batch = m.Mode, m.GlobalBatch
		}
	}
	if len(samples) == 0 {
		return fit.SpeedFit{}, fmt.Errorf("no measurements of model %q", model)
	}
	return fit.FitSpeed(mode, float64(batch), samples)
}
