package datasets

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/layout"
)

// Pollux's default cluster for its workloads: 16 nodes of 4 GPUs.
const (
	PolluxNodes       = 16
	PolluxGPUsPerNode = 4
)

// PolluxReplicaCap is where Pollux's simulator caps an application's
// replicas by hand below PolluxMaxReplicas: ncf trains on 1 GPU
// (simulator.py, get_optimus_job_info and get_pollux_job_info, `if
// job.application.name == "ncf": job_info.max_replicas = 1`). The
// profiles alone give ncf's batch of 32768 up to 1024 GPUs (the cluster's
// 64); PolluxDepartures.NoNCFCap measures what the cap is worth.
var PolluxReplicaCap = map[string]int{"ncf": 1}

// PolluxMaxReplicas is the most GPUs Pollux's Optimus+Oracle gives a job of
// a global batch: batch / the smallest profiled per-GPU batch (whole
// GPUs, at least 1), at most the cluster's gpus.
func PolluxMaxReplicas(p *PolluxProfile, batch, gpus int) int {
	return max(1, min(gpus, int(float64(batch)/p.MinLocal+1e-9)))
}

// PolluxJob is one job of a Pollux workload, with what its profile says of
// it.
type PolluxJob struct {
	Name, App string
	Arrival   float64
	// Replicas is the GPU count the job asked for (num_replicas), what
	// Tiresias gives it; MaxReplicas the most Pollux's Optimus+Oracle gives
	// it: batch_size / the smallest profiled per-GPU batch, at most the
	// cluster's GPUs (PolluxMaxReplicas; ncf 1: PolluxReplicaCap).
	Replicas, MaxReplicas int
	Batch                 int
	// Epochs is the epochs the job trains (PolluxEpochs; minus one with
	// PolluxDepartures.EpochsMinusOne); TotalSteps the optimizer steps to
	// get there at Batch (PolluxProfile.Steps, or Iterations with
	// PolluxDepartures.IterationColumn), EpochSteps those of the first
	// epoch.
	Epochs     int
	TotalSteps float64
	EpochSteps int64
}

// PolluxWorkload1 returns the embedded workload-1.csv of Pollux's
// simulator (160 jobs) against the embedded profiles on the default
// cluster.
func PolluxWorkload1() ([]PolluxJob, map[string]*PolluxProfile, error) {
	profiles, err := PolluxProfiles()
	if err != nil {
		return nil, nil, err
	}
	jobs, err := ReadPolluxWorkload1(profiles)
	return jobs, profiles, err
}

