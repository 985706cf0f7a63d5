package root

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/evalcmd"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// convergenceFigures are eval convergence's figures at one fraction.
type convergenceFigures struct {
	uncensored, covered  int
	medianErr, medianRel float64
	meanWidth            float64
}

func readConvergenceEval(t *testing.T, out []byte, frac float64) convergenceFigures {
	t.Helper()
	e, err := table.Read(bytes.NewReader(out), "stdout", schema.ConvergenceEval)
	if err != nil {
		t.Fatal(err)
	}
	fr, covered, ok, censored := e.Float64s("fraction"), e.Bools("covered"), e.Valid("covered"), e.Bools("censored")
	trueEpoch, p10, p50, p90 := e.Int64s("true_epoch"), e.Int64s("pred_epoch_p10"), e.Int64s("pred_epoch_p50"), e.Int64s("pred_epoch_p90")
	var f convergenceFigures
	var errs, rel, widths []float64
	for i := range fr {
		if fr[i] != frac || !ok[i] || censored[i] {
			continue
		}
		f.uncensored++
		if covered[i] {
			f.covered++
		}
		d := math.Abs(float64(p50[i] - trueEpoch[i]))
		errs, rel, widths = append(errs, d), append(rel, d/float64(trueEpoch[i])), append(widths, float64(p90[i]-p10[i]))
	}
	f.medianErr, f.medianRel = fit.Median(errs), fit.Median(rel)
	for _, w := range widths {
		f.meanWidth += w / float64(len(widths))
	}
	return f
}

// curvesFixture is the dataset exported once per test binary (datasets
// export NAME --seed SEED); the convergence tests share these exports.
func curvesFixture(name, seed string) *clitest.Fixture {
	return clitest.NewFixture(strings.TrimSuffix(name+"-"+seed, "-"), func(dir string) error {
		args := []string{"datasets", "export", name, "-o", dir}
		if seed != "" {
			args = append(args, "--seed", seed)
		}
		return clitest.Command(NewCmd).RunAll([][]string{args})
	})
}

var (
	polluxCurves   = curvesFixture("pollux-curves", "")
	scheduleCurves = map[string]*clitest.Fixture{"2": curvesFixture("schedule-curves", "2"), "3": curvesFixture("schedule-curves", "3")}
	stepCurves     = map[string]*clitest.Fixture{"1": curvesFixture("step-curves", "1"), "2": curvesFixture("step-curves", "2")}
)

// convergenceRuns holds each eval convergence command line's results, run
// once per test binary: several tests check their bars on the same run
// (the same curves, the same flags).
var convergenceRuns struct {
	sync.Mutex
	m map[string]convergenceRun
}

type convergenceRun struct {
	code   int
	out    []byte
	stderr string
}

// evalConvergence runs eval convergence on the loss and jobs tables of dir
// with args, or returns the results of a command line run before that
// parses into the same options (the seam, evalcmd.NewCmdConvergence's
// runF): a flag given at its default is the same run as none.
func evalConvergence(t *testing.T, dir string, args ...string) (int, []byte, string) {
	t.Helper()
	line := append([]string{"eval", "convergence", "-i", filepath.Join(dir, "loss.parquet"), "--jobs", filepath.Join(dir, "jobs.parquet")}, args...)
	opts := clitest.MustParse(t, evalcmd.NewCmdConvergence, line[2:]...)
	opts.IO = nil
	key := fmt.Sprintf("%#v", *opts)
	convergenceRuns.Lock()
	defer convergenceRuns.Unlock()
	if r, ok := convergenceRuns.m[key]; ok {
		return r.code, r.out, r.stderr
	}
	code, out, stderr := run(t, nil, line...)
	if convergenceRuns.m == nil {
		convergenceRuns.m = map[string]convergenceRun{}
	}
	convergenceRuns.m[key] = convergenceRun{code, out, stderr}
	return code, out, stderr
}

