package simulate_test

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/simulate/simtables"
	"github.com/optimus-sched/optimus/solve"
)

// testbedInput is the simulate-testbed dataset of a seed, read back
// through the table adapters.
func testbedInput(t testing.TB, seed uint64) *simulate.Input {
	t.Helper()
	named, err := datasets.SimTestbed(seed)
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
	in, err := simtables.Input(tabs["cluster"], tabs["workload"], tabs["profiles"])
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

func TestTestbedOptimusAheadOfBaselines(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		in := testbedInput(t, seed)
		for _, oracle := range []bool{false, true} {
			got := map[solve.Policy]simulate.Summary{}
			for _, p := range solve.Policies {
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