// ReadPolluxWorkload1 reads the embedded workload-1.csv against the given
// profiles (with their departures) on the default cluster.
func ReadPolluxWorkload1(profiles map[string]*PolluxProfile) ([]PolluxJob, error) {
	f, err := polluxFS.Open("data/pollux/workloads/workload-1.csv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPolluxWorkload(f, "workload-1.csv", profiles, PolluxNodes*PolluxGPUsPerNode)
}

// ReadPolluxWorkload reads a workload in Pollux's format (columns name,
// time, application, num_replicas, batch_size; one row per job) against
// the applications' profiles on a cluster of gpus GPUs. An application
// without a profile, a batch size outside its profile's range and a
// replica count larger than the cluster are errors naming file, column and
// row. Rows are sorted by arrival (stable), as the simulator replays them.
func ReadPolluxWorkload(r io.Reader, source string, profiles map[string]*PolluxProfile, gpus int) ([]PolluxJob, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	want := []string{"name", "time", "application", "num_replicas", "batch_size"}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty: want the header %s", source, strings.Join(want, ","))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range want {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: no column %q (want %s)", source, c, strings.Join(want, ","))
		}
	}
	bad := func(c string, row int, format string, args ...any) error {
		return fmt.Errorf("%s: column %q, row %d (line %d): %s", source, c, row, row+1, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	var out []PolluxJob
	for i, rec := range recs[1:] {
		row := i + 1
		get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		j := PolluxJob{Name: get("name"), App: get("application")}
		if j.Name == "" || seen[j.Name] {
			return nil, bad("name", row, "job name %q is empty or appears twice", j.Name)
		}
		seen[j.Name] = true
		if j.Arrival, err = strconv.ParseFloat(get("time"), 64); err != nil || j.Arrival < 0 || math.IsInf(j.Arrival, 0) || math.IsNaN(j.Arrival) {
			return nil, bad("time", row, "%q is not a time >= 0 in seconds", get("time"))
		}
		p, ok := profiles[j.App]
		if !ok {
			known := make([]string, 0, len(profiles))
			for a := range profiles {
				known = append(known, a)
			}
			slices.Sort(known)
			return nil, bad("application", row, "job %q: application %q has no profile (profiled: %s)", j.Name, j.App, strings.Join(known, ", "))
		}
		if j.Replicas, err = strconv.Atoi(get("num_replicas")); err != nil || j.Replicas < 1 {
			return nil, bad("num_replicas", row, "%q is not a whole number >= 1", get("num_replicas"))
		}
		if j.Replicas > gpus {
			return nil, bad("num_replicas", row, "job %q asks for %d GPUs, more than the cluster's %d", j.Name, j.Replicas, gpus)
		}
		if j.Batch, err = strconv.Atoi(get("batch_size")); err != nil || j.Batch < 1 {
			return nil, bad("batch_size", row, "%q is not a whole number >= 1", get("batch_size"))
		}
		lo, hi := p.Batches[0], p.Batches[len(p.Batches)-1]
		if j.Batch < lo || j.Batch > hi {
			return nil, bad("batch_size", row, "job %q: batch size %d is outside the profiled range %d-%d of %s", j.Name, j.Batch, lo, hi, j.App)
		}
		epochs, ok := PolluxEpochs[j.App]
		if !ok {
			return nil, bad("application", row, "job %q: no epoch count for application %q", j.Name, j.App)
		}
		d := p.Departures
		j.Epochs = epochs
		if d.EpochsMinusOne {
			j.Epochs = max(epochs-1, 1)
		}
		steps := p.Steps
		if d.IterationColumn {
			steps = p.Iterations
		}
		j.TotalSteps, _ = steps(float64(j.Batch), j.Epochs)
		first, _ := steps(float64(j.Batch), 1)
		j.EpochSteps = max(1, int64(math.Round(first)))
		j.MaxReplicas = PolluxMaxReplicas(p, j.Batch, gpus)
		if c, ok := PolluxReplicaCap[j.App]; ok && !d.NoNCFCap {
			j.MaxReplicas = min(j.MaxReplicas, c)
		}
		out = append(out, j)
	}
	slices.SortStableFunc(out, func(a, b PolluxJob) int {
		switch {
		case a.Arrival < b.Arrival:
			return -1
		case a.Arrival > b.Arrival:
			return 1
		}
		return 0
	})
	return out, nil
}

// PolluxSpeedSamples are an application's profiled placements as all-reduce
// speed samples: one per placements.csv row, at its GPUs, nodes and
// per-GPU batch, speed 1/step_time optimizer steps per second.
func PolluxSpeedSamples(p *PolluxProfile) []fit.SpeedSample {
	ids := make([]string, 0, len(p.Placements))
	for id := range p.Placements {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []fit.SpeedSample
	for _, id := range ids {
		per, err := parsePlacement(id)
		if err != nil {
			continue // a placement of more than 9 GPUs a node: none in the profiles
		}
		for _, s := range p.Placements[id] {
			out = append(out, fit.SpeedSample{Workers: sum(per), Nodes: len(per), LocalBatch: s.LocalBatch, Speed: 1 / s.StepTime})
		}
	}
	return out
}

// PolluxTrueModel is the all-reduce speed model closest to an application's
// true step times at a global batch: fitted to the step times, on nodes of
// gpusPerNode, of 1..maxGPUs GPUs packed on the fewest nodes and spread one
// per node (up to nodes), the configurations the scheduler plans over.
func PolluxTrueModel(p *PolluxProfile, batch, maxGPUs, gpusPerNode, nodes int) (fit.SpeedFit, error) {
	var samples []fit.SpeedSample
	for _, c := range fit.AllReduceGrid(maxGPUs, gpusPerNode, nodes) {
		st := p.StepTime(layout.SpreadEvenly(c.Workers, c.Nodes), float64(batch))
		samples = append(samples, fit.SpeedSample{Workers: c.Workers, Nodes: c.Nodes, Speed: 1 / st})
	}
	f, err := fit.FitSpeed(fit.AllReduce, float64(batch), samples)
	f.Model.WorkersPerNode = gpusPerNode
	return f, err
}
