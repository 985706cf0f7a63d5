package simtables

import (
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/solve"
)

func BenchmarkPolluxPolicyShort(b *testing.B) {
	jobs, profiles, err := datasets.PolluxWorkload1()
	if err != nil {
		b.Fatal(err)
	}
	in, err := PolluxInput(jobs[:40], profiles, 0.02)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cfg := simulate.DefaultConfig(solve.Pollux)
		cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.StartCost, cfg.Oracle = 60, 0, 30, 30, true
		cfg.Horizon = 3000
		res, err := simulate.Run(in, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("rounds %d finished %d mean %.0f", res.Rounds, res.Summary.Finished, res.Summary.MeanJCT)
	}
}
