// Package adapttest reads the tables tests share through the adapter layer:
// apply's testdata, the testbed pipeline's plan and jobs (apply's
// diff_test.go says how they were made).
package adapttest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Testbed is apply/testdata's plan and jobs, read with the schemas and
// adapters the commands use.
func Testbed(t testing.TB) (apply.Plan, map[string]executor.Job) {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("adapttest: no caller information to find apply/testdata")
	}
	dir := filepath.Join(filepath.Dir(self), "..", "..", "..", "apply", "testdata")
	pt, err := table.ReadFile(filepath.Join(dir, "plan.csv"), schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := adapt.ReadPlan(pt)
	if err != nil {
		t.Fatal(err)
	}
	jt, err := table.ReadFile(filepath.Join(dir, "jobs.csv"), schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	return plan, adapt.ReadJobs(jt)
}
