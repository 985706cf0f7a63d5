package solvecmd_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// optimus runs "optimus solve" alone, in-process: the arguments start after
// "solve". verbose runs it as "optimus -v solve" does.
var (
	optimus = clitest.Command(func(ios *iostreams.IOStreams) *cobra.Command { return solvecmd.NewCmd(ios, nil) })
	verbose = clitest.Command(func(ios *iostreams.IOStreams) *cobra.Command {
		ios.SetVerbosity(iostreams.Verbose)
		return solvecmd.NewCmd(ios, nil)
	})
)

func write(t *testing.T, dir, name string, tbl *table.Table) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := table.WriteFile(path, tbl); err != nil {
		t.Fatal(err)
	}
	return path
}

func rows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// testbedPredictions turns the embedded testbed into a predictions table
// with the true remaining steps (total_steps - progress_steps) and speed
// models, as an oracle predict would.
func testbedPredictions(t *testing.T) (cluster, pred *table.Table) {
	t.Helper()
	tables, err := datatables.Testbed(datatables.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*table.Table{}
	for _, nt := range tables {
		byName[nt.Name] = nt.Table
	}
	jobs, truth := byName["jobs"], byName["truth"]
	pred = jobs.Take(rows(jobs.NumRows()))
	pred.Name, pred.Version = schema.Predictions.Name, schema.Predictions.Version
	truthRow := map[string]int{}
	for i, name := range truth.Strings("job") {
		truthRow[name] = i
	}
	n := jobs.NumRows()
	total, progress := truth.Float64s("total_steps"), jobs.Int64s("progress_steps")
	rem, p10, p90 := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, name := range jobs.Strings("job") {
		rem[i] = math.Max(0, total[truthRow[name]]-float64(progress[i]))
		p10[i], p90[i] = 0.9*rem[i], 1.1*rem[i]
	}
	pred.SetFloat64s("remaining_steps_p10", p10, nil)
	pred.SetFloat64s("remaining_steps_p50", rem, nil)
	pred.SetFloat64s("remaining_steps_p90", p90, nil)
	for k := range 5 {
		col := fmt.Sprintf("speed_theta%d", k)
		th := truth.Float64s(col)
		v := make([]float64, n)
		for i, name := range jobs.Strings("job") {
			v[i] = th[truthRow[name]]
		}
		pred.SetFloat64s(col, v, nil)
	}
	if pred, err = table.Conform(pred); err != nil {
		t.Fatal(err)
	}
	return byName["cluster"], pred
}

// On the paper's testbed every job runs, within its limits and the cluster's
// capacity, and the optimus policy's objective (sum of predicted remaining
// times) is the lowest of the four policies.
func TestTestbedEveryPolicy(t *testing.T) {
	dir := t.TempDir()
	cluster, pred := testbedPredictions(t)
	cpath, ppath := write(t, dir, "cluster.parquet", cluster), write(t, dir, "predictions.parquet", pred)
	objective, running := map[string]float64{}, map[string]int{}
	for _, policy := range []string{"optimus", "drf", "tetris", "fifo"} {
		out := filepath.Join(dir, policy+".parquet")
		code, _, stderr := verbose.Run(t, nil, "--cluster", cpath, "-i", ppath, "--policy", policy, "--restart-cost", "0", "-o", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", policy, code, stderr)
		}
		t.Log(strings.TrimSpace(stderr))
		alloc, err := table.ReadFile(out, schema.Allocation)
		if err != nil {
			t.Fatal(err)
		}
		checkAllocation(t, alloc, cluster)
		names, status, completion := alloc.Strings("job"), alloc.Strings("status"), alloc.Float64s("alloc_completion_s")
		w, maxW, maxOK := alloc.Int64s("alloc_workers"), alloc.Int64s("max_workers"), alloc.Valid("max_workers")
		for i := range names {
			if status[i] == "running" {
				running[policy]++
				objective[policy] += completion[i]
			} else if policy == "optimus" {
				t.Errorf("optimus: %s is %s", names[i], status[i])
			}
			if maxOK[i] && w[i] > maxW[i] {
				t.Errorf("%s: %s has %d workers, max %d", policy, names[i], w[i], maxW[i])
			}
		}
	}
	t.Logf("jobs running: %v; sum of their predicted remaining times (s): %v", running, objective)
	for _, policy := range []string{"drf", "tetris", "fifo"} {
		if running[policy] > running["optimus"] || running[policy] == running["optimus"] && objective["optimus"] > objective[policy] {
			t.Errorf("optimus runs %d jobs in %.0f s, %s %d in %.0f s", running["optimus"], objective["optimus"], policy, running[policy], objective[policy])
		}
	}
}

// checkAllocation checks the allocation against the cluster's total
// capacity on every resource.
func checkAllocation(t *testing.T, alloc, cluster *table.Table) {
	t.Helper()
	ps, w := alloc.Int64s("alloc_ps"), alloc.Int64s("alloc_workers")
	for _, col := range cluster.ColumnNames() {
		if col == "node" {
			continue
		}
		capacity := 0.0
		for _, c := range cluster.Float64s(col) {
			capacity += c
		}
		used := 0.0
		wd, pd := alloc.Float64s("worker_"+col), alloc.Float64s("ps_"+col)
		for i := range ps {
			used += float64(w[i])*wd[i] + float64(ps[i])*pd[i]
		}
		if used > capacity*(1+1e-9) {
			t.Errorf("%s: %v used of %v", col, used, capacity)
		}
	}
}

func TestIdenticalInputGivesByteIdenticalOutput(t *testing.T) {
	dir := t.TempDir()
	cluster, pred := testbedPredictions(t)
	cpath, ppath := write(t, dir, "cluster.parquet", cluster), write(t, dir, "predictions.parquet", pred)
	for _, policy := range []string{"optimus", "drf", "tetris", "fifo"} {
		var outs [2][]byte
		var files [2][]byte
		for k := range 2 {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d.parquet", policy, k))
			code, out, stderr := optimus.Run(t, nil, "--cluster", cpath, "-i", ppath, "--policy", policy)
			if code != 0 {
				t.Fatal(stderr)
			}
			outs[k] = out
			if code, _, stderr := optimus.Run(t, nil, "--cluster", cpath, "-i", ppath, "--policy", policy, "-o", f); code != 0 {
				t.Fatal(stderr)
			}
			var err error
			if files[k], err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(outs[0], outs[1]) || !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: two runs on the same input differ", policy)
		}
	}
}

// Bad input: whole-table problems are one-line errors naming the file and
// column (exit 2); one job's problem makes that job wait with a reason
// naming its row, and the others are planned.
func TestBadInput(t *testing.T) {
	cluster, pred := testbedPredictions(t)
	type edit func(t *testing.T, cluster, pred *table.Table) (*table.Table, *table.Table)
	cases := []struct {
		name     string
		edit     edit
		args     []string
		code     int
		message  string // in stderr (exit 2) or in the bad job's reason (exit 0); * stands for a temporary directory
		waitsJob string
	}{
		{"cluster without nodes", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			return c.Take(nil), p
		}, nil, 2, "cluster.parquet: no nodes: the cluster table is empty", ""},
		{"cluster of zero capacity", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			c = c.Take(rows(c.NumRows()))
			for _, col := range []string{"gpu", "cpu", "memory_gb", "net_gbps"} {
				c.SetFloat64s(col, make([]float64, c.NumRows()), nil)
			}
			return c, p
		}, nil, 2, "cluster.parquet: every node has zero capacity of every resource (gpu, cpu, memory_gb, net_gbps)", ""},
		{"negative capacity", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			c = c.Take(rows(c.NumRows()))
			v := c.Float64s("cpu")
			v[2] = -1
			c.SetFloat64s("cpu", v, nil)
			return c, p
		}, nil, 2, `cluster.parquet: column "cpu", row 3: -1 is negative`, ""},
		{"demand missing for a cluster resource", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			p = p.Take(rows(p.NumRows()))
			p.Drop("worker_net_gbps")
			return c, p
		}, nil, 2, `predictions.parquet: column "worker_net_gbps": missing: the cluster`, ""},
		{"no predictions at all", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			p = p.Take(rows(p.NumRows()))
			p.SetFloat64s("remaining_steps_p50", make([]float64, p.NumRows()), make([]bool, p.NumRows()))
			return c, p
		}, nil, 2, `predictions.parquet: column "remaining_steps_p50": no job has a value`, ""},
		{"unknown policy", nil, []string{"--policy", "sjf"}, 2, `--policy: no policy "sjf"`, ""},
		{"negative restart cost", nil, []string{"--restart-cost", "-5"}, 2, "--restart-cost -5", ""},
		{"restart cost NaN", nil, []string{"--restart-cost", "NaN"}, 2, "--restart-cost NaN: give a number of seconds >= 0", ""},
		{"tetris weight out of range", nil, []string{"--tetris-srtf", "2"}, 2, "--tetris-srtf 2: give a weight in [0, 1]", ""},
		{"baseline cap 0", nil, []string{"--baseline-cap", "0"}, 2, "--baseline-cap 0: give at least 1", ""},
		{"descending tiresias thresholds", nil, []string{"--tiresias-thresholds", "2,1"}, 2, "--tiresias-thresholds [2,1]: give ascending numbers of GPU-hours > 0", ""},
		{"tiresias starvation factor Inf", nil, []string{"--tiresias-starve", "Inf"}, 2, "--tiresias-starve +Inf", ""},
		{"unknown capacity check", nil, []string{"--capacity", "racks"}, 2, `--capacity: no capacity check "racks" (there are: nodes, aggregate)`, ""},
		{"one job without prediction", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			p = p.Take(rows(p.NumRows()))
			v, ok := p.Float64s("remaining_steps_p50"), p.Valid("remaining_steps_p50")
			ok[6] = false
			p.SetFloat64s("remaining_steps_p50", v, ok)
			return c, p
		}, nil, 0, "no prediction: remaining_steps_p50 is null (*/predictions.parquet row 7)", "vgg16-b"},
		{"one job without speed model", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			p = p.Take(rows(p.NumRows()))
			v, ok := p.Float64s("speed_theta2"), p.Valid("speed_theta2")
			ok[0] = false
			p.SetFloat64s("speed_theta2", v, ok)
			return c, p
		}, nil, 0, "no speed model: speed_theta2 is null (*/predictions.parquet row 1)", "resnet50-a"},
		{"one job whose worker fits on no node", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			p = p.Take(rows(p.NumRows()))
			v := p.Float64s("worker_gpu")
			v[3] = 5
			p.SetFloat64s("worker_gpu", v, nil)
			return c, p
		}, nil, 0, "one worker (gpu 5, cpu 2, memory_gb 10, net_gbps 1) fits on no node: the largest gpu of a node is 4", "seq2seq-a"},
		{"one job needing a resource the cluster lacks", func(t *testing.T, c, p *table.Table) (*table.Table, *table.Table) {
			p = p.Take(rows(p.NumRows()))
			v := make([]float64, p.NumRows())
			v[4] = 1
			p.SetFloat64s("worker_fpga", v, nil)
			p.SetFloat64s("ps_fpga", make([]float64, p.NumRows()), nil)
			return c, p
		}, nil, 0, "its tasks need fpga (worker_fpga 1), which no node of the cluster has", "dssm-a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c, p := cluster, pred
			if tc.edit != nil {
				c, p = tc.edit(t, c, p)
			}
			cpath, ppath := write(t, dir, "cluster.parquet", c), write(t, dir, "predictions.parquet", p)
			out := filepath.Join(dir, "allocation.parquet")
			args := append([]string{"--cluster", cpath, "-i", ppath, "-o", out}, tc.args...)
			code, _, stderr := optimus.Run(t, nil, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			if tc.code != 0 {
				if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.message) {
					t.Errorf("stderr %q, want one line containing %q", stderr, tc.message)
				}
				if _, err := os.Stat(out); err == nil {
					t.Error("an output file was written")
				}
				return
			}
			alloc, err := table.ReadFile(out, schema.Allocation)
			if err != nil {
				t.Fatal(err)
			}
			names, status, reason := alloc.Strings("job"), alloc.Strings("status"), alloc.Strings("reason")
			for i, name := range names {
				switch {
				case name == tc.waitsJob && (status[i] != "waiting" || !containsParts(reason[i], tc.message)):
					t.Errorf("%s: %s %q, want waiting with %q", name, status[i], reason[i], tc.message)
				case name != tc.waitsJob && status[i] != "running":
					t.Errorf("%s: %s (%s): the other jobs must be planned", name, status[i], reason[i])
				}
			}
		})
	}
}

