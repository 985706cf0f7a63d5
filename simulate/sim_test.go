package simulate_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/simulate/simtables"
	"github.com/optimus-sched/optimus/solve"
)

// testbedInput is the simulate-testbed dataset of a seed, read back
// through the table adapters.
func testbedInput(t testing.TB, seed uint64) *simulate.Input {
	t.Helper()
	named, err := datatables.SimTestbed(seed)
	if err != nil {
		t.Fatal(err)
	}
	tabs := map[string]*table.Table{}
	for _, n := range named {
		c, err := table.Conform(n.Table)
		if err != nil {
			t.Fatal(err)
		}
		c.Source = n.Name + ".parquet"
		tabs[n.Name] = c
	}
	in, err := simtables.Input(tabs["cluster"], tabs["workload"], tabs["profiles"], tabs["profile_speeds"])
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func run(t testing.TB, in *simulate.Input, policy solve.Policy, seed uint64, oracle bool) *simulate.Result {
	t.Helper()
	cfg := simulate.DefaultConfig(policy)
	cfg.Seed, cfg.Oracle, cfg.Check, cfg.KeepIntervals = seed, oracle, true, true
	res, err := simulate.Run(in, cfg)
	if err != nil {
		t.Fatalf("%s seed %d: %v", policy, seed, err)
	}
	return res
}

// Optimus's mean JCT is below DRF's and Tetris' on the testbed, seeds 1-5,
// fitted and oracle. Only the policies compared or logged are run (FIFO for
// the log); every policy's runs are checked in
// TestConservationUnderEveryPlacementAndCapacityCheck.
func TestTestbedOptimusAheadOfBaselines(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		in := testbedInput(t, seed)
		for _, oracle := range []bool{false, true} {
			got := map[solve.Policy]simulate.Summary{}
			for _, p := range []solve.Policy{solve.Optimus, solve.DRF, solve.Tetris, solve.FIFO} {
				got[p] = run(t, in, p, seed, oracle).Summary
			}
			o := got[solve.Optimus]
			t.Logf("seed %d oracle %v: optimus %.0f s (makespan %.0f, restarts %d); drf x%.2f tetris x%.2f fifo x%.2f (makespan x%.2f x%.2f)",
				seed, oracle, o.MeanJCT, o.Makespan, o.Restarts, got[solve.DRF].MeanJCT/o.MeanJCT, got[solve.Tetris].MeanJCT/o.MeanJCT,
				got[solve.FIFO].MeanJCT/o.MeanJCT, got[solve.DRF].Makespan/o.Makespan, got[solve.Tetris].Makespan/o.Makespan)
			for _, p := range []solve.Policy{solve.DRF, solve.Tetris} {
				if got[p].Finished != got[p].Jobs || o.Finished != o.Jobs {
					t.Errorf("seed %d: unfinished jobs", seed)
				}
				if !(o.MeanJCT < got[p].MeanJCT) || math.IsNaN(o.MeanJCT) {
					t.Errorf("seed %d oracle %v: optimus mean JCT %.0f s not below %s's %.0f s", seed, oracle, o.MeanJCT, p, got[p].MeanJCT)
				}
			}
		}
	}
}

// smallInput is a cluster of two 4-GPU servers and jobs of one profile.
func smallInput(t testing.TB, jobs int, arrivalGap float64) *simulate.Input {
	t.Helper()
	in := testbedInput(t, 1)
	c := &pipeline.Cluster{Source: "cluster.parquet", Resources: in.Cluster.Resources,
		Nodes: in.Cluster.Nodes[:2], Capacity: in.Cluster.Capacity[:2]}
	proto := in.Jobs[0]
	out := &simulate.Input{Cluster: c, Profiles: in.Profiles}
	for i := range jobs {
		j := proto
		j.Name = fmt.Sprintf("job-%d", i)
		j.Arrival = float64(i) * arrivalGap
		j.HasBudget, j.EpochBudget = true, 10
		out.Jobs = append(out.Jobs, j)
	}
	return out
}

