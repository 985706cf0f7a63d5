package reportcmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/chart/charttest"
)

// The report of a generated 1,009-job, 1,100-node run aggregates instead
// of listing: 40 bars per allocation and a histogram of every job, node
// fill as a histogram, and the decisions table in a box that scrolls,
// sorts and filters.
func TestReportAtAThousandJobs(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	dir := t.TempDir()
	c := filepath.Join(dir, "cluster.parquet")
	for _, args := range [][]string{
		{"datasets", "generate", "--tasks", "7000", "--nodes", "1100", "--cluster", c, "-o", dir + "/pred.parquet"},
		{"solve", "--cluster", c, "-i", dir + "/pred.parquet", "-o", dir + "/alloc.parquet"},
		{"solve", "--policy", "tetris", "--cluster", c, "-i", dir + "/pred.parquet", "-o", dir + "/alloc-tetris.parquet"},
		{"place", "--cluster", c, "-i", dir + "/alloc.parquet", "-o", dir + "/plan.parquet"},
		{"report", "--cluster", c, "--allocation", dir + "/alloc.parquet", "--allocation", dir + "/alloc-tetris.parquet", "--plan", dir + "/plan.parquet", "-o", dir + "/report.html"},
	} {
		if code, _, stderr := optimus.Run(t, nil, args...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	b, err := os.ReadFile(dir + "/report.html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	m := regexpManifest.FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no manifest")
	}
	var manifest []struct {
		ID     string              `json:"id"`
		Series []chart.SeriesCount `json:"series"`
	}
	if err := json.Unmarshal([]byte(m[1]), &manifest); err != nil {
		t.Fatal(err)
	}
	counts := map[string][]int{}
	for _, c := range manifest {
		for _, s := range c.Series {
			counts[c.ID] = append(counts[c.ID], s.Data)
		}
	}
	for _, id := range []string{"allocation_1", "allocation_2"} {
		for _, n := range counts[id] {
			if n != 40 {
				t.Errorf("%s draws %v items per series, want 40 (the largest jobs)", id, counts[id])
				break
			}
		}
	}
	if got := counts["taskshist_1"]; len(got) != 2 {
		t.Errorf("no histogram of tasks per job for the 2 policies: %v", got)
	}
	if got := counts["nodefill_1"]; len(got) == 0 || got[0] != 11 {
		t.Errorf("node fill of 1,100 nodes draws %v, want a histogram of 11 ranges per resource", got)
	}
	for _, want := range []string{`<table class="grid interactive">`, `class="gridfilter"`, "1009 rows"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
}
