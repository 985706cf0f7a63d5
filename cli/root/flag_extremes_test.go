package root

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// extremes are the values tried for each numeric flag, by its type: the
// ends of the type, zero, minus one, and for floats the tiniest, NaN and
// infinity. Each once reached a hang, a panic or a table optimus refused
// to write (simulate --interval 1e308 and --profile-run-s 1e-320 looped
// without end; eval convergence --window 2^63-1 indexed out of range;
// simulate --pollux --profile-run-s 2^63-1 wrote a negative makespan).
var extremes = map[string][]string{
	"int":      {"9223372036854775807", "-9223372036854775808", "-1", "0"},
	"int64":    {"9223372036854775807", "-9223372036854775808", "-1", "0"},
	"uint64":   {"18446744073709551615", "0"},
	"float64":  {"1e308", "-1e308", "1e-320", "NaN", "Inf", "-1", "0"},
	"duration": {"2562047h", "-1ns", "0s"},
}

// TestExtremeFlagValues runs every numeric flag of the commands below at
// each of its type's extremes, and every pair of a command's numeric flags
// at the ends of their types, and asks for an outcome a user can act on:
// exit 0, or exit 2 with one line of error; never exit 1 or 3 (a bug: an
// internal error, a panic), and never a run that does not end. The flags
// come from the commands themselves, so a flag added later is swept too.
func TestExtremeFlagValues(t *testing.T) {
	if testing.Short() {
		t.Skip("about 950 runs of the commands")
	}
	dir := plannedTestbed.Copy(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	logs := filepath.Join(t.TempDir(), "logs")
	if err := os.MkdirAll(filepath.Join(logs, "j1", "ps1-w2"), 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	log.WriteString("step,epoch,loss,time\n")
	for k := 1; k <= 50; k++ {
		fmt.Fprintf(&log, "%d,%d,%.4f,%d\n", 100*k, k/10, 3/math.Sqrt(float64(k)), 30*k)
	}
	if err := os.WriteFile(filepath.Join(logs, "j1", "ps1-w2", "metrics.csv"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	o := func(n string) string { return filepath.Join(out, n) }
	if code, _, stderr := run(t, nil, "datasets", "export", "pollux-curves", "-o", p("pollux")); code != 0 {
		t.Fatalf("datasets export pollux-curves: %s", stderr)
	}
	bases := [][]string{
		{"fit", "-i", p("loss.parquet"), "--speed", p("speed.parquet"), "--jobs", p("jobs.parquet"), "-o", o("m.parquet")},
		{"fit", "suggest", "-i", p("speed.parquet"), "--jobs", p("jobs.parquet"), "-o", o("s.parquet")},
		{"predict", "-i", p("jobs.parquet"), "--models", p("models.parquet"), "-o", o("p.parquet")},
		{"solve", "--cluster", p("cluster.parquet"), "-i", p("predictions.parquet"), "-o", o("a.parquet")},
		{"place", "--cluster", p("cluster.parquet"), "-i", p("allocation.parquet"), "-o", o("pl.parquet")},
		{"place", "ps-blocks", "--model", "vgg-16", "--ps", "4", "-o", o("b.parquet")},
		{"apply", "--executor", "print", "-i", p("plan.parquet"), "--jobs", p("jobs.parquet"), "-o", o("ac.parquet")},
		{"eval", "convergence", "-i", p("pollux/loss.parquet"), "--jobs", p("pollux/jobs.parquet"), "-o", o("ev.parquet")},
		{"eval", "speed", "-i", p("speed.parquet"), "--jobs", p("jobs.parquet"), "-o", o("es.parquet")},
		{"datasets", "generate", "--tasks", "100", "--nodes", "20", "--cluster", o("gc.parquet"), "-o", o("g.parquet")},
		{"datasets", "export", "step-curves", "-o", o("sc")},
		{"metrics", logs, "--source", "csv", "-o", o("m")},
		// A short run: the flag swept comes after, and wins.
		{"simulate", "--seeds", "1", "--policies", "optimus,drf", "--horizon", "20000", "-o", o("sim.csv")},
	}
	swept := 0
	for _, base := range bases {
		name := commandName(base)
		// Each base runs as it is: otherwise every flag would be refused
		// for the same unrelated reason, and the sweep would test nothing.
		if code, _, stderr := run(t, nil, base...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(base, " "), code, stderr)
		}
		for _, f := range numericFlags(t, base) {
			for _, v := range extremes[f.Value.Type()] {
				args := append(slices.Clone(base), "--"+f.Name, v)
				code, stderr, ok := runWithin(args, time.Minute)
				swept++
				switch {
				case !ok:
					t.Fatalf("%s --%s %s: still running after a minute", name, f.Name, v)
				case code != 0 && code != 2 || strings.Contains(stderr, "internal error"):
					t.Errorf("%s --%s %s: exit %d: %s", name, f.Name, v, code, stderr)
				case code == 2 && strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") > 0:
					t.Errorf("%s --%s %s: the error is not one line: %q", name, f.Name, v, stderr)
				}
			}
		}
	}
	// Pairs of flags at the ends of their types at once (--window and
	// --cap both at 2^63-1 reached the panic that either alone is refused
	// before).
	for _, base := range bases {
		flags := numericFlags(t, base)
		for i, f := range flags {
			for _, g := range flags[i+1:] {
				for end := range 2 {
					fv, gv := extremes[f.Value.Type()], extremes[g.Value.Type()]
					args := append(slices.Clone(base), "--"+f.Name, fv[min(end, len(fv)-1)], "--"+g.Name, gv[min(end, len(gv)-1)])
					code, stderr, ok := runWithin(args, time.Minute)
					swept++
					switch {
					case !ok:
						t.Fatalf("%s: still running after a minute", strings.Join(args, " "))
					case code != 0 && code != 2 || strings.Contains(stderr, "internal error"):
						t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
					}
				}
			}
		}
	}
	if swept < 200 {
		t.Errorf("%d runs: the sweep found too few numeric flags", swept)
	}
	t.Logf("%d runs over %d commands", swept, len(bases))
}

// commandName is the subcommand path at the start of args (not the
// positional arguments, paths, after it).
func commandName(args []string) string {
	n := 0
	for n < len(args) && !strings.HasPrefix(args[n], "-") && !strings.Contains(args[n], "/") {
		n++
	}
	return strings.Join(args[:n], " ")
}

// numericFlags are the flags of args' command (its own and inherited)
// whose values are numbers or durations.
func numericFlags(t *testing.T, args []string) []*pflag.Flag {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	cmd, _, err := NewCmd(ios).Find(args)
	if err != nil {
		t.Fatal(err)
	}
	var out []*pflag.Flag
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if _, ok := extremes[f.Value.Type()]; ok && !seen[f.Name] && !f.Hidden {
			seen[f.Name] = true
			out = append(out, f)
		}
	}
	for c := cmd; c != nil; c = c.Parent() {
		c.LocalFlags().VisitAll(visit)
		c.PersistentFlags().VisitAll(visit)
	}
	if len(out) == 0 && !slices.Contains([]string{"datasets export"}, commandName(args)) {
		t.Errorf("%s: no numeric flags found", commandName(args))
	}
	return out
}

// runWithin runs args in-process and reports false when they had not
// ended within d (the run is then left behind).
func runWithin(args []string, d time.Duration) (int, string, bool) {
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := Run(nil, args...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr, true
	case <-time.After(d):
		return 0, "", false
	}
}
