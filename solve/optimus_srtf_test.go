package solve

import (
	"strings"
	"testing"
)

// optimus-srtf gives the GPUs the paper's greedy gives the job with the
// most work left to the job closest to done, and admits the shortest jobs
// first when GPUs are short.
func TestOptimusSRTFFavoursTheShortJob(t *testing.T) {
	p := &Problem{Resources: resources, Nodes: [][]float64{{8, 64}}, Jobs: []Job{
		balancedJob("long", 0, 200), balancedJob("short", 1, 5),
	}}
	workers := func(policy Policy) (long, short int) {
		opts := DefaultOptions()
		opts.Policy = policy
		res := mustSolve(t, p, opts)
		checkInvariants(t, p, res)
		return res.Decisions[0].Workers, res.Decisions[1].Workers
	}
	ol, os := workers(Optimus)
	sl, ss := workers(OptimusSRTF)
	if !(ol > os) || !(ss > sl) {
		t.Errorf("workers (long, short): optimus (%d, %d), optimus-srtf (%d, %d); want optimus to favour the long job and optimus-srtf the short one", ol, os, sl, ss)
	}
	if p.Jobs[0].Weight != 1 || p.Jobs[1].Weight != 1 {
		t.Errorf("the problem's weights changed: %v, %v", p.Jobs[0].Weight, p.Jobs[1].Weight)
	}

	// One GPU, the long job first to arrive: optimus admits it, optimus-srtf the short one.
	p1 := &Problem{Resources: resources, Nodes: [][]float64{{1, 64}}, Jobs: p.Jobs}
	for policy, want := range map[Policy]string{Optimus: "long", OptimusSRTF: "short"} {
		opts := DefaultOptions()
		opts.Policy = policy
		res := mustSolve(t, p1, opts)
		for i, d := range res.Decisions {
			if runs := d.Workers > 0; runs != (p1.Jobs[i].Name == want) {
				t.Errorf("%s on one GPU: %s gets %d workers; want only %s to run", policy, p1.Jobs[i].Name, d.Workers, want)
			}
		}
	}
}

// A running job whose allocation the plan would change by at most
// --srtf-hysteresis of what it has keeps it; a larger change goes through.
func TestOptimusSRTFHysteresis(t *testing.T) {
	// Two equal jobs on 8 GPUs, one running with 5 workers and the other
	// with 3 (6 PS each): from scratch each gets 4 (a change of 1: 20% of
	// 5, 33% of 3). Keeping the first leaves the second its 3.
	jobs := []Job{balancedJob("a", 0, 50), balancedJob("b", 1, 50)}
	jobs[0].CurPS, jobs[0].CurWorkers, jobs[1].CurPS, jobs[1].CurWorkers = 6, 5, 6, 3
	p := &Problem{Resources: resources, Nodes: [][]float64{{8, 64}}, Jobs: jobs}
	for _, tc := range []struct {
		hysteresis float64
		a, b       int
		kept       bool
	}{
		{0, 4, 4, false},
		{0.25, 5, 3, true},
		{0.4, 5, 3, true},
	} {
		opts := DefaultOptions()
		opts.Policy, opts.RestartCost, opts.RestartPayback, opts.SRTFExponent, opts.SRTFHysteresis = OptimusSRTF, 1, 1, 0, tc.hysteresis
		res := mustSolve(t, p, opts)
		checkInvariants(t, p, res)
		a, b := res.Decisions[0], res.Decisions[1]
		if a.Workers != tc.a || b.Workers != tc.b {
			t.Errorf("hysteresis %g: workers %d and %d, want %d and %d", tc.hysteresis, a.Workers, b.Workers, tc.a, tc.b)
		}
		if kept := strings.Contains(a.Reason, "within --srtf-hysteresis"); kept != tc.kept {
			t.Errorf("hysteresis %g: reason %q", tc.hysteresis, a.Reason)
		}
	}
}