func TestEveryJobAccountedForAtTheHorizon(t *testing.T) {
	in := smallInput(t, 6, 300)
	for _, horizon := range []float64{1800, 4 * 3600, simulate.DefaultHorizon} {
		for _, p := range fixedBatchPolicies() {
			cfg := simulate.DefaultConfig(p)
			cfg.Check, cfg.Horizon = true, horizon
			res, err := simulate.Run(in, cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if s.Finished+s.Unfinished+s.NeverStarted != len(in.Jobs) || len(res.Jobs) != len(in.Jobs) {
				t.Errorf("%s horizon %g: %d finished + %d unfinished + %d never started of %d jobs", p, horizon, s.Finished, s.Unfinished, s.NeverStarted, len(in.Jobs))
			}
			for _, j := range res.Jobs {
				switch j.Status {
				case simulate.StatusFinished:
					if !(j.Finish <= horizon) || j.Progress != j.TotalSteps || !(j.JCT >= j.Ideal) {
						t.Errorf("%s horizon %g: %s finished at %g s with %g of %g steps, JCT %g s, ideal %g s", p, horizon, j.Job, j.Finish, j.Progress, j.TotalSteps, j.JCT, j.Ideal)
					}
				case simulate.StatusUnfinished, simulate.StatusNeverStarted:
					if horizon == simulate.DefaultHorizon || j.Reason == "" || j.Progress >= j.TotalSteps || !math.IsNaN(j.JCT) {
						t.Errorf("%s horizon %g: %s %s (%q) with %g of %g steps", p, horizon, j.Job, j.Status, j.Reason, j.Progress, j.TotalSteps)
					}
				default:
					t.Errorf("%s: job %s has status %q", p, j.Job, j.Status)
				}
			}
			if horizon == 1800 && s.Finished == len(in.Jobs) {
				t.Errorf("%s: every job finished within 30 minutes: the horizon test tests nothing", p)
			}
		}
	}
}

func TestConservationUnderEveryPlacementAndCapacityCheck(t *testing.T) {
	// Check fails the run at the first round where a node holds more than
	// its capacity or a job finishes faster than its ideal time.
	in := testbedInput(t, 2)
	for _, pl := range place.Policies {
		for _, capacity := range solve.CapacityChecks {
			for _, p := range fixedBatchPolicies() {
				for _, oracle := range []bool{false, true} {
					cfg := simulate.DefaultConfig(p)
					cfg.Place.Policy, cfg.Solve.Capacity, cfg.Oracle, cfg.Check = pl, capacity, oracle, true
					res, err := simulate.Run(in, cfg)
					if err != nil {
						t.Fatalf("placement %s, capacity %s, policy %s, oracle %v: %v", pl, capacity, p, oracle, err)
					}
					if res.Summary.Finished != len(in.Jobs) {
						t.Errorf("placement %s, capacity %s, policy %s: %d of %d jobs finished", pl, capacity, p, res.Summary.Finished, len(in.Jobs))
					}
				}
			}
		}
	}
}

func TestJobThatNeverFitsIsReportedNotFatal(t *testing.T) {
	in := smallInput(t, 3, 0)
	big := in.Jobs[1]
	big.Worker = append([]float64{}, big.Worker...)
	big.Worker[0] = 8 // gpu: the nodes have 4
	in.Jobs[1] = big
	res, err := simulate.Run(in, simulate.DefaultConfig(solve.Optimus))
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[1]
	if j.Status != simulate.StatusNeverStarted || !strings.Contains(j.Reason, "one worker needs 8 gpu") {
		t.Errorf("job-1: status %q, reason %q", j.Status, j.Reason)
	}
	if res.Summary.Finished != 2 {
		t.Errorf("%d jobs finished, want the other 2", res.Summary.Finished)
	}
}

func TestBadInputIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(in *simulate.Input)
		want  string
	}{
		{"no profile", func(in *simulate.Input) { in.Jobs[1].Model = "bert" }, `job "job-1": no profile for model "bert"`},
		{"arrivals out of order", func(in *simulate.Input) { in.Jobs[2].Arrival = 10 }, `job "job-2" arrives at 10 s, before the job before it (600 s)`},
		{"unknown mode", func(in *simulate.Input) { in.Jobs[0].Mode = "horovod" }, `mode "horovod" is not supported`},
		{"allreduce on PS measurements", func(in *simulate.Input) { in.Jobs[0].Mode = "allreduce" }, `a measured profile holds parameter-server measurements`},
		{"duplicate job", func(in *simulate.Input) { in.Jobs[2].Name = "job-0" }, `job "job-0" appears twice`},
	} {
		in := smallInput(t, 3, 600)
		tc.spoil(in)
		_, err := simulate.Run(in, simulate.DefaultConfig(solve.Optimus))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

func TestSameSeedSameResultOtherSeedOtherNoise(t *testing.T) {
	in := testbedInput(t, 1)
	a, b := run(t, in, solve.Optimus, 7, false), run(t, in, solve.Optimus, 7, false)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("two runs with the same seed differ")
	}
	c := run(t, in, solve.Optimus, 8, false)
	if fmt.Sprint(a.Jobs) == fmt.Sprint(c.Jobs) {
		t.Error("seeds 7 and 8 give the same jobs: the seed does not reach the noise")
	}
}

