package root

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setCSV rewrites one value of a CSV table (row counts from 1, after the
// header) into a new file.
func setCSV(t *testing.T, src, dst, col string, row int, value string) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	k := -1
	for i, h := range recs[0] {
		if h == col {
			k = i
		}
	}
	if k < 0 {
		t.Fatalf("%s has no column %s", src, col)
	}
	recs[row][k] = value
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.WriteAll(recs)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// A task count (running, allocated, allowed, or a task's index) beyond what
// any job may have is an input error naming the column and row, whatever
// command reads it: before the bound, place looped for every one of 2^63
// tasks of a hand-edited allocation (the readers now stop a value beyond
// 2^53 first; the bound of 2^20 tasks stops what they let through).
func TestTaskCountsAreBounded(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, args := range [][]string{
		{"datasets", "export", "testbed", "-o", dir, "--format", "csv"},
		{"fit", "-i", p("loss.csv"), "--speed", p("speed.csv"), "--jobs", p("jobs.csv"), "-o", p("models.csv")},
		{"predict", "-i", p("jobs.csv"), "--models", p("models.csv"), "-o", p("predictions.csv")},
		{"solve", "--cluster", p("cluster.csv"), "-i", p("predictions.csv"), "-o", p("allocation.csv")},
		{"place", "--cluster", p("cluster.csv"), "-i", p("allocation.csv"), "-o", p("plan.csv")},
	} {
		if code, _, stderr := run(t, nil, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	huge := []string{"1048577", "9223372036854775807"}
	for _, tc := range []struct {
		table, col, command string
	}{
		{"predictions", "ps", "solve"},
		{"predictions", "workers", "solve"},
		{"predictions", "max_ps", "solve"},
		{"predictions", "max_workers", "solve"},
		{"allocation", "alloc_ps", "place"},
		{"allocation", "alloc_workers", "place"},
		{"plan", "index", "place --current"},
	} {
		for _, v := range huge {
			t.Run(fmt.Sprintf("%s.%s=%s", tc.table, tc.col, v), func(t *testing.T) {
				bad := setCSV(t, p(tc.table+".csv"), p("bad-"+tc.table+".csv"), tc.col, 2, v)
				out := p("out.csv")
				var args []string
				switch tc.command {
				case "solve":
					args = []string{"solve", "--cluster", p("cluster.csv"), "-i", bad, "-o", out}
				case "place":
					args = []string{"place", "--cluster", p("cluster.csv"), "-i", bad, "-o", out}
				default:
					args = []string{"place", "--cluster", p("cluster.csv"), "-i", p("allocation.csv"), "--current", bad, "-o", out}
				}
				code, _, stderr := run(t, nil, args...)
				want := fmt.Sprintf(`column %q, row 2 (line 3): `, tc.col)
				if code != 2 || !strings.Contains(stderr, want) || v == huge[0] && !strings.Contains(stderr, "at most 1048576") {
					t.Errorf("exit %d: %q; want exit 2 naming %s", code, stderr, want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("wrote %s", out)
				}
			})
		}
	}
}
