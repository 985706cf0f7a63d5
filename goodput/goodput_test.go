package goodput_test

import (
	"math"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/goodput"
)

// Fit on every configuration Pollux profiled of each application: the
// fitted model's step times are within 25% of the measured ones at the
// median, as Pollux's own model is (a 7-parameter model of a few hundred
// measurements over placements it cannot tell apart).
func TestFitPolluxProfiles(t *testing.T) {
	profiles, err := datasets.PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, app := range datasets.PolluxApps {
		p := profiles[app]
		var samples []goodput.Sample
		for _, g := range p.Groups {
			for _, st := range g.Steps {
				samples = append(samples, goodput.Sample{Nodes: g.Nodes, Replicas: g.Replicas, Atomic: st.LocalBatch,
					GradTime: st.StepTime - st.SyncTime, StepTime: st.StepTime})
			}
		}
		perf := goodput.Fit(samples)
		var errs []float64
		for _, s := range samples {
			errs = append(errs, math.Abs(perf.StepTime(s.Nodes, s.Replicas, s.Atomic, 0)/s.StepTime-1))
		}
		slices.Sort(errs)
		med := errs[len(errs)/2]
		if med > 0.25 || !(perf.Gamma >= 1 && perf.Gamma <= 10) {
			t.Errorf("%s: median step-time error %.1f%% over %d profiled points (params %+v)", app, 100*med, len(samples), perf)
		}
		t.Logf("%s: %d points, median error %.1f%%, %+v", app, len(samples), 100*med, perf)
	}
}

// A model whose samples come from known parameters is found again: its
// step times within 2% everywhere sampled.
func TestFitRecoversKnownParams(t *testing.T) {
	truth := goodput.PerfParams{AlphaC: 0.05, BetaC: 0.002, AlphaN: 0.2, BetaN: 0.01, AlphaR: 0.03, BetaR: 0.002, Gamma: 2}
	var samples []goodput.Sample
	for _, c := range [][2]int{{1, 1}, {1, 2}, {1, 4}, {2, 4}, {2, 8}, {4, 16}} {
		for _, m := range []float64{32, 64, 128} {
			samples = append(samples, goodput.Sample{Nodes: c[0], Replicas: c[1], Atomic: m,
				GradTime: truth.GradTime(m), StepTime: truth.StepTime(c[0], c[1], m, 0)})
		}
	}
	got := goodput.Fit(samples)
	for _, s := range samples {
		if e := math.Abs(got.StepTime(s.Nodes, s.Replicas, s.Atomic, 0)/s.StepTime - 1); e > 0.02 {
			t.Errorf("(%d nodes, %d replicas, %g): step time off by %.1f%% (fitted %+v)", s.Nodes, s.Replicas, s.Atomic, 100*e, got)
		}
	}
}

// Efficiency is 1 at the initial batch and falls as the batch grows;
// goodput's optimum is the best of its candidates and within the limits.
func TestEfficiencyAndOptimize(t *testing.T) {
	g := goodput.GradParams{Sqr: 1, Var: 50}
	if e := g.Efficiency(128, 128); math.Abs(e-1) > 1e-12 {
		t.Errorf("efficiency at the initial batch %g, want 1", e)
	}
	prev := 1.0
	for b := 256.0; b <= 8192; b *= 2 {
		e := g.Efficiency(b, 128)
		if !(e < prev && e > 128/b) {
			t.Errorf("efficiency at %g: %g, want below %g and above %g", b, e, prev, 128/b)
		}
		prev = e
	}
	f := &goodput.Function{Perf: goodput.PerfParams{AlphaC: 0.02, BetaC: 0.001, AlphaN: 0.1, BetaN: 0.01, AlphaR: 0.02, BetaR: 0.001, Gamma: 1.5},
		Grad: g, InitBatch: 128}
	lim := goodput.Limits{MaxBatch: 4096, MinAtomic: 16, MaxAtomic: 256, Accumulation: true}
	for _, c := range [][2]int{{1, 1}, {1, 4}, {2, 8}, {4, 16}} {
		ch := f.Optimize(c[0], c[1], lim)
		if ch.Atomic < lim.MinAtomic || ch.Atomic > lim.MaxAtomic || ch.Batch(c[1]) > 1.02*lim.MaxBatch+float64(c[1]) {
			t.Errorf("%v: choice %+v outside the limits", c, ch)
		}
		if c[1] == 1 && ch.Batch(1) > f.InitBatch && ch.Accum < 1 {
			t.Errorf("one replica above the initial batch must accumulate: %+v", ch)
		}
		// No whole batch in range does better by more than the grid's spacing.
		for atomic := lim.MinAtomic; atomic <= lim.MaxAtomic; atomic++ {
			for accum := range 3 {
				b := float64(c[1]) * atomic * float64(accum+1)
				if b < f.InitBatch || b > lim.MaxBatch || (c[1] == 1 && b > f.InitBatch && accum < 1) {
					continue
				}
				if v := f.Evaluate(c[0], c[1], atomic, accum); v > ch.Goodput*1.03 {
					t.Fatalf("%v: %g x %d steps has goodput %g, above the choice's %g (%+v)", c, atomic, accum+1, v, ch.Goodput, ch)
				}
			}
		}
	}
}
