package simulatecmd_test

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/simulatecmd"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// optimus runs, in-process, datasets export and simulate (clitest.Tree: not every command, so
// that the test binary links no client-go).
var optimus = clitest.Tree(
	datasetscmd.NewCmd,
	func(ios *iostreams.IOStreams) *cobra.Command { return simulatecmd.NewCmd(ios, nil) })

// sims runs a simulate command line once per test binary: the tests that
// compare summaries share the runs of the same line.
var sims = clitest.NewMemo(optimus)

// simTestbed is the simulate-testbed dataset exported once as CSV.
var simTestbed = clitest.NewFixture("simulate-testbed", func(dir string) error {
	return optimus.RunAll([][]string{{"datasets", "export", "simulate-testbed", "-o", dir, "--format", "csv"}})
})

// export returns a copy of the exported simulate-testbed, the test's own.
func export(t *testing.T) string {
	t.Helper()
	return simTestbed.Copy(t)
}

func TestMain(m *testing.M) { clitest.Main(m) }

func inputs(dir string) []string {
	return []string{"--cluster", filepath.Join(dir, "cluster.csv"), "--workload", filepath.Join(dir, "workload.csv"),
		"--profiles", filepath.Join(dir, "profiles.csv"), "--profile-speeds", filepath.Join(dir, "profile_speeds.csv")}
}

