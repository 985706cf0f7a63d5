package simtables

import (
	"testing"

	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/solve"
)

// optimus-srtf leads Tiresias and the paper's Optimus on Pollux's
// workload-1 with fitted knowledge (profiling at arrival, noisy
// observations), and Tiresias with the oracle's knowledge too, with
// simulate's defaults for the policy (benchmarks/pollux.md has the sweep
// and the figures over five seeds).
func TestOptimusSRTFLeadsOnPolluxWorkload1(t *testing.T) {
	run := func(p solve.Policy, oracle bool) simulate.Summary { return workload1(t, p, oracle, nil).Summary }
	srtf, optimus, tiresias := run(solve.OptimusSRTF, false), run(solve.Optimus, false), run(solve.Tiresias, false)
	t.Logf("fitted: mean JCT optimus-srtf %.0f s (%d restarts), optimus %.0f s, tiresias %.0f s", srtf.MeanJCT, srtf.Restarts, optimus.MeanJCT, tiresias.MeanJCT)
	if !(srtf.MeanJCT < 0.95*tiresias.MeanJCT) || !(srtf.MeanJCT < 0.65*optimus.MeanJCT) {
		t.Errorf("fitted: mean JCT optimus-srtf %.0f s; want below 0.95 x tiresias' %.0f s and 0.65 x optimus' %.0f s", srtf.MeanJCT, tiresias.MeanJCT, optimus.MeanJCT)
	}
	// The restart payback and the hysteresis: fewer restarts than optimus.
	if !(srtf.Restarts < optimus.Restarts) {
		t.Errorf("fitted: optimus-srtf restarts %d jobs, optimus %d", srtf.Restarts, optimus.Restarts)
	}
	srtfO, tiresiasO := run(solve.OptimusSRTF, true), run(solve.Tiresias, true)
	t.Logf("oracle: mean JCT optimus-srtf %.0f s, tiresias %.0f s", srtfO.MeanJCT, tiresiasO.MeanJCT)
	if !(srtfO.MeanJCT < 0.95*tiresiasO.MeanJCT) {
		t.Errorf("oracle: mean JCT optimus-srtf %.0f s; want below 0.95 x tiresias' %.0f s", srtfO.MeanJCT, tiresiasO.MeanJCT)
	}
}
