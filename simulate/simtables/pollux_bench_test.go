package simtables

import (
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/solve"
)

func BenchmarkPolluxWorkload1(b *testing.B) {
	jobs, profiles, err := datasets.PolluxWorkload1()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []solve.Policy{solve.Optimus, solve.Tiresias} {
		b.Run(string(p), func(b *testing.B) {
			for b.Loop() {
				in, err := PolluxInput(jobs, profiles, 0.02)
				if err != nil {
					b.Fatal(err)
				}
				cfg := simulate.DefaultConfig(p)
				cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.Oracle = 60, 0, 30, true
				if _, err := simulate.Run(in, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
