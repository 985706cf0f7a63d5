package simtables

import (
	"fmt"
	"sync"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/goodput"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/simulate"
)

// PolluxInput is a Pollux workload on its default cluster (16 nodes of 4
// GPUs), as Pollux's simulator runs it: every job an all-reduce job of 1
// GPU a worker at the workload's batch size, with an epoch budget of its
// application's epochs (datasets.PolluxJob) and its true step times from its application's profile
// (simulate.KindPlaced). Optimus may give a job up to MaxReplicas workers,
// Tiresias its num_replicas. The oracle plans with the all-reduce model
// fitted to the profile's step times at the job's batch
// (datasets.PolluxTrueModel), computed once per (application, batch).
// speedNoise is the relative noise of a measured speed.
func PolluxInput(jobs []datasets.PolluxJob, profiles map[string]*datasets.PolluxProfile, speedNoise float64) (*simulate.Input, error) {
	nodes, per := datasets.PolluxNodes, datasets.PolluxGPUsPerNode
	c := &pipeline.Cluster{Source: "pollux-cluster", Resources: []string{"gpu"}}
	for i := range nodes {
		c.Nodes = append(c.Nodes, fmt.Sprintf("node-%02d", i))
		c.Capacity = append(c.Capacity, []float64{float64(per)})
	}
	in := &simulate.Input{Cluster: c, Profiles: map[string]simulate.Profile{}}
	for app, p := range profiles {
		type key = int64
		var mu sync.Mutex
		cache := map[key]fit.SpeedModel{}
		in.Profiles[app] = simulate.Profile{
			Model: app, Kind: simulate.KindPlaced, Speed: fit.SpeedModel{Mode: fit.AllReduce},
			// Jobs train for their epoch budget: the loss curve only
			// gives the logged points a shape.
			Loss:       fit.Curve{B0: 1, B1: 1},
			SpeedNoise: speedNoise,
			Placed: &simulate.PlacedSpeed{
				StepTime: memoStepTime(p),
				Oracle: func(batch int64) fit.SpeedModel {
					mu.Lock()
					defer mu.Unlock()
					if m, ok := cache[batch]; ok {
						return m
					}
					f, err := datasets.PolluxTrueModel(p, int(batch), nodes*per, per, nodes)
					if err != nil {
						f.Model = fit.SpeedModel{Mode: fit.AllReduce, GlobalBatch: float64(batch), Theta: [5]float64{0, 1}}
					}
					cache[batch] = f.Model
					return f.Model
				},
			},
		}
	}
	for app, p := range profiles {
		prof := in.Profiles[app]
		prof.Adaptive = PolluxAdaptive(p, nodes*per)
		in.Profiles[app] = prof
	}
	for _, j := range jobs {
		if _, ok := profiles[j.App]; !ok {
			return nil, fmt.Errorf("job %q: application %q has no profile", j.Name, j.App)
		}
		in.Jobs = append(in.Jobs, simulate.Job{
			Name: j.Name, Model: j.App, Mode: fit.AllReduce, Arrival: j.Arrival, Weight: 1,
			GlobalBatch: int64(j.Batch), EpochSteps: j.EpochSteps,
			EpochBudget: j.TotalSteps / float64(j.EpochSteps), HasBudget: true,
			SpeedScale: 1, ConvergenceScale: 1,
			MaxWorkers: j.MaxReplicas, RequestWorkers: j.Replicas,
			Worker: []float64{1}, PS: []float64{0},
		})
	}
	return in, nil
}

// memoStepTime remembers a profile's step times by placement and batch:
// a run asks for the same few thousand again and again.
func memoStepTime(p *datasets.PolluxProfile) func(perNode []int, batch float64) float64 {
	type key struct {
		placement [datasets.PolluxNodes]uint8
		batch     float64
	}
	var mu sync.Mutex
	memo := map[key]float64{}
	return func(perNode []int, batch float64) float64 {
		k := key{batch: batch}
		if len(perNode) > len(k.placement) {
			return p.StepTime(perNode, batch)
		}
		for i, x := range perNode {
			if x > 255 || x < 0 {
				return p.StepTime(perNode, batch)
			}
			k.placement[i] = uint8(x)
		}
		mu.Lock()
		v, ok := memo[k]
		mu.Unlock()
		if ok {
			return v
		}
		v = p.StepTime(perNode, batch)
		mu.Lock()
		memo[k] = v
		mu.Unlock()
		return v
	}
}

