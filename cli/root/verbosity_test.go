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
		{fit, "optimus: fit: dropped 3 loss points of 1 jobs"},
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
