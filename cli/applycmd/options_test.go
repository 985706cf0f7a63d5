package applycmd_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/applycmd"
	"github.com/optimus-sched/optimus/cli/clitest"
	execexec "github.com/optimus-sched/optimus/executor/exec"
)

// The seam: with a runF, apply parses its flags into the options and
// does not run (the files named do not exist, and nothing is executed).
func TestCommandLineReachesRunF(t *testing.T) {
	o := clitest.MustParse(t, applycmd.NewCmd, "-i", "no-plan.parquet", "--jobs", "no-jobs.parquet", "--executor", "exec", "--program", "./no-launcher", "--current", "no-last.parquet")
	ec, ok := o.Configs["exec"].(*execexec.Config)
	if !ok || o.Input != "no-plan.parquet" || o.Jobs != "no-jobs.parquet" || o.Executor != "exec" || ec.Program != "./no-launcher" || o.Current != "no-last.parquet" {
		t.Errorf("apply: %+v", *o)
	}
	clitest.MustRefuse(t, applycmd.NewCmd, `invalid argument "soon" for "--exec-timeout"`, "--exec-timeout", "soon")
}
