package root

import (
	"path/filepath"
	"strings"
	"testing"
)

// A table a round leaves out (snapshot without --jobs) is warned of when
// the last round's stays beside the new ones: the next steps would read it
// as this round's.
func TestLeftOverTablesAreWarnedOf(t *testing.T) {
	dir := exportTestbed(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	if code, _, stderr := run(t, nil, "init", p("state.parquet")); code != 0 {
		t.Fatal(stderr)
	}
	snap := []string{"snapshot", "state", "--state", p("state.parquet"), "--cluster", p("cluster.parquet"), "-o", p("snap")}
	for _, c := range []struct {
		args []string
		want []string // the files warned of
	}{
		{append(snap, "--jobs", p("jobs.parquet")), nil},
		{append(snap, "--jobs", p("jobs.parquet")), nil},
		{snap, []string{"jobs.parquet"}},
		{append(snap, "--format", "csv", "--jobs", p("jobs.parquet")), []string{"cluster.parquet", "plan.parquet", "jobs.parquet"}},
	} {
		code, _, stderr := run(t, nil, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if got := strings.Count(stderr, "was not written by this run"); got != len(c.want) {
			t.Errorf("%v: %d warnings, want %d (%v):\n%s", c.args[len(snap)-2:], got, len(c.want), c.want, stderr)
		}
		for _, f := range c.want {
			if !strings.Contains(stderr, filepath.Join(p("snap"), f)+" was not written by this run") {
				t.Errorf("%v: no warning of %s:\n%s", c.args, f, stderr)
			}
		}
	}
}