func TestOracleMispredictsLessThanFitting(t *testing.T) {
	in := testbedInput(t, 3)
	noisy := run(t, in, solve.Optimus, 1, false).Summary.MeanPredErr
	oracle := run(t, in, solve.Optimus, 1, true).Summary.MeanPredErr
	if !(oracle < noisy) {
		t.Errorf("median prediction error: oracle %.3f, fitted %.3f: the oracle should predict better", oracle, noisy)
	}
	if noisy > 1 {
		t.Errorf("fitted prediction error %.2f: predictions off by more than 100%% in the median", noisy)
	}
}

func TestJobsRunWithoutProfiling(t *testing.T) {
	// Without profiling runs a job has no speed samples at first: the
	// scheduler must still start it (and learn its speed as it runs).
	in := testbedInput(t, 1)
	cfg := simulate.DefaultConfig(solve.Optimus)
	cfg.ProfileRuns, cfg.Check = 0, true
	res, err := simulate.Run(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Finished != len(in.Jobs) || res.Summary.Profiling != 0 {
		t.Errorf("%d of %d jobs finished, %g s profiling", res.Summary.Finished, len(in.Jobs), res.Summary.Profiling)
	}
}

// A job ready a hair after a scheduling tick (here its arrival, without
// profiling; a sum such as 599.3 s of arrival and 0.7 s of profiling
// comes to 600.0000000000001 s) starts at the next tick: the loop once
// waited for it at the tick before, without end. The same for an interval so long
// that every arrival lies within 1e-12 intervals of time 0, and for
// profiling runs of a denormal length.
func TestReadyJustAfterATickStarts(t *testing.T) {
	for _, c := range []struct {
		name                string
		arrival, interval   float64
		profileRuns         int
		profileRunS, starts float64
	}{
		{"arrival 1e-10 s after a tick", 600 + 1e-10, 600, 0, 0, 1200},
		{"arrival one float64 step after a tick", math.Nextafter(600, 1000), 600, 0, 0, 1200},
		{"an interval of 1e15 s", 828, 1e15, 0, 0, 1e15},
		{"profiling runs of 1e-320 s", 0, 600, 2, 1e-320, 600},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := smallInput(t, 1, 0)
			in.Jobs[0].Arrival = c.arrival
			cfg := simulate.DefaultConfig(solve.Optimus)
			cfg.Check, cfg.Interval, cfg.ProfileRuns, cfg.ProfileRunS = true, c.interval, c.profileRuns, c.profileRunS
			if c.interval > cfg.Horizon {
				cfg.Horizon = 2 * c.interval
			}
			done := make(chan *simulate.Result, 1)
			go func() {
				res, err := simulate.Run(in, cfg)
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			select {
			case res := <-done:
				if res == nil {
					return
				}
				if j := res.Jobs[0]; j.Status != simulate.StatusFinished || j.Start != c.starts {
					t.Errorf("the job %s, started at %v s; want finished, started at %v s", j.Status, j.Start, c.starts)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the simulation did not end in 20 s (it takes milliseconds)")
			}
		})
	}
}

// When no job is ready before the horizon, the run has no round: the
// makespan is from the first arrival to the horizon (the jobs waited
// there), and 0 when they arrive after it; it was the first arrival's
// negative (sim_summary then failed its own check, "-107 is negative").
func TestMakespanWhenNothingRunsBeforeTheHorizon(t *testing.T) {
	for _, c := range []struct {
		name                 string
		arrival, profileRunS float64
		makespan             float64
	}{
		{"profiling past the horizon", 107, 900, 1000 - 107},
		{"arrivals after the horizon", 2000, 30, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := smallInput(t, 2, 300)
			for k := range in.Jobs {
				in.Jobs[k].Arrival += c.arrival
			}
			cfg := simulate.DefaultConfig(solve.Optimus)
			cfg.Check, cfg.Horizon, cfg.ProfileRunS = true, 1000, c.profileRunS
			res, err := simulate.Run(in, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if s := res.Summary; s.Rounds != 0 || s.NeverStarted != 2 || s.Makespan != c.makespan {
				t.Errorf("%d rounds, %d of 2 jobs never started, makespan %v s; want 0 rounds, 2, %v s", s.Rounds, s.NeverStarted, s.Makespan, c.makespan)
			}
		})
	}
}

func TestAsyncJobsRun(t *testing.T) {
	in := smallInput(t, 4, 600)
	p := in.Profiles[in.Jobs[0].Model]
	p.Speed = fit.SpeedModel{Mode: fit.Async, Theta: [5]float64{0.2, 0.05, 0.01, 0.002}}
	in.Profiles = map[string]simulate.Profile{p.Model: p}
	for i := range in.Jobs {
		in.Jobs[i].Mode = fit.Async
	}
	for _, oracle := range []bool{false, true} {
		cfg := simulate.DefaultConfig(solve.Optimus)
		cfg.Oracle, cfg.Check = oracle, true
		res, err := simulate.Run(in, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Finished != len(in.Jobs) {
			t.Errorf("oracle %v: %d of %d async jobs finished", oracle, res.Summary.Finished, len(in.Jobs))
		}
	}
}

// TestRandomWorkloadsKeepTheInvariants runs random workloads (demands,
// limits, budgets, arrivals, scales) through every policy with the checks
// on: no error, no panic, every job accounted for.
func TestRandomWorkloadsKeepTheInvariants(t *testing.T) {
	base := testbedInput(t, 1)
	var models []string
	for m := range base.Profiles {
		models = append(models, m)
	}
	slices.Sort(models)
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		in := &simulate.Input{Cluster: base.Cluster, Profiles: base.Profiles}
		arrival := 0.0
		for i := range 8 {
			m := models[rng.IntN(len(models))]
			j := base.Jobs[0]
			j.Name, j.Model, j.Arrival = fmt.Sprintf("r%d", i), m, arrival
			arrival += 3000 * rng.Float64()
			j.SpeedScale, j.ConvergenceScale = 0.5+rng.Float64(), 0.3+2*rng.Float64()
			j.HasBudget = rng.IntN(3) == 0
			j.EpochBudget = 0.5 + 30*rng.Float64()
			j.MaxPS, j.MaxWorkers = rng.IntN(4), rng.IntN(9)
			j.Worker = []float64{float64(rng.IntN(3)), float64(1 + rng.IntN(6)), float64(rng.IntN(20)), rng.Float64() * 3}
			j.PS = []float64{0, float64(rng.IntN(6)), float64(rng.IntN(20)), rng.Float64() * 5}
			in.Jobs = append(in.Jobs, j)
		}
		for _, p := range fixedBatchPolicies() {
			cfg := simulate.DefaultConfig(p)
			cfg.Check, cfg.Seed, cfg.Oracle = true, seed, seed%2 == 0
			cfg.Horizon = 2 * 24 * 3600
			res, err := simulate.Run(in, cfg)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p, err)
			}
			s := res.Summary
			if s.Finished+s.Unfinished+s.NeverStarted != len(in.Jobs) {
				t.Errorf("seed %d %s: %d+%d+%d jobs accounted for of %d", seed, p, s.Finished, s.Unfinished, s.NeverStarted, len(in.Jobs))
			}
		}
	}
}

