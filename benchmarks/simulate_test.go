package benchmarks

// Benchmarks of optimus simulate: the paper's testbed-sized workload (also
// at shorter rounds), a
// 160-job Philly sample on 64 GPUs, a 10,000-job Philly sample on 1,000
// nodes, and how the time grows with jobs and nodes. The Philly trace is
// read from ../shared/data/traces/philly-jobs.csv (next to the repository,
// or set OPTIMUS_SHARED_DATA); those benchmarks skip without it. Run with
//
//	go test ./benchmarks -run '^$' -bench Simulate -benchtime 3x -count 1
//
// Results and their commands are in simulate.md.

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/simulate/simtables"
	"github.com/optimus-sched/optimus/solve"
)

var (
	phillyOnce  sync.Once
	phillyTrace []datasets.PhillyJob
	phillyErr   error
)

// philly reads the Philly trace once, or skips the benchmark without it.
func philly(b *testing.B) []datasets.PhillyJob {
	b.Helper()
	phillyOnce.Do(func() {
		path := os.Getenv("OPTIMUS_SHARED_DATA")
		if path == "" {
			// ../shared/data next to the repository, from the package's directory up.
			dir, _ := filepath.Abs("..")
			for ; ; dir = filepath.Dir(dir) {
				if _, err := os.Stat(filepath.Join(dir, "shared", "data")); err == nil {
					path = filepath.Join(dir, "shared", "data")
					break
				}
				if dir == filepath.Dir(dir) {
					break
				}
			}
		}
		f, err := os.Open(filepath.Join(path, "traces", "philly-jobs.csv"))
		if err != nil {
			phillyErr = err
			return
		}
		defer f.Close()
		phillyTrace, phillyErr = datasets.ReadPhilly(f, f.Name())
	})
	if phillyErr != nil {
		b.Skipf("no Philly trace: %v", phillyErr)
	}
	return phillyTrace
}

// simInput reads a generated dataset through the table adapters.
func simInput(b *testing.B, gen func() ([]datatables.Named, error)) *simulate.Input {
	b.Helper()
	named, err := gen()
	if err != nil {
		b.Fatal(err)
	}
	tabs := map[string]*table.Table{}
	for _, n := range named {
		t, err := table.Conform(n.Table)
		if err != nil {
			b.Fatal(err)
		}
		tabs[n.Name] = t
	}
	in, err := simtables.Input(tabs["cluster"], tabs["workload"], tabs["profiles"], tabs["profile_speeds"])
	if err != nil {
		b.Fatal(err)
	}
	return in
}

func benchRun(b *testing.B, in *simulate.Input, policy solve.Policy, oracle bool) {
	b.Helper()
	cfg := simulate.DefaultConfig(policy)
	cfg.Oracle = oracle
	benchConfig(b, in, cfg)
}

// benchConfig runs in with cfg, reporting the rounds, the mean JCT and
// the time per round.
func benchConfig(b *testing.B, in *simulate.Input, cfg simulate.Config) {
	b.Helper()
	var res *simulate.Result
	for b.Loop() {
		var err error
		if res, err = simulate.Run(in, cfg); err != nil {
			b.Fatal(err)
		}
	}
	s := res.Summary
	b.ReportMetric(float64(s.Rounds), "rounds")
	b.ReportMetric(s.MeanJCT, "meanJCT_s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(max(s.Rounds, 1)), "us/round")
	if s.Finished != s.Jobs {
		b.Logf("%d of %d jobs finished", s.Finished, s.Jobs)
	}
}

func knowledgeName(oracle bool) string {
	if oracle {
		return "oracle"
	}
	return "fitted"
}

func BenchmarkSimulateTestbed(b *testing.B) {
	in := simInput(b, func() ([]datatables.Named, error) { return datatables.SimTestbed(1) })
	for _, p := range solve.Policies {
		if solve.LookupPolicy(p).AdaptsBatch {
			continue // the testbed's PS jobs have no adaptive profile (pollux runs --pollux's)
		}
		for _, oracle := range []bool{false, true} {
			b.Run(fmt.Sprintf("policy=%s/%s", p, knowledgeName(oracle)), func(b *testing.B) { benchRun(b, in, p, oracle) })
		}
	}
}

// BenchmarkSimulateShortRounds is the testbed's first workload at
// shorter rounds: each round's solve on its 13 servers runs the exhaustive
// repack (solve/nodes_repack.go), so the time per round is mostly that
// search.
func BenchmarkSimulateShortRounds(b *testing.B) {
	in := simInput(b, func() ([]datatables.Named, error) { return datatables.SimTestbed(1) })
	for _, interval := range []float64{600, 60, 5} {
		b.Run(fmt.Sprintf("interval=%g", interval), func(b *testing.B) {
			cfg := simulate.DefaultConfig(solve.Optimus)
			cfg.Interval = interval
			benchConfig(b, in, cfg)
		})
	}
}

// BenchmarkSimulate160 is the speed bar: 160 jobs on 64 GPUs (16 nodes of
// 4), as in Pollux's workloads, sampled from the Philly trace.
func BenchmarkSimulate160(b *testing.B) {
	trace := philly(b)
	in := simInput(b, func() ([]datatables.Named, error) {
		return datatables.PhillyWorkload(trace, datatables.PhillyConfig{Jobs: 160, Nodes: 16, GPUsPerNode: 4, Seed: 1})
	})
	for _, p := range []solve.Policy{solve.Optimus, solve.DRF} {
		for _, oracle := range []bool{false, true} {
			b.Run(fmt.Sprintf("policy=%s/%s", p, knowledgeName(oracle)), func(b *testing.B) { benchRun(b, in, p, oracle) })
		}
	}
}

// BenchmarkSimulatePhilly10k is 10,000 jobs of the Philly trace on 1,000
// nodes of 4 GPUs.
func BenchmarkSimulatePhilly10k(b *testing.B) {
	trace := philly(b)
	in := simInput(b, func() ([]datatables.Named, error) {
		return datatables.PhillyWorkload(trace, datatables.PhillyConfig{Jobs: 10000, Nodes: 1000, GPUsPerNode: 4, Seed: 1})
	})
	for _, oracle := range []bool{true, false} {
		b.Run("policy=optimus/"+knowledgeName(oracle), func(b *testing.B) { benchRun(b, in, solve.Optimus, oracle) })
	}
}

// BenchmarkSimulateScaling grows the jobs with the nodes (one node per 10
// jobs), then the nodes at 1,000 jobs.
func BenchmarkSimulateScaling(b *testing.B) {
	trace := philly(b)
	for _, size := range []struct{ jobs, nodes int }{
		{100, 10}, {300, 30}, {1000, 100}, {3000, 300},
		{1000, 30}, {1000, 300}, {1000, 1000},
	} {
		in := simInput(b, func() ([]datatables.Named, error) {
			return datatables.PhillyWorkload(trace, datatables.PhillyConfig{Jobs: size.jobs, Nodes: size.nodes, GPUsPerNode: 4, Seed: 1})
		})
		for _, oracle := range []bool{true, false} {
			b.Run(fmt.Sprintf("jobs=%d/nodes=%d/%s", size.jobs, size.nodes, knowledgeName(oracle)), func(b *testing.B) {
				benchRun(b, in, solve.Optimus, oracle)
			})
		}
	}
}
