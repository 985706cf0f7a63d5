package datasets

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/optimus-sched/optimus/fit"
)

// SimProfile is a model family's truth for the simulator: the speed model
// fitted to every embedded measurement of the model and a 1/k loss curve
// in epochs that starts and ends where the testbed's does and converges,
// under fit.DefaultRule, in the middle of the testbed's range.
type SimProfile struct {
	Model      string
	Speed      fit.SpeedModel
	Loss       fit.Curve // k in epochs
	EpochSteps int
	Worker, PS Demand
}

// SimProfiles returns the profiles of the measured model families, sorted
// by name.
func SimProfiles() ([]SimProfile, error) {
	models, err := JobModels()
	if err != nil {
		return nil, err
	}
	var out []SimProfile
	for _, jm := range models {
		m := testbedModels[jm.Name]
		c, _ := m.CurveConvergingAt((m.MinEpochs + m.MaxEpochs) / 2)
		c.B0 *= float64(m.EpochSteps) // per step -> per epoch
		out = append(out, SimProfile{Model: jm.Name, Speed: jm.Speed, Loss: c, EpochSteps: m.EpochSteps, Worker: m.Worker, PS: m.PS})
	}
	return out, nil
}

// PhillyJob is one job of the Philly trace.
type PhillyJob struct {
	Submit   time.Time
	Duration float64 // seconds
	GPUs     int
}

// ReadPhilly reads the Philly trace in the layout of
// ../shared/data/traces/philly-jobs.csv (timestamp, duration, num_gpus,
// ...), sorted by submission.
func ReadPhilly(r io.Reader, source string) ([]PhillyJob, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, want := range []string{"timestamp", "duration", "num_gpus"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s: no column %q", source, want)
		}
	}
	var out []PhillyJob
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		ts, err1 := time.Parse(time.DateTime, rec[col["timestamp"]])
		d, err2 := strconv.ParseFloat(rec[col["duration"]], 64)
		g, err3 := strconv.Atoi(rec[col["num_gpus"]])
		if err1 != nil || err2 != nil || err3 != nil || d <= 0 || g < 1 {
			return nil, fmt.Errorf("%s: line %d: want a timestamp, a positive duration and a positive num_gpus", source, line)
		}
		out = append(out, PhillyJob{Submit: ts, Duration: d, GPUs: g})
	}
	slices.SortStableFunc(out, func(a, b PhillyJob) int { return a.Submit.Compare(b.Submit) })
	return out, nil
}
