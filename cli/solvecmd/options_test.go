package solvecmd_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/solvecmd"
)

// The seam: with a runF, the command parses its flags into the options
// and does not run (the files named do not exist).
func TestCommandLineReachesRunF(t *testing.T) {
	o := clitest.MustParse(t, solvecmd.NewCmd, "--cluster", "no-cluster.parquet", "-i", "no-predictions.parquet", "-o", "a.parquet")
	if o.Cluster != "no-cluster.parquet" || o.Input != "no-predictions.parquet" || o.Output.Path != "a.parquet" {
		t.Errorf("solve: %+v", *o)
	}
	clitest.MustRefuse(t, solvecmd.NewCmd, `unknown command "x.parquet"`, "x.parquet")
}