// The issue's bars on curves of shapes 1/k cannot follow (step, cosine and
// linear-cooldown schedules, with noise, logged every 2 epochs, per step
// and irregularly), from seeds the method was not developed on (it was on
// seed 1), without their declared schedules: the interval covers the truth
// in at least 80% of uncensored curves at 50% observed and 70% at 25%, and
// the median epoch error is at most 10% of the truth at 50%.
func TestEvalConvergenceOnSchedules(t *testing.T) {
	for _, seed := range []string{"2", "3"} {
		t.Run("seed "+seed, func(t *testing.T) {
			code, out, stderr := evalConvergence(t, scheduleCurves[seed].Dir(t), "--schedules=false")
			if code != 0 {
				t.Fatal(stderr)
			}
			t.Log(stderr)
			for _, bar := range []struct {
				frac, cover, relErr float64
			}{{0.5, 0.8, 0.10}, {0.25, 0.7, math.Inf(1)}} {
				f := readConvergenceEval(t, out, bar.frac)
				if f.uncensored < 25 || float64(f.covered) < bar.cover*float64(f.uncensored) {
					t.Errorf("at %.0f%% observed the interval covers %d of %d uncensored curves; the bar is %.0f%%", 100*bar.frac, f.covered, f.uncensored, 100*bar.cover)
				}
				if f.medianRel > bar.relErr {
					t.Errorf("at %.0f%% observed the median epoch error is %.0f%% of the truth; the bar is %.0f%%", 100*bar.frac, 100*f.medianRel, 100*bar.relErr)
				}
			}
			for _, fam := range []string{"step", "cosine", "cooldown"} {
				if !strings.Contains(stderr, "  "+fam+" ") {
					t.Errorf("no line for family %s in the per-family table", fam)
				}
			}
			if !strings.Contains(stderr, "mean interval width") {
				t.Error("no mean interval width in the summary")
			}
		})
	}
}

// The Pollux figures of benchmarks/convergence.md before issue 12 (uncensored
// coverage 19 of 25 at 25% observed and 20 of 25 at 50%, median errors 20
// and 14 epochs) must not get worse: with the family prior, without any
// prior, and scored leave-one-family-out (the prior from the other five
// applications only).
func TestEvalConvergencePolluxNotWorse(t *testing.T) {
	for _, mode := range []string{"--prior=true", "--prior=false", "--leave-family-out"} {
		t.Run(mode, func(t *testing.T) {
			code, out, stderr := evalConvergence(t, polluxCurves.Dir(t), mode)
			if code != 0 {
				t.Fatal(stderr)
			}
			for _, before := range []struct {
				frac              float64
				covered, of       int
				medianErrorEpochs float64
			}{{0.25, 19, 25, 20}, {0.5, 20, 25, 14}} {
				f := readConvergenceEval(t, out, before.frac)
				t.Logf("%.0f%%: %d of %d covered, median error %.1f epochs, mean width %.1f", 100*before.frac, f.covered, f.uncensored, f.medianErr, f.meanWidth)
				if f.uncensored != before.of || f.covered < before.covered || f.medianErr > before.medianErrorEpochs {
					t.Errorf("%.0f%% observed: %d of %d covered, median error %.1f; before: %d of %d, %.1f",
						100*before.frac, f.covered, f.uncensored, f.medianErr, before.covered, before.of, before.medianErrorEpochs)
				}
			}
		})
	}
}

