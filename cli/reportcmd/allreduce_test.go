package reportcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/chart/charttest"
)

// A report of all-reduce jobs: Pollux's workload-1's speed samples and
// fits, the plan of 8 of its jobs on 6 nodes (apply/testdata/allreduce),
// and a simulation of the whole workload under Tiresias. Speeds are drawn by
// nodes, not by a p that is always 0, and the plan shows workers only.
func TestReportOfAllReduceJobs(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	dir := t.TempDir()
	pw, ar := filepath.Join(dir, "pw"), "../../apply/testdata/allreduce"
	for _, args := range [][]string{
		{"datasets", "export", "pollux-workload-1", "-o", pw},
		{"fit", "--speed", pw + "/speed.parquet", "--jobs", pw + "/jobs.parquet", "-o", dir + "/models.parquet"},
		{"simulate", "--pollux", "workload-1", "--interval", "60", "--stop-cost", "0", "--restore-cost", "30", "--start-cost", "30",
			"--policies", "tiresias", "--oracle", "--dir", dir + "/sim", "-o", dir + "/summary.csv"},
		{"report", "--speed", pw + "/speed.parquet", "--models", dir + "/models.parquet",
			"--plan", ar + "/plan.csv", "--cluster", ar + "/cluster.csv", "--simulation", dir + "/sim", "-o", dir + "/report.html"},
	} {
		if code, _, stderr := optimus.Run(t, nil, append(args, "-q")...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	page, err := os.ReadFile(dir + "/report.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"4W|imagenet-11 on node-03"`, `"name":"16 nodes"`, "tiresias, with oracle knowledge"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	if strings.Contains(string(page), "p = 0") {
		t.Error("the report draws all-reduce jobs by p = 0")
	}
}