// UsePolluxRemaining tells the scheduler, with oracle knowledge, each
// job's remaining steps as Pollux's Optimus+Oracle estimates them
// (datasets.PolluxProfile.OptimusRemaining: the iteration column by whole
// epochs) rather than the truth. jobs are in.Jobs' Pollux jobs, in order.
func UsePolluxRemaining(in *simulate.Input, jobs []datasets.PolluxJob, profiles map[string]*datasets.PolluxProfile) {
	for i, j := range jobs {
		in.Jobs[i].OracleRemaining = profiles[j.App].OptimusRemaining(float64(j.Batch), j.Epochs)
	}
}

// PolluxPollux* are where Pollux's simulator sets its Pollux policy's
// jobs by hand (simulator.py): ncf trains at a batch of 32768 on 1 GPU, and
// no job gets more than 64 GPUs ("simulator can't handle more").
const (
	PolluxNCFBatch      = 32768
	PolluxMaxPolluxGPUs = 64
	polluxFixedBatchApp = "ncf"
)

// PolluxAdaptive is what a job of Pollux's policy needs of a profile, as
// Pollux's simulator has it: progress by epoch, gradient statistics and
// step times from the profile (datasets.PolluxProfile), the epochs of
// datasets.PolluxEpochs (minus one with the departure), the smallest and
// largest profiled batch and micro-batch, at most min(64, the largest
// batch / the smallest micro-batch, the cluster's) GPUs (ncf: 1, at a
// fixed batch of 32768), and every profiled (nodes, replicas, micro-batch)
// for the oracle's model.
func PolluxAdaptive(p *datasets.PolluxProfile, gpus int) *simulate.AdaptiveProfile {
	epochs := datasets.PolluxEpochs[p.App]
	if p.Departures.EpochsMinusOne {
		epochs = max(epochs-1, 1)
	}
	a := &simulate.AdaptiveProfile{
		InitBatch: p.InitBatch(), MaxBatch: p.MaxBatch(), MinLocal: p.MinLocal, MaxLocal: p.MaxLocal,
		Epochs: epochs, Progress: p.Progress, GradStats: p.GradStats, Throughput: memoThroughput(p),
		MaxReplicas: min(PolluxMaxPolluxGPUs, gpus, int(p.MaxBatch()/p.MinLocal)),
	}
	if p.App == polluxFixedBatchApp && !p.Departures.NoNCFCap {
		a.FixedBatch, a.MaxReplicas = PolluxNCFBatch, 1
	}
	for _, g := range p.Groups {
		for _, st := range g.Steps {
			a.Profiled = append(a.Profiled, goodput.Sample{Nodes: g.Nodes, Replicas: g.Replicas, Atomic: st.LocalBatch,
				GradTime: st.StepTime - st.SyncTime, StepTime: st.StepTime})
		}
	}
	return a
}

// memoThroughput remembers a profile's step and sync times by placement
// and micro-batch.
func memoThroughput(p *datasets.PolluxProfile) func(perNode []int, atomic float64) (float64, float64) {
	type key struct {
		placement [datasets.PolluxNodes]uint8
		atomic    float64
	}
	var mu sync.Mutex
	memo := map[key][2]float64{}
	return func(perNode []int, atomic float64) (float64, float64) {
		k := key{atomic: atomic}
		if len(perNode) > len(k.placement) {
			return p.Throughput(perNode, atomic)
		}
		for i, x := range perNode {
			if x > 255 || x < 0 {
				return p.Throughput(perNode, atomic)
			}
			k.placement[i] = uint8(x)
		}
		mu.Lock()
		v, ok := memo[k]
		mu.Unlock()
		if ok {
			return v[0], v[1]
		}
		st, sy := p.Throughput(perNode, atomic)
		mu.Lock()
		memo[k] = [2]float64{st, sy}
		mu.Unlock()
		return st, sy
	}
}