func TestSummaryComparesWithOptimus(t *testing.T) {
	code, out, stderr := optimus.Run(t, nil, "simulate", "--seeds", "1,2", "--policies", "optimus,drf", "--format", "csv", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum, err := table.Read(bytes.NewReader(out), "stdout", schema.SimSummary)
	if err != nil {
		t.Fatal(err)
	}
	pol, seed, ratio := sum.Strings("policy"), sum.Int64s("seed"), sum.Float64s("jct_ratio")
	if got := strings.Join(pol, ","); got != "optimus,drf,optimus,drf" || seed[0] != 1 || seed[2] != 2 {
		t.Fatalf("rows %s seeds %v: want optimus and drf for seeds 1 and 2", got, seed)
	}
	for i := range pol {
		if pol[i] == "optimus" && ratio[i] != 1 || pol[i] == "drf" && !(ratio[i] > 1) {
			t.Errorf("%s seed %d: jct_ratio %g", pol[i], seed[i], ratio[i])
		}
	}
	if stderr != "" {
		t.Errorf("stderr with -q and no terminal: %q", stderr)
	}
}

func TestSameInputsGiveByteIdenticalTables(t *testing.T) {
	dir := export(t)
	var outs [2]string
	for k, parallel := range []string{"1", "2"} {
		outs[k] = filepath.Join(t.TempDir(), "out")
		args := append([]string{"simulate", "--seeds", "1-2", "--dir", outs[k], "--parallel", parallel, "-o", filepath.Join(outs[k], "summary.csv")}, inputs(dir)...)
		if code, _, stderr := optimus.Run(t, nil, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	for _, name := range []string{"sim_summary.parquet", "sim_jobs.parquet", "sim_allocations.parquet", "sim_utilisation.parquet", "summary.csv"} {
		a, errA := os.ReadFile(filepath.Join(outs[0], name))
		b, errB := os.ReadFile(filepath.Join(outs[1], name))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between two runs of the same inputs (%d and %d bytes)", name, len(a), len(b))
		}
	}
	jobs, err := table.ReadFile(filepath.Join(outs[0], "sim_jobs.parquet"), schema.SimJobs)
	if err != nil {
		t.Fatal(err)
	}
	if n := jobs.NumRows(); n != 2*4*9 {
		t.Errorf("sim_jobs has %d rows, want 2 seeds x 4 policies x 9 jobs", n)
	}
	for i, s := range jobs.Strings("status") {
		if s != "finished" {
			t.Errorf("row %d: job %s is %s", i+1, jobs.Strings("job")[i], s)
		}
	}
}

// spoil rewrites one field of a CSV file: row (1-based data row), column.
func spoil(t *testing.T, path string, row int, column, value string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], column)
	if col < 0 {
		t.Fatalf("no column %s in %s", column, path)
	}
	recs[row][col] = value
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBadInputNamesFileColumnAndRow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		row    int
		column string
		value  string
		want   string
	}{
		{"model without profile", 3, "model", "bert", `workload.csv: column "model", row 3 (line 4): job "resnet-50-1": model "bert" has no profile in `},
		{"arrivals out of order", 4, "arrival_s", "1.0", `workload.csv: column "arrival_s", row 4 (line 5): job `},
		{"mode not the profile's", 2, "mode", "async", `workload.csv: column "mode", row 2 (line 3): job "seq2seq-1" is async but the profile of "seq2seq"`},
		{"unsupported mode", 1, "mode", "allreduce", `workload.csv: column "mode", row 1 (line 2): job "inception-bn-1": mode "allreduce" is not supported yet`},
		{"negative demand", 5, "worker_gpu", "-1", `workload.csv: column "worker_gpu", row 5 (line 6): -1 is negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := export(t)
			spoil(t, filepath.Join(dir, "workload.csv"), tc.row, tc.column, tc.value)
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := optimus.Run(t, nil, append([]string{"simulate", "--dir", out, "-q"}, inputs(dir)...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); len(stdout) != 0 || err == nil {
				t.Errorf("output written despite the error")
			}
		})
	}
}

func TestJobThatCanNeverFitIsReportedNeverStarted(t *testing.T) {
	dir := export(t)
	spoil(t, filepath.Join(dir, "workload.csv"), 2, "worker_gpu", "5") // GPU servers have 4
	out := t.TempDir()
	if code, _, stderr := optimus.Run(t, nil, append([]string{"simulate", "--dir", out, "--policies", "optimus", "-q", "-o", filepath.Join(out, "s.csv")}, inputs(dir)...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	jobs, err := table.ReadFile(filepath.Join(out, "sim_jobs.parquet"), schema.SimJobs)
	if err != nil {
		t.Fatal(err)
	}
	status, reason := jobs.Strings("status"), jobs.Strings("reason")
	if status[1] != "never_started" || !strings.Contains(reason[1], "one worker needs 5 gpu") {
		t.Errorf("seq2seq-1: %s (%q), want never_started because of its worker", status[1], reason[1])
	}
	if status[0] != "finished" || status[2] != "finished" {
		t.Errorf("the other jobs: %v", status)
	}
}

func TestUsageErrors(t *testing.T) {
	// A Philly trace of 3 jobs (timestamp, duration, GPUs, GPU time, cluster).
	philly := filepath.Join(t.TempDir(), "philly.csv")
	if err := os.WriteFile(philly, []byte("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09 07:02:55,600.0,2,1200.0,a\n2017-10-09 07:03:55,900.0,4,3600.0,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "x"}, `--seeds "x": "x" is not a seed`},
		{[]string{"--seeds", "5-2"}, `--seeds "5-2": "5-2" is not a range of seeds: it ends before it starts`},
		{[]string{"--seeds", "5-x"}, `--seeds "5-x": "5-x" is not a range of seeds (FIRST-LAST, e.g. 5-8)`},
		{[]string{"--seeds", "1-1000000000"}, `--seeds "1-1000000000": more than 10000 seeds`},
		{[]string{"--seeds", "1-5000,5001-10001"}, `more than 10000 seeds`},
		{[]string{"--seeds", "0-18446744073709551615"}, `more than 10000 seeds`},
		{[]string{"--policies", "optimus,lottery"}, `--policies`},
		{[]string{"--parallel", "0"}, `--parallel 0: simulate at least 1 run at a time`},
		{[]string{"--philly-jobs", "5"}, `--philly-jobs applies to --philly only`},
		{[]string{"--pollux-depart", "iteration-column"}, `--pollux-depart applies to --pollux only`},
		{[]string{"--interval", "0"}, `--interval 0: give a finite number of seconds >= 1`},
		{[]string{"--interval", "1e-300"}, `--interval 1e-300: give a finite number of seconds >= 1`},
		{[]string{"--interval", "NaN"}, `--interval NaN`},
		{[]string{"--horizon", "NaN"}, `--horizon NaN: give a finite number of seconds > 0`},
		{[]string{"--horizon", "-1"}, `--horizon -1`},
		{[]string{"--horizon", "1e300", "--interval", "1"}, `--horizon 1e+300 over --interval 1 is 1e+300 scheduling rounds: at most 10000000 (raise --interval or lower --horizon)`},
		{[]string{"--noise", "NaN"}, `--noise NaN: give a finite number >= 0`},
		{[]string{"--profile-run-s", "1e308"}, `--profile-run-s 1e+308: give at most 1e+09 seconds`},
		{[]string{"--stop-cost", "2e9"}, `--stop-cost 2e+09: give at most 1e+09 seconds`},
		{[]string{"--stop-cost", "NaN"}, `--stop-cost NaN`},
		{[]string{"--restore-cost", "-1"}, `--restore-cost -1`},
		{[]string{"--profile-run-s", "NaN"}, `--profile-run-s NaN`},
		{[]string{"--start-cost", "Inf"}, `--start-cost +Inf`},
		{[]string{"--profile-runs", "-1"}, `--profile-runs -1`},
		{[]string{"--srtf-weight", "11"}, `--srtf-weight 11`},
		{[]string{"--restart-cost", "NaN"}, `--restart-cost NaN: give a number of seconds >= 0`},
		{[]string{"--plan-restart-cost", "NaN"}, `--restart-cost NaN`},
		{[]string{"--tetris-srtf", "2"}, `--tetris-srtf 2: give a weight in [0, 1]`},
		{[]string{"--baseline-cap", "0"}, `--baseline-cap 0: give at least 1`},
		{[]string{"--tiresias-thresholds", "2,1"}, `--tiresias-thresholds [2,1]: give ascending`},
		{[]string{"--capacity", "racks"}, `--capacity: no capacity check "racks"`},
		{[]string{"--candidates", "0"}, `--candidates 0: give at least 1`},
		{[]string{"--placement", "pollux"}, `--placement pollux needs --pollux`},
		{[]string{"--cluster", "c.csv"}, `--cluster, --workload and --profiles come together`},
		{[]string{"--placement", "random"}, `--placement`},
		{[]string{"--knowledge", "fitted,psychic"}, `--knowledge "psychic": fitted or oracle`},
		{[]string{"--philly", philly, "--philly-jobs", "0"}, `--philly-jobs 0, --philly-nodes 16, --philly-gpus 4: philly workload of 0 jobs: give 1 to 3 (the trace's jobs)`},
		{[]string{"--philly", philly, "--philly-jobs", "4"}, `philly workload of 4 jobs: give 1 to 3`},
		{[]string{"--philly", philly, "--philly-jobs", "2", "--philly-nodes", "100000000"}, `philly workload on 100000000 nodes: give 1 to 2000000`},
		{[]string{"--philly", philly, "--philly-jobs", "2", "--philly-gpus", "1000000000"}, `philly workload with 1000000000 GPUs per node: give 1 to 1024`},
	} {
		code, _, stderr := optimus.Run(t, nil, append([]string{"simulate", "-q"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// simulate reaches solve's knobs through the flags solve has (one binding,
// cmdutil.BindSolveFlags): each changes the runs it should, and the
// restart cost's default is --stop-cost + --restore-cost, as its help says.
// The deprecated --plan-restart-cost sets the very configuration
// --restart-cost does (its -1 the default's), which the seam shows
// without running it.
func TestSolveKnobsReachTheSimulation(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
	}{
		{"the deprecated name", []string{"--restart-cost", "0"}, []string{"--plan-restart-cost", "0"}},
		{"the deprecated name's -1 is the default", nil, []string{"--plan-restart-cost", "-1"}},
	} {
		a, b := clitest.MustParse(t, simulatecmd.NewCmd, tc.a...), clitest.MustParse(t, simulatecmd.NewCmd, tc.b...)
		if !reflect.DeepEqual(a.Sim, b.Sim) {
			t.Errorf("%s: %v and %v configure different simulations:\n%+v\n%+v", tc.name, tc.a, tc.b, a.Sim, b.Sim)
		}
	}
	summary := func(args ...string) string {
		t.Helper()
		code, out, stderr := sims.Run(t, append([]string{"simulate", "--oracle", "-q", "--format", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return string(out)
	}
	for _, tc := range []struct {
		name string
		a, b []string
		same bool
	}{
		{"restart cost 0 changes optimus", []string{"--policies", "optimus"}, []string{"--policies", "optimus", "--restart-cost", "0"}, false},
		{"the default is stop + restore", []string{"--policies", "optimus"}, []string{"--policies", "optimus", "--restart-cost", "240"}, true},
		{"and follows them", []string{"--policies", "optimus", "--stop-cost", "600"}, []string{"--policies", "optimus", "--stop-cost", "600", "--restart-cost", "780"}, true},
		{"tetris-srtf", []string{"--policies", "tetris"}, []string{"--policies", "tetris", "--tetris-srtf", "1"}, false},
		{"baseline-cap", []string{"--policies", "drf"}, []string{"--policies", "drf", "--baseline-cap", "1"}, false},
		{"tiresias-thresholds", []string{"--pollux", "workload-1", "--policies", "tiresias"}, []string{"--pollux", "workload-1", "--policies", "tiresias", "--tiresias-thresholds", "0.5"}, false},
	} {
		if a, b := summary(tc.a...), summary(tc.b...); (a == b) != tc.same {
			t.Errorf("%s: %v and %v give the same summary: %v, want %v\n%s\n%s", tc.name, tc.a, tc.b, a == b, tc.same, a, b)
		}
	}
}

func TestParseSeeds(t *testing.T) {
	const top = math.MaxUint64
	for _, tc := range []struct {
		in   string
		want []uint64
	}{
		{"3,1-2,2,7", []uint64{3, 1, 2, 7}},
		{"0", []uint64{0}},
		{"18446744073709551615", []uint64{top}},
		{"18446744073709551613-18446744073709551615", []uint64{top - 2, top - 1, top}},
		{"5-5", []uint64{5}},
	} {
		got, err := simulatecmd.ParseSeeds(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSeeds(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	// As many seeds as allowed, over ranges that overlap.
	if got, err := simulatecmd.ParseSeeds("1-6000,5001-10000,3"); err != nil || len(got) != simulatecmd.MaxSeeds {
		t.Errorf("ParseSeeds of 10000 distinct seeds: %d seeds, %v", len(got), err)
	}
}

// --compare aggregates the runs by policy and knowledge over the seeds.
// (simulate's TestTestbedOptimusAheadOfBaselines holds the bar over five
// seeds; here two show the aggregation.)
func TestComparisonOverSeedsAndKnowledge(t *testing.T) {
	code, out, stderr := optimus.Run(t, nil, "simulate", "--seeds", "1-2", "--knowledge", "fitted,oracle", "--compare", "--intervals=false", "--format", "csv", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cmp, err := table.Read(bytes.NewReader(out), "stdout", schema.SimComparison)
	if err != nil {
		t.Fatal(err)
	}
	pol, know, seeds, behind := cmp.Strings("policy"), cmp.Strings("knowledge"), cmp.Int64s("seeds"), cmp.Int64s("behind_optimus")
	lo, hi, mean := cmp.Float64s("jct_ratio_min"), cmp.Float64s("jct_ratio_max"), cmp.Float64s("jct_ratio")
	if len(pol) != 8 {
		t.Fatalf("%d rows, want 4 policies x 2 knowledges", len(pol))
	}
	for i := range pol {
		if seeds[i] != 2 || !(lo[i] <= mean[i] && mean[i] <= hi[i]) {
			t.Errorf("%s %s: %d seeds, jct_ratio %g not within [%g, %g]", pol[i], know[i], seeds[i], mean[i], lo[i], hi[i])
		}
		// The bar: optimus ahead of DRF and Tetris in every seed, fitted or not.
		if (pol[i] == "drf" || pol[i] == "tetris") && behind[i] != 2 {
			t.Errorf("%s %s: behind optimus in %d of 2 seeds", pol[i], know[i], behind[i])
		}
	}
}

func TestMeasuredProfilesNeedTheirSpeeds(t *testing.T) {
	dir := export(t)
	args := []string{"simulate", "-q", "--cluster", filepath.Join(dir, "cluster.csv"), "--workload", filepath.Join(dir, "workload.csv"),
		"--profiles", filepath.Join(dir, "profiles.csv")}
	code, _, stderr := optimus.Run(t, nil, args...)
	if want := `profiles.csv: column "kind", row 1 (line 2): model "dssm" is measured but has no successful measurement in no profile_speeds table given`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("without --profile-speeds: exit %d, stderr %q, want %q", code, stderr, want)
	}
	spoil(t, filepath.Join(dir, "profile_speeds.csv"), 7, "model", "bert")
	code, _, stderr = optimus.Run(t, nil, append(args, "--profile-speeds", filepath.Join(dir, "profile_speeds.csv"))...)
	if want := `profile_speeds.csv: column "model", row 7 (line 8): model "bert" has no row in `; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("unknown model: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

func TestLossDropsAreChecked(t *testing.T) {
	for _, tc := range []struct{ drops, factor, want string }{
		{"30,10", "0.5", `profiles.csv: column "loss_drops", row 2 (line 3): "30,10": want increasing positive epochs, comma-separated`},
		{"10,x", "0.5", `profiles.csv: column "loss_drops", row 2 (line 3): "10,x"`},
		{"10", "1.5", `profiles.csv: column "loss_drop_factor", row 2 (line 3): 1.5: a drop leaves less than all of the loss, so below 1`},
	} {
		dir := export(t)
		spoil(t, filepath.Join(dir, "profiles.csv"), 2, "loss_drops", tc.drops)
		spoil(t, filepath.Join(dir, "profiles.csv"), 2, "loss_drop_factor", tc.factor)
		code, _, stderr := optimus.Run(t, nil, append([]string{"simulate", "-q"}, inputs(dir)...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("loss_drops %q, factor %s: exit %d, stderr %q, want %q", tc.drops, tc.factor, code, stderr, tc.want)
		}
	}
}

// A horizon shorter than the default restart costs is a run in which
// nothing trains, not a usage error; the summary counts the jobs that
// never started.
func TestHorizonShorterThanTheCosts(t *testing.T) {
	code, out, stderr := optimus.Run(t, nil, "simulate", "--horizon", "1", "--policies", "optimus", "--format", "csv", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%q: %v", out, err)
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	if row["jobs"] != "9" || row["never_started"] != "9" || row["makespan_s"] != "1.0" {
		t.Errorf("jobs %s, never started %s, makespan %s s; want 9, 9, 1.0", row["jobs"], row["never_started"], row["makespan_s"])
	}
}
