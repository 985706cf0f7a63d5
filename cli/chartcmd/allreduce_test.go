package chartcmd_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/chart/charttest"
)

// All-reduce jobs in the charts: Pollux's imagenet-11 (workload-1's
// profiling runs at 10 configurations of workers and nodes) is drawn by
// the nodes its workers spanned, not by a p that is always 0; the
// all-reduce plan of 8 of its jobs shows workers only.
func TestChartsOfAllReduceJobs(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	d := t.TempDir()
	optimus.MustRun(t, nil, "datasets", "export", "pollux-workload-1", "-o", d, "-q")
	optimus.MustRun(t, nil, "fit", "--speed", d+"/speed.parquet", "--jobs", d+"/jobs.parquet", "-o", d+"/models.parquet", "-q")
	html := draw(t, []string{"chart", "speed", "-i", d + "/speed.parquet", "--models", d + "/models.parquet", "--job", "imagenet-11", "-q"}, filepath.Join(d, "speed.html"))
	m := readManifest(t, html)
	if len(m) != 1 {
		t.Fatalf("%d charts, want 1", len(m))
	}
	var names []string
	for _, s := range m[0].Series {
		names = append(names, s.Name)
	}
	// Its samples span 1, 2, 4, 7, 11, 14 and 16 nodes; 6 are drawn.
	if got, want := strings.Join(names, ","), "1 node,2 nodes,4 nodes,7 nodes,11 nodes,16 nodes,other nodes"; got != want {
		t.Errorf("series %s, want %s", got, want)
	}
	if bytes.Contains(html, []byte("p = 0")) {
		t.Error("an all-reduce job is drawn by p = 0")
	}
	ar := "../../apply/testdata/allreduce"
	plan := draw(t, []string{"chart", "plan", "-i", ar + "/plan.csv", "--cluster", ar + "/cluster.csv", "-q"}, filepath.Join(d, "plan.html"))
	if !bytes.Contains(plan, []byte(`"name":"4W|imagenet-11 on node-03"`)) || regexp.MustCompile(`"name":"\d+P`).Match(plan) {
		t.Error("the plan chart does not show imagenet-11's 4 workers on node-03 as workers only")
	}
}
