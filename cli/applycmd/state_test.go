package applycmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// With --state the exec executor's state stays true across rounds: the
// first apply starts every job but one whose launch fails, and records the
// eight that run; the next round calls the program for the failed job
// only, and once that succeeds a third round calls nothing.
func TestExecStateRecordsWhatRuns(t *testing.T) {
	dir := testbedPlan(t)
	record := t.TempDir()
	prog := launcher(t, record)
	state := filepath.Join(t.TempDir(), "state.parquet")
	out := filepath.Join(t.TempDir(), "actions.parquet")
	apply := []string{"apply", "-i", dir + "/plan.parquet", "--jobs", dir + "/testbed/jobs.parquet", "--executor", "exec", "--program", prog, "--state", state, "-o", out}

	// No state yet: a usage error that says how to make the first one.
	code, _, stderr := optimus.Run(t, nil, apply...)
	if code != 2 || !strings.Contains(stderr, "--state "+state+" does not exist: `optimus init "+state+"` writes the first state") {
		t.Fatalf("apply without a state: exit %d, %s", code, stderr)
	}
	optimus.MustRun(t, nil, "init", state)
	if code, _, stderr := optimus.Run(t, nil, "init", state); code != 2 || !strings.Contains(stderr, "exists already") {
		t.Errorf("init over a state: exit %d, %s", code, stderr)
	}

	t.Setenv("FAIL_JOB", "resnet50-b")
	code, _, stderr = optimus.Run(t, nil, apply...)
	if code != 1 {
		t.Fatalf("round 1: exit %d, want 1 (one launch fails): %s", code, stderr)
	}
	// The testbed's jobs table says five jobs run; the state says none do.
	if want := "jobs.parquet: the ps/workers of 5 jobs (resnet50-a (table 2+2, running 0+0); "; !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, "disagree with what runs now (--state "+state+"); apply goes by what runs now") {
		t.Errorf("round 1 does not warn that the jobs table disagrees with the state:\n%s", stderr)
	}
	if calls, _ := os.ReadDir(record); len(calls) != 18 {
		t.Errorf("round 1: %d files recorded, want 2 per job (9 jobs)", len(calls))
	}
	running := planJobs(t, state)
	if len(running) != 8 || running["resnet50-b"] != "" || running["dssm-a"] != "1 ps 3 workers" {
		t.Errorf("round 1's state: %v; want the 8 jobs started, without resnet50-b", running)
	}

	// Round 2: only the failed job is asked for again.
	os.RemoveAll(record)
	os.Mkdir(record, 0o755)
	t.Setenv("FAIL_JOB", "")
	optimus.MustRun(t, nil, apply...)
	calls, _ := os.ReadDir(record)
	if len(calls) != 2 || calls[0].Name() != "resnet50-b.args" {
		t.Errorf("round 2 called the program for %v, want resnet50-b only", calls)
	}
	if got := actions(t, out); count(got, "skipped") != 8 || count(got, "resnet50-b start [-] done") != 1 {
		t.Errorf("round 2 actions:\n%s", strings.Join(got, "\n"))
	}
	if running := planJobs(t, state); len(running) != 9 {
		t.Errorf("round 2's state: %v, want all 9 jobs", running)
	}

	// Round 3: nothing to do, nothing called, the state unchanged.
	before, _ := os.ReadFile(state)
	os.RemoveAll(record)
	os.Mkdir(record, 0o755)
	optimus.MustRun(t, nil, apply...)
	if calls, _ := os.ReadDir(record); len(calls) != 0 {
		t.Errorf("round 3 called the program %d times", len(calls)/2)
	}
	if after, _ := os.ReadFile(state); string(after) != string(before) {
		t.Errorf("round 3 rewrote the state although nothing was done")
	}

	// The state is a plan: print previews against it and leaves it alone.
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print", "--state", state, "-o", out)
	if got := actions(t, out); count(got, "skipped") != 9 {
		t.Errorf("print against the state:\n%s", strings.Join(got, "\n"))
	}
	if code, _, stderr := optimus.Run(t, nil, append(apply, "--current", state)...); code != 2 || !strings.Contains(stderr, "--current and --state both say what runs now") {
		t.Errorf("--current with --state: exit %d, %s", code, stderr)
	}
}

