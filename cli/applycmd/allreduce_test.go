package applycmd_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// An all-reduce plan through `optimus apply --executor print`: 8 jobs of
// Pollux's workload-1, 24 worker starts, no PS; --manifests writes 24
// pods and 8 Services, TF_CONFIG naming workers only. Applied again as
// the plan that runs, nothing changes.
func TestPrintAllReducePlan(t *testing.T) {
	dir := "../../apply/testdata/allreduce"
	out := filepath.Join(t.TempDir(), "actions.parquet")
	_, stderr := optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.csv", "--jobs", dir+"/jobs.csv", "--cluster", dir+"/cluster.csv",
		"--executor", "print", "-o", out, "-v")
	got := actions(t, out)
	if len(got) != 24 || count(got, " start [worker ", "planned: start on ") != 24 {
		t.Errorf("%d rows, %d planned worker starts; want 24 of 24:\n%s", len(got), count(got, " start [worker ", "planned: start on "), strings.Join(got, "\n"))
	}
	if !strings.Contains(stderr, "8 jobs: 8 start, 0 stop, 0 resize, 0 move, 0 unchanged") {
		t.Errorf("summary: %s", stderr)
	}
	yaml, _ := optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.csv", "--jobs", dir+"/jobs.csv", "--executor", "print", "--manifests", "-q")
	y := string(yaml)
	if n, s := strings.Count(y, "kind: Pod"), strings.Count(y, "kind: Service"); n != 24 || s != 8 || strings.Contains(y, `"ps"`) || strings.Contains(y, "-ps-") {
		t.Errorf("manifests: %d pods, %d Services, ps named: %v", n, s, strings.Contains(y, `"ps"`) || strings.Contains(y, "-ps-"))
	}
	again := filepath.Join(t.TempDir(), "again.parquet")
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.csv", "--jobs", dir+"/jobs.csv", "--current", dir+"/plan.csv", "--executor", "print", "-o", again, "-q")
	if rows := actions(t, again); count(rows, "skipped") != len(rows) {
		t.Errorf("the plan that runs, again:\n%s", strings.Join(rows, "\n"))
	}
}