// A jobs table is not a predictions table: solve says so.
func TestJobsTableIsRefused(t *testing.T) {
	dir := t.TempDir()
	tables, err := datatables.Testbed(datatables.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, nt := range tables {
		write(t, dir, nt.Name+".parquet", nt.Table)
	}
	code, _, stderr := optimus.Run(t, nil, "--cluster", filepath.Join(dir, "cluster.parquet"), "-i", filepath.Join(dir, "jobs.parquet"))
	if code != 2 || !strings.Contains(stderr, "is a jobs table, but a predictions table is expected here") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, _, stderr = optimus.Run(t, nil, "-i", filepath.Join(dir, "jobs.parquet"))
	if code != 2 || !strings.Contains(stderr, "--cluster FILE is required") {
		t.Errorf("without --cluster: exit %d: %s", code, stderr)
	}
}

// The restart cost keeps running jobs where a change would not pay: with
// the testbed's five running jobs, an enormous cost keeps them all, no cost
// re-solves from scratch.
func TestRestartCostFlag(t *testing.T) {
	dir := t.TempDir()
	cluster, pred := testbedPredictions(t)
	cpath, ppath := write(t, dir, "cluster.parquet", cluster), write(t, dir, "predictions.parquet", pred)
	changed := map[string]int{}
	for _, cost := range []string{"0", "300", "1e9"} {
		out := filepath.Join(dir, "a"+cost+".parquet")
		if code, _, stderr := optimus.Run(t, nil, "--cluster", cpath, "-i", ppath, "--restart-cost", cost, "-o", out); code != 0 {
			t.Fatal(stderr)
		}
		alloc, err := table.ReadFile(out, schema.Allocation)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range alloc.Bools("alloc_changed") {
			if c {
				changed[cost]++
			}
			if cost == "1e9" && alloc.Int64s("ps")[i] > 0 && !c && !strings.HasPrefix(alloc.Strings("reason")[i], "kept") &&
				alloc.Int64s("ps")[i] != alloc.Int64s("alloc_ps")[i] {
				t.Errorf("row %d: kept without saying so", i+1)
			}
		}
	}
	t.Logf("running jobs restarted, by restart cost: %v", changed)
	if changed["1e9"] != 0 || changed["0"] == 0 || changed["300"] > changed["0"] {
		t.Errorf("restarts by cost: %v; want some at 0, none at 1e9, no more at 300 than at 0", changed)
	}
}

// containsParts reports whether s contains the parts of pattern split at
// "*", in order.
func containsParts(s, pattern string) bool {
	for _, part := range strings.Split(pattern, "*") {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return true
}

// --remaining chooses the quantile of the predicted remaining steps planned
// with: planning for the 90th percentile predicts longer completions.
func TestRemainingQuantile(t *testing.T) {
	dir := t.TempDir()
	cluster, pred := testbedPredictions(t)
	cpath, ppath := write(t, dir, "cluster.parquet", cluster), write(t, dir, "predictions.parquet", pred)
	total := map[string]float64{}
	for _, q := range []string{"p10", "p50", "p90"} {
		out := filepath.Join(dir, q+".parquet")
		if code, _, stderr := optimus.Run(t, nil, "--cluster", cpath, "-i", ppath, "--remaining", q, "-o", out); code != 0 {
			t.Fatal(stderr)
		}
		alloc, err := table.ReadFile(out, schema.Allocation)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range alloc.Float64s("alloc_completion_s") {
			total[q] += c
		}
	}
	if !(total["p10"] < total["p50"] && total["p50"] < total["p90"]) {
		t.Errorf("completion sums by quantile: %v", total)
	}
	if code, _, stderr := optimus.Run(t, nil, "--cluster", cpath, "-i", ppath, "--remaining", "p99"); code != 2 || !strings.Contains(stderr, "use p10, p50 or p90") {
		t.Errorf("--remaining p99: exit %d: %s", code, stderr)
	}
}

// --capacity nodes (the default) writes where each running job's tasks fit
// (alloc_nodes, a JSON array within every node's capacity); --capacity
// aggregate checks the totals only, as the paper, and writes none.
func TestCapacityFlag(t *testing.T) {
	dir := t.TempDir()
	cluster, pred := testbedPredictions(t)
	cpath, ppath := write(t, dir, "cluster.parquet", cluster), write(t, dir, "predictions.parquet", pred)
	capacity := map[string][]float64{}
	nodeIndex := map[string]int{}
	for i, n := range cluster.Strings("node") {
		nodeIndex[n] = i
	}
	resources := []string{"gpu", "cpu", "memory_gb", "net_gbps"}
	for _, r := range resources {
		capacity[r] = cluster.Float64s(r)
	}
	for _, check := range []string{"nodes", "aggregate"} {
		out := filepath.Join(dir, check+".parquet")
		code, _, stderr := verbose.Run(t, nil, "--cluster", cpath, "-i", ppath, "--capacity", check, "-o", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", check, code, stderr)
		}
		if !strings.Contains(stderr, "solve (optimus, "+check+" capacity)") {
			t.Errorf("summary %q", stderr)
		}
		alloc, err := table.ReadFile(out, schema.Allocation)
		if err != nil {
			t.Fatal(err)
		}
		layout, ok := alloc.Strings("alloc_nodes"), alloc.Valid("alloc_nodes")
		status := alloc.Strings("status")
		ps, w := alloc.Int64s("alloc_ps"), alloc.Int64s("alloc_workers")
		used := make([][]float64, cluster.NumRows())
		for i := range used {
			used[i] = make([]float64, len(resources))
		}
		for i := range layout {
			if check == "aggregate" || status[i] != "running" {
				if ok[i] {
					t.Errorf("%s: row %d (%s) has alloc_nodes %q", check, i+1, status[i], layout[i])
				}
				continue
			}
			slots, stale, err := adapt.ParsePacking(layout[i], nodeIndex)
			if err != nil || stale {
				t.Fatalf("row %d: %v (stale %v)", i+1, err, stale)
			}
			var sp, sw int64
			for _, s := range slots {
				n := s.Node
				sp, sw = sp+int64(s.PS), sw+int64(s.Workers)
				for r, name := range resources {
					used[n][r] += float64(s.PS)*alloc.Float64s("ps_" + name)[i] + float64(s.Workers)*alloc.Float64s("worker_" + name)[i]
				}
			}
			if sp != ps[i] || sw != w[i] {
				t.Errorf("row %d: alloc_nodes holds %d PS + %d workers, the allocation %d + %d", i+1, sp, sw, ps[i], w[i])
			}
		}
		for n := range used {
			for r, name := range resources {
				if used[n][r] > capacity[name][n]+1e-9 {
					t.Errorf("node %d: %s %v of %v", n, name, used[n][r], capacity[name][n])
				}
			}
		}
	}
}

// TestMain runs the tests under clitest.Main (its collector setting).
func TestMain(m *testing.M) { clitest.Main(m) }
