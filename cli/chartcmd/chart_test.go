package chartcmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/chart/charttest"
	"github.com/optimus-sched/optimus/cli/chartcmd"
	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/cli/fitcmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/placecmd"
	"github.com/optimus-sched/optimus/cli/predictcmd"
	"github.com/optimus-sched/optimus/cli/reportcmd"
	"github.com/optimus-sched/optimus/cli/simulatecmd"
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// optimus runs, in-process, the commands of the demo's pipeline
// (clitest.Tree: not every command, so
// that the test binary links no client-go).
var optimus = clitest.Tree(
	datasetscmd.NewCmd,
	func(ios *iostreams.IOStreams) *cobra.Command { return fitcmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return predictcmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return solvecmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return placecmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return simulatecmd.NewCmd(ios, nil) },
	chartcmd.NewCmd,
	func(ios *iostreams.IOStreams) *cobra.Command { return reportcmd.NewCmd(ios, nil) })

// demo is the demo's pipeline over the embedded testbed, run once into a
// folder shared by the tests: fit, predict, four policies, place, suggest,
// and a simulation of two seeds with fitted and oracle knowledge.
var demo = clitest.NewFixture("pipeline", func(dir string) error {
	tb := filepath.Join(dir, "testbed")
	lines := [][]string{
		{"datasets", "export", "testbed", "-o", tb},
		{"fit", "-i", tb + "/loss.parquet", "--speed", tb + "/speed.parquet", "--jobs", tb + "/jobs.parquet", "-o", dir + "/models.parquet"},
		{"fit", "suggest", "--jobs", tb + "/jobs.parquet", "-i", tb + "/speed.parquet", "--samples", "14", "-o", dir + "/suggestions.parquet"},
		{"predict", "-i", tb + "/jobs.parquet", "--models", dir + "/models.parquet", "-o", dir + "/predictions.parquet"},
		{"solve", "--cluster", tb + "/cluster.parquet", "-i", dir + "/predictions.parquet", "-o", dir + "/allocation.parquet"},
	}
	for _, p := range []string{"drf", "tetris", "fifo"} {
		lines = append(lines, []string{"solve", "--cluster", tb + "/cluster.parquet", "-i", dir + "/predictions.parquet", "--policy", p, "-o", dir + "/allocation-" + p + ".parquet"})
	}
	lines = append(lines,
		[]string{"place", "--cluster", tb + "/cluster.parquet", "-i", dir + "/allocation.parquet", "-o", dir + "/plan.parquet"},
		[]string{"simulate", "--seeds", "1-2", "--knowledge", "fitted,oracle", "-q", "--dir", dir + "/sim", "-o", dir + "/sim/summary.csv"})
	return optimus.RunAll(lines)
})

// pipeline returns the folder of the demo's pipeline; tests must not
// change it.
func pipeline(t *testing.T) string {
	t.Helper()
	return demo.Dir(t)
}

func TestMain(m *testing.M) { clitest.Main(m) }

// kindArgs are the commands that draw each kind from the pipeline's tables.
func kindArgs(d string) map[string][]string {
	tb := d + "/testbed"
	return map[string][]string{
		"loss":  {"chart", "loss", "-i", tb + "/loss.parquet", "--models", d + "/models.parquet", "--predictions", d + "/predictions.parquet"},
		"speed": {"chart", "speed", "-i", tb + "/speed.parquet", "--models", d + "/models.parquet", "--suggestions", d + "/suggestions.parquet"},
		"allocation": {"chart", "allocation", "-i", d + "/allocation.parquet", "-i", d + "/allocation-drf.parquet", "-i", d + "/allocation-tetris.parquet",
			"-i", d + "/allocation-fifo.parquet", "--cluster", tb + "/cluster.parquet"},
		"plan": {"chart", "plan", "-i", d + "/plan.parquet", "--cluster", tb + "/cluster.parquet"},
		"simulation": {"chart", "simulation", "-i", d + "/sim/sim_jobs.parquet", "--allocations", d + "/sim/sim_allocations.parquet",
			"--utilisation", d + "/sim/sim_utilisation.parquet"},
		"report": {"report", "--loss", tb + "/loss.parquet", "--speed", tb + "/speed.parquet", "--cluster", tb + "/cluster.parquet",
			"--models", d + "/models.parquet", "--suggestions", d + "/suggestions.parquet", "--predictions", d + "/predictions.parquet",
			"--allocation", d + "/allocation.parquet", "--allocation", d + "/allocation-drf.parquet", "--plan", d + "/plan.parquet",
			"--simulation", d + "/sim"},
	}
}

type manifest []struct {
	ID     string `json:"id"`
	Series []struct {
		Name string `json:"name"`
		Data int    `json:"data"`
	} `json:"series"`
}

var manifestRE = regexp.MustCompile(`<script type="application/json" id="optimus-charts">(.*)</script>`)

