package simtables

import (
	"strings"
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
				cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.StartCost, cfg.Oracle = 60, 0, 30, 30, true
				if _, err := simulate.Run(in, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPolluxModelAsTruth reports workload-1's mean JCT when every
// job's true step time is the oracle's own all-reduce model (so the oracle
// plans with the exact truth, as Pollux's Optimus+Oracle does with its
// profiles) against the profile's step times; "model-scratch" also
// re-plans from scratch every round (Solve.RestartCost 0), as Pollux's
// Optimus does, "model-scratch-pollux" also plans with the remaining
// steps Pollux's Optimus estimates (UsePolluxRemaining), and
// "model-scratch-pollux-placed" also places as Pollux's simulator does
// (Config.PolluxPlacement):
//
//	go test -run X -bench PolluxModelAsTruth -benchtime 1x ./simulate/simtables/
func BenchmarkPolluxModelAsTruth(b *testing.B) {
	jobs, profiles, err := datasets.PolluxWorkload1()
	if err != nil {
		b.Fatal(err)
	}
	for _, truth := range []string{"profile", "model", "model-scratch", "model-scratch-pollux", "model-scratch-pollux-placed"} {
		for _, p := range []solve.Policy{solve.Optimus, solve.Tiresias} {
			b.Run(truth+"/"+string(p), func(b *testing.B) {
				var jct float64
				for b.Loop() {
					in, err := PolluxInput(jobs, profiles, 0.02)
					if err != nil {
						b.Fatal(err)
					}
					if truth != "profile" {
						for app, pr := range in.Profiles {
							oracle := pr.Placed.Oracle
							pr.Placed = &simulate.PlacedSpeed{Oracle: oracle, StepTime: func(perNode []int, batch float64) float64 {
								w, n := 0, 0
								for _, x := range perNode {
									w += x
									if x > 0 {
										n++
									}
								}
								return 1 / oracle(int64(batch)).SpeedOn(w, n, batch/float64(w))
							}}
							in.Profiles[app] = pr
						}
					}
					cfg := simulate.DefaultConfig(p)
					cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.StartCost, cfg.Oracle = 60, 0, 30, 30, true
					if strings.HasPrefix(truth, "model-scratch-pollux") {
						UsePolluxRemaining(in, jobs, profiles)
					}
					cfg.PolluxPlacement = truth == "model-scratch-pollux-placed"
					if strings.HasPrefix(truth, "model-scratch") {
						cfg.Solve.RestartCost, cfg.TrueRestartCost = 0, false
					}
					res, err := simulate.Run(in, cfg)
					if err != nil {
						b.Fatal(err)
					}
					jct = res.Summary.MeanJCT
				}
				b.ReportMetric(jct, "mean_jct_s")
			})
		}
	}
}

// BenchmarkPolluxUnprofiled reports how many of workload-1's job-rounds
// (a job training through one 60 s round, or the part of one before it
// finishes) ran on a placement that placements.csv did not profile, whose
// step time is interpolated (docs/simulate.md):
//
//	go test -run X -bench PolluxUnprofiled -benchtime 1x ./simulate/simtables/
//
// The step times a run asks for are counted by whether their placement was
// profiled; a run that ends before the first round counts those asked for
// to compute each job's ideal time, which are taken off.
func BenchmarkPolluxUnprofiled(b *testing.B) {
	jobs, profiles, err := datasets.PolluxWorkload1()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []solve.Policy{solve.Optimus, solve.Tiresias} {
		b.Run(string(p), func(b *testing.B) {
			var share float64
			for b.Loop() {
				count := func(horizon float64) (profiled, not int) {
					in, err := PolluxInput(jobs, profiles, 0.02)
					if err != nil {
						b.Fatal(err)
					}
					for app, pr := range in.Profiles {
						st, prof := pr.Placed.StepTime, profiles[app]
						pr.Placed = &simulate.PlacedSpeed{Oracle: pr.Placed.Oracle, StepTime: func(perNode []int, batch float64) float64 {
							if prof.Profiled(perNode) {
								profiled++
							} else {
								not++
							}
							return st(perNode, batch)
						}}
						in.Profiles[app] = pr
					}
					cfg := simulate.DefaultConfig(p)
					cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.StartCost, cfg.Oracle = 60, 0, 30, 30, true
					cfg.Horizon = horizon
					if _, err := simulate.Run(in, cfg); err != nil {
						b.Fatal(err)
					}
					return profiled, not
				}
				p0, n0 := count(1)
				p1, n1 := count(simulate.DefaultHorizon)
				b.ReportMetric(float64(p1-p0+n1-n0), "job_rounds")
				share = float64(n1-n0) / float64(p1-p0+n1-n0)
			}
			b.ReportMetric(share, "unprofiled_share")
		})
	}
}
