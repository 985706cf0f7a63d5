package simtables

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/solve"
)

// Pollux's workload-1 as its simulator runs it (60 s rounds, a 30 s pause
// after a change and at a job's first start): its simulator reports an average JCT of 4087 s for
// Optimus+Oracle and 2474 s for Tiresias. Ours must be within 15%, and the
// fitted Optimus no more than 10% behind the oracle's.
func TestPolluxWorkload1AgainstPolluxsSimulator(t *testing.T) {
	jobs, profiles, err := datasets.PolluxWorkload1()
	if err != nil {
		t.Fatal(err)
	}
	in, err := PolluxInput(jobs, profiles, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	run := func(p solve.Policy, oracle bool) *simulate.Result {
		cfg := simulate.DefaultConfig(p)
		cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.StartCost, cfg.Oracle, cfg.Check = 60, 0, 30, 30, oracle, true
		res, err := simulate.Run(in, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Finished != len(jobs) {
			t.Fatalf("%s: %d of %d jobs finished", p, res.Summary.Finished, len(jobs))
		}
		return res
	}
	oracle := run(solve.Optimus, true).Summary.MeanJCT
	tiresias := run(solve.Tiresias, true).Summary.MeanJCT
	fitted := run(solve.Optimus, false).Summary.MeanJCT
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"optimus oracle", oracle, 4087}, {"tiresias", tiresias, 2474}} {
		if math.Abs(c.got/c.want-1) > 0.15 {
			t.Errorf("%s: mean JCT %.0f s, Pollux's simulator %.0f s: more than 15%% apart", c.name, c.got, c.want)
		}
	}
	if fitted > 1.1*oracle {
		t.Errorf("fitted optimus %.0f s, more than 10%% above the oracle's %.0f s", fitted, oracle)
	}
	t.Logf("mean JCT: optimus oracle %.0f s, fitted %.0f s, tiresias %.0f s", oracle, fitted, tiresias)
}
