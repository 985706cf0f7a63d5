package reportcmd_test

import (
	"os"
	"path/filepath"
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

// A report of some of the tables has the parts those tables allow: here the
// cluster and a plan without an allocation, so no decisions and no fits.
func TestReportOfSomeTables(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	dir := t.TempDir()
	tb := filepath.Join(dir, "testbed")
	for _, args := range [][]string{
		{"datasets", "export", "testbed", "-o", tb},
		{"fit", "-i", tb + "/loss.parquet", "--speed", tb + "/speed.parquet", "--jobs", tb + "/jobs.parquet", "-o", dir + "/models.parquet"},
		{"predict", "-i", tb + "/jobs.parquet", "--models", dir + "/models.parquet", "-o", dir + "/predictions.parquet"},
		{"solve", "--cluster", tb + "/cluster.parquet", "-i", dir + "/predictions.parquet", "--policy", "tetris", "-o", dir + "/allocation.parquet"},
		{"place", "--cluster", tb + "/cluster.parquet", "-i", dir + "/allocation.parquet", "-o", dir + "/plan.parquet"},
		{"report", "--cluster", tb + "/cluster.parquet", "--plan", dir + "/plan.parquet", "-o", dir + "/plan-only.html"},
		{"report", "--allocation", dir + "/allocation.parquet", "--plan", dir + "/plan.parquet", "-o", dir + "/tetris.html"},
	} {
		if code, _, stderr := optimus.Run(t, nil, args...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	page, err := os.ReadFile(dir + "/plan-only.html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{`<td>--cluster</td>`, `<td>--plan</td>`, `id="plan_1"`, `id="nodefill_1"`} {
		if !strings.Contains(html, want) {
			t.Errorf("plan-only report lacks %s", want)
		}
	}
	for _, absent := range []string{"Decisions per job", `id="loss_1"`, `id="allocation_1"`} {
		if strings.Contains(html, absent) {
			t.Errorf("plan-only report has %s", absent)
		}
	}
	// Tetris leaves jobs waiting: the report says why, job by job.
	page, err = os.ReadFile(dir + "/tetris.html")
	if err != nil {
		t.Fatal(err)
	}
	html = string(page)
	if !strings.Contains(html, "Decisions per job (tetris)") || strings.Count(html, "<td>waiting</td>") != 6 {
		t.Errorf("the tetris report does not list its 6 waiting jobs:\n%s", html[strings.Index(html, "Decisions"):][:2000])
	}
	if !strings.Contains(html, "tetris: cluster full") {
		t.Error("the tetris report does not say why jobs wait")
	}
}

// A report of a simulation alone: its JCT CDF, and the per-round tables a
// simulation with --intervals=false leaves empty say so.
func TestReportOfASimulation(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	dir := t.TempDir()
	sim := filepath.Join(dir, "sim")
	for _, args := range [][]string{
		{"simulate", "--seeds", "1", "--policies", "optimus,fifo", "--intervals=false", "-q", "--dir", sim, "-o", dir + "/summary.csv"},
		{"report", "--simulation", sim, "-o", dir + "/report.html"},
	} {
		if code, _, stderr := optimus.Run(t, nil, args...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	page, err := os.ReadFile(dir + "/report.html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{`<td>--simulation</td>`, `id="jct_1"`, "policies optimus, fifo",
		"The sim_allocations table sim_allocations.parquet is empty (0 rows)", "The sim_utilisation table sim_utilisation.parquet is empty (0 rows)"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	if strings.Contains(html, `id="simallocation_1"`) || strings.Contains(html, "Decisions per job") {
		t.Error("the report draws what it was not given")
	}
	if code, _, stderr := optimus.Run(t, nil, "report", "--simulation", dir+"/summary.csv", "-o", dir+"/bad.html"); code != 2 || !strings.Contains(stderr, "not a folder") {
		t.Errorf("--simulation FILE: exit %d, %s", code, stderr)
	}
}

// TestMain runs the tests under clitest.Main (its collector setting).
func TestMain(m *testing.M) { clitest.Main(m) }