func readManifest(t *testing.T, html []byte) manifest {
	t.Helper()
	m := manifestRE.FindSubmatch(html)
	if m == nil {
		t.Fatal("no chart manifest in the page")
	}
	var out manifest
	if err := json.Unmarshal(m[1], &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func draw(t *testing.T, args []string, out string) []byte {
	t.Helper()
	optimus.MustRun(t, nil, append(args, "-o", out)...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every kind draws the testbed's tables into a page that needs no network,
// with the series and data counts the tables imply.
func TestKindsOnTestbed(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	d := pipeline(t)
	out := t.TempDir()
	plan, err := table.ReadFile(d+"/plan.parquet", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]bool{}
	for i, j := range plan.Strings("job") {
		cells[j+"@"+plan.Strings("node")[i]] = true
	}
	simJobs, err := table.ReadFile(d+"/sim/sim_jobs.parquet", schema.SimJobs)
	if err != nil {
		t.Fatal(err)
	}
	// The CDF of each policy and knowledge: a first point at 0, then one per
	// finished job of both seeds.
	var cdf []int
	finished := map[string]int{}
	var lines []string
	for i, p := range simJobs.Strings("policy") {
		l := p + "/" + simJobs.Strings("knowledge")[i]
		if _, ok := finished[l]; !ok {
			lines = append(lines, l)
			finished[l] = 1
		}
		if simJobs.Strings("status")[i] == "finished" {
			finished[l]++
		}
	}
	for _, l := range lines {
		cdf = append(cdf, finished[l])
	}
	for kind, args := range kindArgs(d) {
		t.Run(kind, func(t *testing.T) {
			html := draw(t, args, filepath.Join(out, kind+".html"))
			if bytes.Contains(html, []byte("<script src")) || bytes.Contains(html, []byte("<link ")) {
				t.Error("the page loads a script or stylesheet: it would not work offline")
			}
			if !bytes.Contains(html, []byte("echarts.init(")) || !bytes.Contains(html, []byte("Apache License")) {
				t.Error("echarts is not inlined")
			}
			m := readManifest(t, html)
			byID := map[string][]int{}
			for _, c := range m {
				for _, s := range c.Series {
					byID[c.ID] = append(byID[c.ID], s.Data)
				}
			}
			switch kind {
			case "loss":
				// resnet50-a: 123 points, 2 non-finite, 1 outlier; the
				// fitted curve is sampled at 121 steps.
				if got := byID["loss_1"]; len(m) != 9 || !equal(got, []int{121, 120, 1}) {
					t.Errorf("%d charts, loss_1 series %v; want 9 charts, [121 120 1]", len(m), got)
				}
			case "speed":
				if len(m) != 9 {
					t.Errorf("%d charts, want 9", len(m))
				}
			case "allocation":
				for _, id := range []string{"allocation_1", "allocation_2", "allocation_3", "allocation_4"} {
					if got := byID[id]; !equal(got, []int{9, 9, 9}) {
						t.Errorf("%s: %v, want PS, workers and now for 9 jobs", id, got)
					}
				}
				if got := byID["utilisation_1"]; !equal(got, []int{4, 4, 4, 4, 4}) {
					t.Errorf("utilisation: %v, want now and 4 policies over 4 resources", got)
				}
			case "plan":
				if got := byID["plan_1"]; !equal(got, []int{len(cells)}) {
					t.Errorf("plan cells %v, want %d (job, node) pairs", got, len(cells))
				}
				if got := byID["nodefill_1"]; !equal(got, []int{13, 13, 13, 13}) {
					t.Errorf("node fill %v, want 4 resources over 13 nodes", got)
				}
			case "simulation":
				if got := byID["jct_1"]; len(cdf) != 8 || !equal(got, cdf) {
					t.Errorf("JCT CDF %v, want %v (4 policies, fitted and oracle)", got, cdf)
				}
				// Seed 1: 8 runs of 9 jobs; 4 resources and the jobs waiting.
				for n := 1; n <= 8; n++ {
					if got := byID[fmt.Sprintf("simallocation_%d", n)]; len(got) != 9 {
						t.Errorf("simallocation_%d: %d series, want 9 jobs", n, len(got))
					}
				}
				for _, id := range []string{"simutilisation_1", "simutilisation_2", "simutilisation_3", "simutilisation_4", "simwaiting_1"} {
					if got := byID[id]; len(got) != 8 {
						t.Errorf("%s: %d series, want 8 runs", id, len(got))
					}
				}
				if len(m) != 1+8+2+5 { // CDF, allocations, accuracy, utilisation
					t.Errorf("%d charts, want 16", len(m))
				}
				for _, want := range []string{"optimus (oracle)", "<td>tetris</td><td>oracle</td>", "seeds 1, 2 pooled"} {
					if !bytes.Contains(html, []byte(want)) {
						t.Errorf("the page lacks %q", want)
					}
				}
			case "report":
				if len(m) != 2+1+2+9+9+16 {
					t.Errorf("%d charts, want 39", len(m))
				}
				if !bytes.Contains(html, []byte("<td>--simulation</td>")) || !bytes.Contains(html, []byte("sim_utilisation.parquet")) {
					t.Error("the report does not list the simulation's tables")
				}
				for _, want := range []string{"Inputs and outputs", "Decisions per job (optimus)", "<td>resnet50-a</td>", "<td class=\"num\">341</td>"} {
					if !bytes.Contains(html, []byte(want)) {
						t.Errorf("report lacks %q", want)
					}
				}
			}
		})
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Identical input gives identical bytes.
func TestPagesAreDeterministic(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	d := pipeline(t)
	out := t.TempDir()
	for kind, args := range kindArgs(d) {
		a := draw(t, args, filepath.Join(out, kind+"-a.html"))
		b := draw(t, args, filepath.Join(out, kind+"-b.html"))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs differ", kind)
		}
	}
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Wrong tables and missing columns exit 2 naming what is wrong, and write
// nothing; an empty table gives a page that says so.
func TestBadInput(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	d := pipeline(t)
	dir := t.TempDir()
	tb := d + "/testbed"
	noValue := writeFile(t, dir+"/loss.csv", "job,step\na,1\na,2\n")
	fpga := writeFile(t, dir+"/cluster.csv", "node,gpu,cpu,memory_gb,net_gbps,fpga\nn1,4,16,64,10,2\n")
	noStatus := writeFile(t, dir+"/sim_jobs.csv", "policy,knowledge,seed,job,model,arrival_s,ready_s,jct_s,restarts,restart_lost_s,profiling_s,total_steps,progress_steps,pred_rounds\n"+
		"optimus,fitted,1,a,m,0,10,900,0,0,0,100,100,1\n")
	noUtil := writeFile(t, dir+"/sim_utilisation.csv", "policy,knowledge,seed,time_s,running,waiting\noptimus,fitted,1,600,1,0\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"wrong table", []string{"chart", "loss", "-i", tb + "/jobs.parquet"}, "is a jobs table, but a loss table is expected here"},
		{"wrong side table", []string{"chart", "speed", "-i", tb + "/speed.parquet", "--models", d + "/predictions.parquet"}, "is a predictions table, but a models table is expected here"},
		{"missing column", []string{"chart", "loss", "-i", noValue}, `"value"`},
		{"missing demand", []string{"chart", "allocation", "-i", d + "/allocation.parquet", "--cluster", fpga}, `needs columns "ps_fpga", "worker_fpga"`},
		{"node not in cluster", []string{"chart", "plan", "-i", d + "/plan.parquet", "--cluster", fpga}, "is not in the cluster table"},
		{"no kind", []string{"chart"}, "name a kind of chart"},
		{"unknown job", []string{"chart", "loss", "-i", tb + "/loss.parquet", "--job", "resnet50-a", "--job", "nope"}, `no job "nope" in the loss table`},
		{"report of nothing", []string{"report"}, "give at least one table"},
		{"report, wrong table", []string{"report", "--plan", d + "/allocation.parquet"}, "is an allocation table, but a plan table is expected here"},
		{"simulation, wrong table", []string{"chart", "simulation", "-i", d + "/sim/sim_summary.parquet"}, "is a sim_summary table, but a sim_jobs table is expected here"},
		{"simulation, wrong side table", []string{"chart", "simulation", "-i", d + "/sim/sim_jobs.parquet", "--utilisation", d + "/sim/sim_allocations.parquet"}, "is a sim_allocations table, but a sim_utilisation table is expected here"},
		{"simulation, missing column", []string{"chart", "simulation", "-i", noStatus}, `"status"`},
		{"simulation, no util columns", []string{"chart", "simulation", "-i", d + "/sim/sim_jobs.parquet", "--utilisation", noUtil}, "needs util_<resource> columns"},
		{"simulation, unknown seed", []string{"chart", "simulation", "-i", d + "/sim/sim_jobs.parquet", "--seed", "9"}, "no seed 9 in the sim_jobs table"},
		{"report, no simulation", []string{"report", "--simulation", dir}, "sim_jobs.parquet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".html")
			args := c.args
			if len(args) > 1 { // "optimus chart" alone takes no -o
				args = append(args, "-o", out)
			}
			code, _, stderr := optimus.Run(t, nil, args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written", out)
			}
		})
	}

	one := draw(t, []string{"chart", "speed", "-i", tb + "/speed.parquet", "--job", "vgg16-b"}, dir+"/one.html")
	if m := readManifest(t, one); len(m) != 1 || !bytes.Contains(one, []byte(`"text":"vgg16-b"`)) {
		t.Errorf("--job vgg16-b: %d charts", len(m))
	}

	empty := writeFile(t, dir+"/empty-loss.csv", "job,step,value\n")
	html := draw(t, []string{"chart", "loss", "-i", empty}, dir+"/empty.html")
	if !bytes.Contains(html, []byte("The loss table empty-loss.csv is empty (0 rows): there is nothing to draw.")) {
		t.Error("the page of an empty table does not say it is empty")
	}
	if !bytes.Contains(html, []byte(`id="optimus-charts">[]</script>`)) {
		t.Error("the manifest of a page without charts is not an empty list")
	}
	if m := readManifest(t, html); len(m) != 0 {
		t.Errorf("%d charts for an empty table", len(m))
	}
}
