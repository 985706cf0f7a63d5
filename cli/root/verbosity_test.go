package root

import (
	"path/filepath"
	"strings"
	"testing"
)

// --quiet leaves errors only on standard error (what cron mails), and
// --verbose adds the summaries that otherwise only a terminal gets.
func TestQuietAndVerbose(t *testing.T) {
	tb := exportTestbed(t)
	out := t.TempDir()
	in := func(n string) string { return filepath.Join(tb, n) }
	fit := []string{"fit", "-i", in("loss.parquet"), "--speed", in("speed.parquet"), "--jobs", in("jobs.parquet"), "-o", filepath.Join(out, "m.parquet")}
	solve := []string{"solve", "--cluster", in("cluster.parquet"), "-i", filepath.Join(out, "p.parquet"), "-o", filepath.Join(out, "a.parquet")}
	for _, tc := range []struct {
		args []string
		want string // a part of standard error; "" for nothing at all
	}{
		{fit, "optimus: warning: fit: dropped 3 loss points of 1 jobs"},
		{append([]string{"-q"}, fit...), ""},
		{append(fit, "--quiet"), ""},
		{[]string{"predict", "-i", in("jobs.parquet"), "--models", filepath.Join(out, "m.parquet"), "-o", filepath.Join(out, "p.parquet")}, ""},
		{solve, ""},
		{append(solve, "-v"), "optimus: solve (optimus, nodes capacity): 9 jobs: 9 running"},
		{append(solve, "-v", "-q"), "optimus: --quiet and --verbose contradict each other"},
	} {
		code, _, stderr := run(t, nil, tc.args...)
		switch {
		case tc.want == "" && (code != 0 || stderr != ""):
			t.Errorf("%v: exit %d, %q; want exit 0 and nothing", tc.args, code, stderr)
		case tc.want != "" && !strings.Contains(stderr, tc.want):
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// At a terminal a wide table shows its main columns and says so; --wide
// shows all, --columns picks; counts print exactly.
func TestTerminalColumns(t *testing.T) {
	tb := exportTestbed(t)
	out := t.TempDir()
	in := func(n string) string { return filepath.Join(tb, n) }
	m, p := filepath.Join(out, "m.parquet"), filepath.Join(out, "p.parquet")
	for _, args := range [][]string{
		{"fit", "-q", "-i", in("loss.parquet"), "--speed", in("speed.parquet"), "--jobs", in("jobs.parquet"), "-o", m},
		{"predict", "-i", in("jobs.parquet"), "--models", m, "-o", p},
	} {
		if code, _, stderr := run(t, nil, args...); code != 0 {
			t.Fatal(stderr)
		}
	}
	solve := []string{"solve", "--cluster", in("cluster.parquet"), "-i", p, "--format", "text"}
	for _, tc := range []struct {
		extra   []string
		code    int
		want    []string
		wantNot []string
		header  string
	}{
		{nil, 0, []string{"(allocation: 9 rows, 12 columns)", "(12 of the allocation table's 54 columns: --wide shows all, --columns picks)", " 1026706 "}, []string{"e+0", "alloc_nodes"},
			"job          model         remaining_steps_p50  ps  workers  alloc_ps  alloc_workers"},
		{[]string{"--wide"}, 0, []string{"(allocation: 9 rows, 54 columns)", "alloc_nodes"}, []string{"--wide shows all"}, ""},
		{[]string{"--columns", "job,alloc_ps"}, 0, []string{"(allocation: 9 rows, 2 columns)"}, []string{"--wide shows all"}, "job          alloc_ps"},
		{[]string{"--columns", "job,nothing"}, 2, nil, nil, ""},
	} {
		code, stdout, stderr := run(t, nil, append(solve, tc.extra...)...)
		got := string(stdout)
		if code != tc.code {
			t.Errorf("%v: exit %d (%s), want %d", tc.extra, code, stderr, tc.code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.extra, w, got)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("%v: output has %q:\n%s", tc.extra, w, got)
			}
		}
		if tc.header != "" && !strings.HasPrefix(got, tc.header) {
			t.Errorf("%v: header %q, want %q", tc.extra, strings.SplitN(got, "\n", 2)[0], tc.header)
		}
	}
}

// The --help examples of eval speed and fit suggest give results on the
// embedded testbed.
func TestHelpExamplesWorkOnTheTestbed(t *testing.T) {
	tb := exportTestbed(t)
	in := func(n string) string { return filepath.Join(tb, n) }
	code, out, stderr := run(t, nil, "eval", "speed", "-i", in("speed.parquet"), "--jobs", in("jobs.parquet"), "--samples", "6", "--format", "csv")
	if code != 0 || strings.Count(string(out), "\n") != 10 || !strings.Contains(string(out), "resnet50-a,sync,10,6,suggest,1,0,4,") {
		t.Errorf("eval speed: exit %d %s\n%s", code, stderr, out)
	}
	code, out, stderr = run(t, nil, "fit", "suggest", "--jobs", in("jobs.parquet"), "-i", in("speed.parquet"), "--samples", "14", "--format", "csv")
	if code != 0 || strings.Count(string(out), "\n") != 1+9*4 {
		t.Errorf("fit suggest: exit %d %s\n%s", code, stderr, out)
	}
	code, _, stderr = run(t, nil, "fit", "suggest", "--jobs", in("jobs.parquet"), "-i", in("speed.parquet"), "--format", "csv")
	if code != 0 || !strings.Contains(stderr, "nothing to suggest; raise --samples") {
		t.Errorf("fit suggest with every job measured: exit %d %q", code, stderr)
	}
}