func TestStepScheduleLossCurves(t *testing.T) {
	plain := testbedInput(t, 4)
	stepped := testbedInput(t, 4)
	for m, p := range stepped.Profiles {
		p.Drops, p.DropFactor = []float64{15, 30}, 0.5
		stepped.Profiles[m] = p
	}
	a, b := run(t, plain, solve.Optimus, 1, false), run(t, stepped, solve.Optimus, 1, false)
	longer := 0
	for i, j := range b.Jobs {
		if j.Status != simulate.StatusFinished {
			t.Errorf("%s: %s with a step schedule", j.Job, j.Status)
		}
		if plain.Jobs[i].HasBudget {
			if j.TotalSteps != a.Jobs[i].TotalSteps {
				t.Errorf("%s: its budget changed with the schedule: %g, %g steps", j.Job, a.Jobs[i].TotalSteps, j.TotalSteps)
			}
			continue
		}
		if j.TotalSteps < (30*plain.Jobs[i].ConvergenceScale+10)*float64(plain.Jobs[i].EpochSteps) {
			t.Errorf("%s: %g steps: it stopped before the rule's window after its last drop", j.Job, j.TotalSteps)
		}
		if j.TotalSteps > a.Jobs[i].TotalSteps {
			longer++
		}
	}
	if longer == 0 {
		t.Error("no job trains longer with learning-rate drops")
	}
	t.Logf("median prediction error: 1/k curves %.3f, step schedule %.3f", a.Summary.MeanPredErr, b.Summary.MeanPredErr)
	if !(b.Summary.MeanPredErr > a.Summary.MeanPredErr) {
		t.Errorf("prediction error %.3f with a step schedule, %.3f without: the 1/k fit should do worse on steps", b.Summary.MeanPredErr, a.Summary.MeanPredErr)
	}
}

// fixedBatchPolicies are the policies that run jobs at their fixed batch:
// these tests' workloads are parameter-server jobs, which a policy that
// adapts batch sizes (pollux) does not run (simtables tests it on
// Pollux's workload).
func fixedBatchPolicies() []solve.Policy {
	var out []solve.Policy
	for _, e := range solve.PolicyEntries() {
		if !e.AdaptsBatch {
			out = append(out, e.Name)
		}
	}
	return out
}