// planJobs reads a plan (or state) file as "P ps W workers" per job.
func planJobs(t *testing.T, path string) map[string]string {
	t.Helper()
	p, err := table.ReadFile(path, schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string][2]int{}
	for i, j := range p.Strings("job") {
		c := n[j]
		if p.Strings("role")[i] == "ps" {
			c[0]++
		} else {
			c[1]++
		}
		n[j] = c
	}
	out := map[string]string{}
	for j, c := range n {
		out[j] = fmt.Sprintf("%d ps %d workers", c[0], c[1])
	}
	return out
}

// snapshot state reads the state back as the tables a round starts from;
// bad input exits 2 naming the file, and writes nothing.
func TestSnapshotState(t *testing.T) {
	dir := testbedPlan(t)
	tmp := t.TempDir()
	state := filepath.Join(tmp, "state.parquet")
	snap := filepath.Join(tmp, "snap")
	read := []string{"snapshot", "state", "--state", state, "--cluster", dir + "/testbed/cluster.parquet", "--jobs", dir + "/testbed/jobs.parquet", "-o", snap}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no state yet", read, "--state " + state + " does not exist: `optimus init " + state + "` writes the first state"},
		{"no cluster", []string{"snapshot", "state", "--state", dir + "/plan.parquet", "-o", snap}, "--state FILE and --cluster FILE are required"},
		{"state is not a plan", []string{"snapshot", "state", "--state", dir + "/testbed/jobs.parquet", "--cluster", dir + "/testbed/cluster.parquet", "-o", snap},
			dir + "/testbed/jobs.parquet: is a jobs table, but a plan table is expected here"},
	} {
		code, _, stderr := optimus.Run(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %s; want 2 and %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(snap); err == nil {
			t.Errorf("%s: wrote %s", c.name, snap)
		}
	}

	// Fresh: every job's ps and workers are 0, whatever the jobs table said.
	optimus.MustRun(t, nil, "init", state)
	optimus.MustRun(t, nil, read...)
	jobs, err := table.ReadFile(snap+"/jobs.parquet", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs.Strings("job") {
		if jobs.Int64s("ps")[i] != 0 || jobs.Int64s("workers")[i] != 0 {
			t.Errorf("fresh state: %s runs %d ps %d workers, want nothing", j, jobs.Int64s("ps")[i], jobs.Int64s("workers")[i])
		}
	}
	if running := planJobs(t, snap+"/plan.parquet"); len(running) != 0 {
		t.Errorf("fresh state's plan: %v", running)
	}

	// After an apply: the jobs run as planned, and the cluster's nodes are
	// the cluster table's.
	record := t.TempDir()
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "exec", "--program", launcher(t, record), "--state", state)
	optimus.MustRun(t, nil, read...)
	want := planJobs(t, dir+"/plan.parquet")
	if got := planJobs(t, snap+"/plan.parquet"); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot's plan %v, want the applied plan's %v", got, want)
	}
	jobs, _ = table.ReadFile(snap+"/jobs.parquet", schema.Jobs)
	for i, j := range jobs.Strings("job") {
		if got := fmt.Sprintf("%d ps %d workers", jobs.Int64s("ps")[i], jobs.Int64s("workers")[i]); want[j] != "" && got != want[j] {
			t.Errorf("%s: jobs table says %s, the plan %s", j, got, want[j])
		}
	}
	cluster, _ := table.ReadFile(snap+"/cluster.parquet", schema.Cluster)
	orig, _ := table.ReadFile(dir+"/testbed/cluster.parquet", schema.Cluster)
	if !reflect.DeepEqual(cluster.Strings("node"), orig.Strings("node")) || !reflect.DeepEqual(cluster.Float64s("gpu"), orig.Float64s("gpu")) {
		t.Errorf("snapshot's cluster %v %v, want the cluster table's %v %v", cluster.Strings("node"), cluster.Float64s("gpu"), orig.Strings("node"), orig.Float64s("gpu"))
	}
}
