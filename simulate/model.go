// Package simulate replays a workload of training jobs on a cluster through
// a scheduling policy, interval by interval, and measures what the
// decisions are worth: job completion times (JCT), makespan, utilisation,
// restarts and the error of the scheduler's predictions.
//
// It is a deterministic discrete-event simulation: time jumps from event to
// event (scheduling ticks every Interval, arrivals, the ends of profiling,
// of restarts and of jobs); between events every running job trains at its
// true speed. The scheduler under test sees only what a real one would (the
// noisy loss points of the steps trained, noisy speed samples of the
// configurations a job ran, and the short profiling runs at arrival) and
// plans with the same code as `optimus fit | predict | solve | place`: the
// functions of package pipeline, then solve.Solve and place.Place. With
// Oracle it is given the true remaining steps and speed function instead.
//
// The package is pure: no table I/O (see simulate/simtables), no wall
// clock, seeded randomness; the same inputs give the same results.
package simulate

import (
	"fmt"
	"math"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/goodput"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// Profile kinds: how a model's true speed is described. KindPS is the
// parameter-server speed model itself (Speed); KindMeasured (measured.go)
// takes it from measurements. All-reduce profiles will be other kinds.
const KindPS = "ps"

// KindPlaced profiles give an all-reduce job's true step time as a
// function of where its GPUs are (PlacedSpeed): its speed depends on the
// nodes its workers span, not only on their number.
const KindPlaced = "placed"

// PlacedSpeed is the truth of a KindPlaced profile.
type PlacedSpeed struct {
	// StepTime is the seconds of one step of a job of global batch batch
	// whose workers lie perNode (workers on each node).
	StepTime func(perNode []int, batch float64) float64
	// Oracle is the speed model the oracle plans with for a job of a
	// global batch: the all-reduce model closest to StepTime (solve plans
	// with speed models only).
	Oracle func(batch int64) fit.SpeedModel
}

// Profile is a model family's truth: its speed function and its loss curve.
type Profile struct {
	Model string
	Kind  string
	// Speed is the true speed model of a KindPS profile, its GlobalBatch
	// replaced by each job's own. For a KindMeasured profile it is the
	// speed model closest to the measurements, which the oracle is given
	// (solve plans with speed models only).
	Speed fit.SpeedModel
	// Measured is the true speed of a KindMeasured profile.
	Measured *MeasuredSpeed
	// Placed is the true speed of a KindPlaced profile.
	Placed *PlacedSpeed
	// Adaptive, when not nil, lets the jobs of a KindPlaced profile train
	// at a batch size of the policy's choice (a policy that AdaptsBatch:
	// Pollux): what such a job needs of its profile.
	Adaptive *AdaptiveProfile
	// Loss is the true loss curve with k counted in epochs:
	// l(e) = 1/(B0·e + B1) + B2.
	Loss fit.Curve
	// Drops, when not empty, make it a step learning-rate schedule (as
	// ImageNet jobs train): at each of these epochs (stretched with the
	// job's ConvergenceScale) the loss's excess over B2 falls to DropFactor
	// of itself, l(e) = B2 + DropFactor^(drops passed)/(B0·e + B1). Such a
	// job trains until the rule is met after its last drop; the scheduler's
	// 1/k fit does not know the drops are coming.
	Drops      []float64
	DropFactor float64
	// LossNoise and SpeedNoise are the relative (log-normal) noise of an
	// observed loss value and speed sample.
	LossNoise, SpeedNoise float64
}

// Job is one job of the workload.
type Job struct {
	Name, Model, Mode string
	Arrival, Weight   float64
	GlobalBatch       int64
	EpochSteps        int64
	// EpochBudget, when HasBudget, is the user's stopping point; otherwise
	// the job trains until its true curve meets the convergence rule.
	EpochBudget float64
	HasBudget   bool
	// SpeedScale multiplies the profile's speed (a job's own data pipeline,
	// hardware lot); ConvergenceScale stretches its loss curve in epochs
	// (2: it converges about twice as late).
	SpeedScale, ConvergenceScale float64
	MaxPS, MaxWorkers            int
	// RequestWorkers is what the job asks for (Tiresias gives it that
	// many); 0: MaxWorkers.
	RequestWorkers int
	// Worker and PS are one task's demand of each cluster resource.
	Worker, PS []float64
	// OracleRemaining, when not nil, is what the scheduler is told of the
	// job's remaining steps with oracle knowledge, given the steps it has
	// trained, instead of the truth (Pollux's Optimus+Oracle estimates
	// them by whole epochs from a profile: simtables.UsePolluxRemaining).
	OracleRemaining func(progress float64) float64
}

// Config is everything a simulation run is told besides its inputs.
type Config struct {
	// Solve is what the scheduler allocates with, the options of `optimus
	// solve`: the run's policy (Solve.Policy), the capacity check and every
	// policy's knobs. Solve.RestartCost is the restart cost the optimus
	// policy plans with (0 re-plans from scratch every round, as the
	// paper's and Pollux's Optimus do), unless TrueRestartCost.
	Solve solve.Options
	// TrueRestartCost makes the optimus policy plan with what a restart
	// really costs a simulated job, StopCost + RestoreCost, instead of
	// Solve.RestartCost (DefaultConfig: true).
	TrueRestartCost bool
	// Place is what it places with, the options of `optimus place`
	// (unless PolluxPlacement).
	Place       place.Options
	Interval    float64 // seconds between scheduling rounds
	StopCost    float64 // seconds to checkpoint and stop a running job
	RestoreCost float64 // seconds to restore a job from its checkpoint
	// StartCost is the seconds a job's first start takes before it trains
	// (0: none; Pollux's simulator pays its 30 s restart delay at a job's
	// first allocation too). Counted in restart_lost_s, not as a restart.
	StartCost float64
	// SRTFWeight, for the optimus policy, weights each job's remaining
	// time in solve's objective by (the mean over the jobs of T1 / its own
	// T1)^SRTFWeight, T1 its remaining time on one worker (one PS and one
	// worker): the greedy's gains then favour the jobs with the least work
	// left, as shortest-remaining-time-first does (0: every weight 1, the
	// paper's Optimus).
	SRTFWeight float64
	// PolluxPlacement places solve's decisions as Pollux's simulator does
	// instead of with place (see polluxPlace): all-reduce jobs of one GPU
	// a worker on a GPU-only cluster only.
	PolluxPlacement bool
	// PolluxGenerations is the generations of the pollux policy's
	// allocation search (0: goodput.DefaultGenerations, Pollux's 100).
	PolluxGenerations int
	// PolluxNoAvoidance lets the pollux policy put several multi-node
	// jobs on one node (Pollux keeps one, to avoid interference).
	PolluxNoAvoidance bool
	// PolluxNoRestartPenalty drops the pollux policy's restart penalty:
	// a change of allocation costs a job nothing in its search.
	PolluxNoRestartPenalty bool
	// BaselineRequest, when its workers are > 0, runs DRF and Tetris
	// statically, as the paper's baselines: each job asks for
	// BaselineRequest[0] PS and BaselineRequest[1] workers (within its own
	// max_ps, max_workers), gets them all once they fit, in the
	// baseline's order, and keeps them, on the same nodes, until it
	// finishes (staticRequests). The zero value: elastic, units of 1 PS +
	// 1 worker re-decided every round.
	BaselineRequest [2]int
	// RestartEveryRound makes every running job checkpoint and restart at
	// every round (StopCost + RestoreCost), changed or not, as the authors'
	// scheduler deletes every job at the end of a time slot and starts it
	// again at the next (pengyanghua/optimus, scheduler/optimus_scheduler.py,
	// _delete). Not the jobs of a static baseline (BaselineRequest), which
	// keep their tasks: that is what static means.
	RestartEveryRound bool
	// ArriveAtOnce makes every job of the workload arrive at 0 s.
	ArriveAtOnce bool
	// TiresiasDemotionOrder orders the jobs of a lower Tiresias queue by
	// when they reached it (at a round; ties by arrival) rather than by
	// arrival, as Pollux's simulator appends a demoted job to its queue.
	TiresiasDemotionOrder bool
	// ProfileRuns and ProfileRunS are the short profiling runs at arrival
	// (fitted mode only): how many configurations, and seconds each.
	ProfileRuns int
	ProfileRunS float64
	// LossPointsPerEpoch is how often a job logs its loss.
	LossPointsPerEpoch int
	// NoiseScale multiplies every profile's noise (0: noiseless).
	NoiseScale float64
	Rule       fit.Rule
	Oracle     bool
	Seed       uint64
	Horizon    float64 // seconds; jobs not finished by then are reported unfinished
	// Check verifies conservation at every event (capacity on every node,
	// no job faster than its ideal time) and fails the run on a violation.
	Check bool
	// KeepIntervals records the per-interval allocations and utilisation.
	KeepIntervals bool
}

// Defaults of Config. The restart costs follow the paper's report that
// stopping a job takes about a minute (a checkpoint of its parameters) and
// restoring it minutes (containers start, the checkpoint is read, the data
// pipeline warms up); the profiling runs follow its section 3.2 (about 10
// configurations, tens of seconds each).
const (
	DefaultInterval           = 600.0
	DefaultStopCost           = 60.0
	DefaultRestoreCost        = 180.0
	DefaultProfileRuns        = 10
	DefaultProfileRunS        = 30.0
	DefaultLossPointsPerEpoch = 2
	DefaultHorizon            = 30 * 24 * 3600.0
	// MinInterval is the shortest Interval: every round runs the whole
	// pipeline, and the rounds must end.
	MinInterval = 1.0
	// MaxCostSeconds bounds the stop, restore and start costs and the
	// length of a profiling run.
	MaxCostSeconds = 1e9
	// MaxRounds bounds Horizon / Interval: a run whose jobs never finish
	// (a restore that outlasts the interval) goes on to the horizon, and
	// with --intervals it records every round.
	MaxRounds = 10_000_000
	// MaxSRTFWeight bounds SRTFWeight (the weights are powers of it).
	MaxSRTFWeight = 10.0
	// MaxPolluxGenerations bounds PolluxGenerations (a round's search
	// takes time in proportion).
	MaxPolluxGenerations = 10000
	// MaxBaselineRequest bounds each count of BaselineRequest.
	MaxBaselineRequest = 10000
	// profileMaxTasks bounds the profiled configurations.
	profileMaxTasks = 12
)

// DefaultConfig returns the defaults with the given policy: solve's and
// place's defaults, except that the optimus policy plans with the restart
// cost of the simulation, StopCost + RestoreCost (TrueRestartCost).
func DefaultConfig(policy solve.Policy) Config {
	opts := solve.DefaultOptions()
	opts.Policy, opts.RestartCost = policy, DefaultStopCost+DefaultRestoreCost
	return Config{
		Solve: opts, Place: place.DefaultOptions(), TrueRestartCost: true,
		Interval: DefaultInterval, StopCost: DefaultStopCost, RestoreCost: DefaultRestoreCost,
		ProfileRuns: DefaultProfileRuns, ProfileRunS: DefaultProfileRunS,
		LossPointsPerEpoch: DefaultLossPointsPerEpoch, NoiseScale: 1,
		Rule: fit.DefaultRule, Seed: 1, Horizon: DefaultHorizon,
	}
}

// Validate checks the configuration as `optimus simulate` gives it: solve's
// and place's options (Options.Validate of each) and every number of the
// simulation, finite and in range. The error names the flag. Run fills in
// the zero values it documents (Horizon, LossPointsPerEpoch, and those of
// solve and place) before it validates.
func (c Config) Validate() error {
	if err := c.Solve.Validate(); err != nil {
		return err
	}
	if !c.PolluxPlacement {
		// simulate's flag of the placement policy is --placement.
		if _, err := place.ParsePolicy(string(c.Place.Policy)); err != nil {
			return fmt.Errorf("--placement: %w", err)
		}
		if err := c.Place.Validate(); err != nil {
			return err
		}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for _, f := range []struct {
		flag string
		x    float64
	}{{"stop-cost", c.StopCost}, {"restore-cost", c.RestoreCost}, {"start-cost", c.StartCost}, {"profile-run-s", c.ProfileRunS}, {"noise", c.NoiseScale}} {
		if !(f.x >= 0) || !finite(f.x) {
			return fmt.Errorf("--%s %g: give a finite number >= 0", f.flag, f.x)
		}
	}
	switch {
	case !(c.Interval >= MinInterval) || !finite(c.Interval):
		return fmt.Errorf("--interval %g: give a finite number of seconds >= %g", c.Interval, MinInterval)
	case !(c.Horizon > 0) || !finite(c.Horizon):
		return fmt.Errorf("--horizon %g: give a finite number of seconds > 0", c.Horizon)
	case c.Horizon/c.Interval > MaxRounds:
		return fmt.Errorf("--horizon %g over --interval %g is %.3g scheduling rounds: at most %d (raise --interval or lower --horizon)", c.Horizon, c.Interval, c.Horizon/c.Interval, MaxRounds)
	case !(c.SRTFWeight >= 0 && c.SRTFWeight <= MaxSRTFWeight):
		return fmt.Errorf("--srtf-weight %g: give a number in [0, %g]", c.SRTFWeight, MaxSRTFWeight)
	case c.PolluxGenerations < 0 || c.PolluxGenerations > MaxPolluxGenerations:
		return fmt.Errorf("--pollux-generations %d: give a number in [0, %d] (0: %d)", c.PolluxGenerations, MaxPolluxGenerations, goodput.DefaultGenerations)
	case c.BaselineRequest[0] < 0 || c.BaselineRequest[1] < 0 || c.BaselineRequest[0] > MaxBaselineRequest || c.BaselineRequest[1] > MaxBaselineRequest:
		return fmt.Errorf("--baseline-request %d:%d: give PS:WORKERS, each in [0, %d]", c.BaselineRequest[0], c.BaselineRequest[1], MaxBaselineRequest)
	case c.BaselineRequest[0] > 0 && c.BaselineRequest[1] == 0:
		return fmt.Errorf("--baseline-request %d:0: a request needs at least 1 worker", c.BaselineRequest[0])
	case c.ProfileRuns < 0:
		return fmt.Errorf("--profile-runs %d: give a number >= 0", c.ProfileRuns)
	case c.LossPointsPerEpoch < 1:
		return fmt.Errorf("loss points per epoch %d: give at least 1", c.LossPointsPerEpoch)
	}
	// Far beyond any run (a cost longer than the horizon only means that
	// nothing trains), and far from where the seconds summed over jobs
	// (profiling_s, restart_lost_s) overflow.
	for _, f := range []struct {
		flag string
		x    float64
	}{{"stop-cost", c.StopCost}, {"restore-cost", c.RestoreCost}, {"start-cost", c.StartCost}, {"profile-run-s", c.ProfileRunS}} {
		if f.x > MaxCostSeconds {
			return fmt.Errorf("--%s %g: give at most %g seconds", f.flag, f.x, MaxCostSeconds)
		}
	}
	return nil
}

// Input is a workload on a cluster with the profiles of its models.
type Input struct {
	Cluster  *pipeline.Cluster
	Jobs     []Job // in arrival order
	Profiles map[string]Profile
}

// Job statuses in the results.
const (
	StatusFinished     = "finished"
	StatusUnfinished   = "unfinished"    // running or waiting at the horizon
	StatusNeverStarted = "never_started" // never got a task
)

// JobResult is what happened to one job.
type JobResult struct {
	Job, Model           string
	Arrival, Ready       float64 // ready: profiling done, the job can be planned
	Start, Finish        float64 // NaN when it never started / did not finish
	JCT                  float64 // Finish - Arrival; NaN when unfinished
	Status, Reason       string
	Restarts             int
	RestartLost          float64 // seconds not training because of restarts
	Profiling            float64 // seconds of profiling runs
	TotalSteps, Progress float64
	// Ideal is the least time the job could take: its total steps at its
	// fastest allocation that fits the empty cluster, no restarts, no
	// profiling.
	Ideal float64
	// PredErr is the median over the rounds the job ran in of the absolute
	// relative error of its predicted remaining time (NaN when none); the
	// median, because the error of the last rounds before a finish, over a
	// few seconds of true remaining time, can be any size.
	PredErr   float64
	PredCount int
}

// Alloc is one job's allocation in one scheduling round.
type Alloc struct {
	Time                 float64
	Job                  string
	PS, Workers, Nodes   int
	Restarted            bool
	PredRemaining        float64 // seconds, the scheduler's Q/f at the allocation; NaN if unknown
	TrueRemaining        float64 // seconds from Time to the job's finish; NaN if unfinished
	PredSteps, TrueSteps float64 // remaining steps predicted and true
	Status, Reason       string  // solve's and place's verdict
}

// Usage is one scheduling round's share of each resource allocated.
type Usage struct {
	Time             float64
	Running, Waiting int
	Share            []float64 // per resource, allocated / capacity
}

// Result is one run: one policy, one seed.
type Result struct {
	Policy    solve.Policy
	Oracle    bool
	Seed      uint64
	Resources []string
	Jobs      []JobResult
	Allocs    []Alloc
	Usage     []Usage
	Summary   Summary
	Rounds    int
}