// eval convergence reads only job and epoch_steps of --jobs (defect 7),
// accepts a log evaluated every 5 epochs (defect 3), and warns of curves
// longer than --cap, scoring them on the whole curve (defect 4).
func TestEvalConvergenceInputs(t *testing.T) {
	tmp := t.TempDir()
	var loss strings.Builder
	loss.WriteString("job,step,value\n")
	for e := 5; e <= 150; e += 5 {
		v := 3 / math.Sqrt(float64(e))
		if e > 120 {
			v -= 0.3
		}
		fmt.Fprintf(&loss, "a,%d,%.6f\n", e*100, v)
	}
	lossPath, jobsPath := filepath.Join(tmp, "loss.csv"), filepath.Join(tmp, "jobs.csv")
	if err := os.WriteFile(lossPath, []byte(loss.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobsPath, []byte("job,epoch_steps\na,100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "eval", "convergence", "-i", lossPath, "--jobs", jobsPath, "-o", "-", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "optimus: warning: eval convergence: 1 curves are longer than --cap 100 epochs (longest 150)") {
		t.Errorf("no warning of the cap: %s", stderr)
	}
	e, err := table.Read(bytes.NewReader(out), "stdout", schema.ConvergenceEval)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Int64s("true_epoch")[0]; got <= 120 {
		t.Errorf("truth %d: computed from the first 100 epochs, not the whole curve", got)
	}
	if got := e.Int64s("epochs")[0]; got != 150 {
		t.Errorf("%d epochs, want 150 (the window is not stretched to 5-epoch units)", got)
	}
	// Where the steps per epoch come from: --jobs or --epoch-steps N >= 1.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "optimus: give --jobs FILE or --epoch-steps N (N at least 1)\n"},
		{[]string{"--epoch-steps", "0"}, "optimus: give --jobs FILE or --epoch-steps N (N at least 1)\n"},
		{[]string{"--epoch-steps", "-5"}, "optimus: --epoch-steps -5: give at least 1\n"},
		{[]string{"--epoch-steps", "100", "--jobs", jobsPath}, "optimus: give --jobs or --epoch-steps, not both\n"},
		// The rule's flags, each named when wrong; the largest int once
		// overflowed the epoch arithmetic into a panic (exit 3).
		{[]string{"--jobs", jobsPath, "--window", "9223372036854775807", "--cap", "9223372036854775807"}, "optimus: --window 9223372036854775807: give a number of epochs from 1 to 1000000\n"},
		{[]string{"--jobs", jobsPath, "--window", "0"}, "optimus: --window 0: give a number of epochs from 1 to 1000000\n"},
		{[]string{"--jobs", jobsPath, "--cap", "5"}, "optimus: --cap 5: give a number of epochs from --window (10) to 1000000\n"},
		{[]string{"--jobs", jobsPath, "--cap", "1000001"}, "optimus: --cap 1000001: give a number of epochs from --window (10) to 1000000\n"},
		{[]string{"--jobs", jobsPath, "--threshold", "NaN"}, "optimus: --threshold NaN: give a finite share > 0 of the starting loss\n"},
		{[]string{"--jobs", jobsPath, "--threshold", "Inf"}, "optimus: --threshold +Inf: give a finite share > 0 of the starting loss\n"},
	} {
		code, _, stderr := run(t, nil, append([]string{"eval", "convergence", "-i", lossPath, "--format", "csv"}, tc.args...)...)
		if code != 2 || stderr != tc.want {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Issue 24's bars on step schedules, measured by eval convergence with the
// families left out and no schedule declared: step-curves (four recipes as
// families, seeds 1 and 2, up to 200 epochs) cover the truth in at least
// 80% of uncensored curves at 25% observed, with a median epoch error of
// at most 10% of the truth at 50%, and at least 90% at 50% (28 of 29 and
// 30 of 31 since the floor and spent-schedule steps; with the declared
// budgets, seed 2, 28 of 31); at 25% the median error is 12-16% (13% with
// the budgets; benchmarks/convergence-budgets.md): the bar of 10% is not met, and 20% is
// checked. The budgets run adds about 1.3 CPU-seconds, the Pollux one
// below 0.8. Pollux's imagenet curves (a step schedule) are all covered at
// both fractions, with the prior and with the families left out, and no
// uncensored curve of a job still training has an interval narrower than
// 2 epochs.
func TestEvalConvergenceOnStepSchedules(t *testing.T) {
	for _, c := range []struct{ seed, budgets string }{{"1", "--budgets=false"}, {"2", "--budgets=false"}, {"2", "--budgets"}} {
		t.Run("step-curves seed "+c.seed+" "+c.budgets, func(t *testing.T) {
			code, out, stderr := evalConvergence(t, stepCurves[c.seed].Dir(t), "--cap", "200", "--leave-family-out", c.budgets)
			if code != 0 {
				t.Fatal(stderr)
			}
			for _, bar := range []struct{ frac, cover, relErr float64 }{{0.5, 0.9, 0.10}, {0.25, 0.8, 0.20}} {
				f := readConvergenceEval(t, out, bar.frac)
				t.Logf("%.0f%%: %d of %d covered, median error %.1f epochs (%.0f%%)", 100*bar.frac, f.covered, f.uncensored, f.medianErr, 100*f.medianRel)
				if f.uncensored < 28 || float64(f.covered) < bar.cover*float64(f.uncensored) {
					t.Errorf("at %.0f%% observed the interval covers %d of %d uncensored curves; the bar is %.0f%%", 100*bar.frac, f.covered, f.uncensored, 100*bar.cover)
				}
				if f.medianRel > bar.relErr {
					t.Errorf("at %.0f%% observed the median epoch error is %.0f%% of the truth; the bar is %.0f%%", 100*bar.frac, 100*f.medianRel, 100*bar.relErr)
				}
			}
		})
	}
	// Pollux at 50% observed, families left out: 24 of 25 covered with
	// and without the budgets since a still-falling log's p10 reaches
	// where it would converge if it stopped falling now (22 before); with
	// the budgets 25 of 25 at 25% (23 without), the median error 20% of
	// the truth (44% without; 32% with the budgets before session 6's
	// budget-share weight, benchmarks/convergence-budgets.md).
	for _, mode := range [][]string{{"--prior=true"}, {"--leave-family-out"}, {"--leave-family-out", "--budgets"}} {
		code, out, stderr := evalConvergence(t, polluxCurves.Dir(t), mode...)
		if code != 0 {
			t.Fatal(stderr)
		}
		if mode[0] == "--leave-family-out" {
			want25, rel25 := 23, 0.45
			if len(mode) > 1 {
				want25, rel25 = 25, 0.21
			}
			f50, f25 := readConvergenceEval(t, out, 0.5), readConvergenceEval(t, out, 0.25)
			if f50.uncensored != 25 || f50.covered < 24 || f25.covered < want25 || f25.medianRel > rel25 {
				t.Errorf("%v: at 50%% %d of %d covered, want 24; at 25%% %d covered, want %d, median error %.0f%%, want at most %.0f%%", mode, f50.covered, f50.uncensored, f25.covered, want25, 100*f25.medianRel, 100*rel25)
			}
		}
		e, err := table.Read(bytes.NewReader(out), "stdout", schema.ConvergenceEval)
		if err != nil {
			t.Fatal(err)
		}
		model, covered, censored := e.Strings("model"), e.Bools("covered"), e.Bools("censored")
		p10, p90, fr := e.Int64s("pred_epoch_p10"), e.Int64s("pred_epoch_p90"), e.Float64s("fraction")
		imagenet := 0
		for i := range model {
			if !censored[i] && p90[i]-p10[i] < 2 {
				t.Errorf("%s: %s at %.0f%%: interval %d-%d", mode, model[i], 100*fr[i], p10[i], p90[i])
			}
			if model[i] != "imagenet" {
				continue
			}
			imagenet++
			if !covered[i] {
				t.Errorf("%s: an imagenet curve at %.0f%% observed is not covered (%d-%d)", mode, 100*fr[i], p10[i], p90[i])
			}
		}
		if imagenet != 14 {
			t.Errorf("%s: %d imagenet results, want 7 curves at 2 fractions", mode, imagenet)
		}
	}
}

// The figures of benchmarks/convergence.md before issue 24 (main at
// e252d32) must not get worse: on Pollux's curves (default, no prior,
// leave-one-family-out) and on the held-out schedule-curves (seeds 2 and 3,
// without the declared schedules, with the prior and leave-one-family-out):
// uncensored coverage no lower, median epoch error no higher.
func TestEvalConvergenceNotWorseThanBeforeIssue24(t *testing.T) {
	type before struct {
		frac    float64
		covered int
		median  float64
	}
	cases := []struct {
		dataset, seed string
		args          []string
		want          []before
	}{
		{"pollux-curves", "", nil, []before{{0.25, 19, 7}, {0.5, 24, 2}}},
		{"pollux-curves", "", []string{"--prior=false"}, []before{{0.25, 19, 19}, {0.5, 20, 14}}},
		{"pollux-curves", "", []string{"--leave-family-out"}, []before{{0.25, 23, 20}, {0.5, 20, 14}}},
		{"schedule-curves", "2", []string{"--schedules=false"}, []before{{0.25, 28, 4.5}, {0.5, 28, 3}}},
		{"schedule-curves", "3", []string{"--schedules=false"}, []before{{0.25, 27, 9}, {0.5, 28, 3}}},
		{"schedule-curves", "2", []string{"--schedules=false", "--leave-family-out"}, []before{{0.25, 30, 6}, {0.5, 23, 15}}},
		{"schedule-curves", "3", []string{"--schedules=false", "--leave-family-out"}, []before{{0.25, 29, 8}, {0.5, 27, 12}}},
	}
	for _, c := range cases {
		name := c.dataset + " " + c.seed + " " + strings.Join(c.args, " ")
		t.Run(name, func(t *testing.T) {
			curves := polluxCurves
			if c.dataset == "schedule-curves" {
				curves = scheduleCurves[c.seed]
			}
			code, out, stderr := evalConvergence(t, curves.Dir(t), c.args...)
			if code != 0 {
				t.Fatal(stderr)
			}
			for _, b := range c.want {
				f := readConvergenceEval(t, out, b.frac)
				if f.covered < b.covered || f.medianErr > b.median {
					t.Errorf("%.0f%% observed: %d of %d covered, median error %.1f; before issue 24: %d, %.1f", 100*b.frac, f.covered, f.uncensored, f.medianErr, b.covered, b.median)
				}
			}
		})
	}
}
