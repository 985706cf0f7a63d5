package placecmd_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/placecmd"
)

// The seam: with a runF, place and place ps-blocks parse their flags into
// the options and do not run (the files named do not exist).
func TestCommandLineReachesRunF(t *testing.T) {
	o := clitest.MustParse(t, placecmd.NewCmd, "--cluster", "no-cluster.parquet", "-i", "no-allocation.parquet", "--current", "no-plan.parquet", "-o", "plan.parquet")
	if o.Cluster != "no-cluster.parquet" || o.Input != "no-allocation.parquet" || o.Current != "no-plan.parquet" || o.Output.Path != "plan.parquet" {
		t.Errorf("place: %+v", *o)
	}
	b := clitest.MustParse(t, placecmd.NewCmdBlocks, "-i", "no-blocks.csv", "--ps", "4")
	if b.Input != "no-blocks.csv" || b.Servers != 4 {
		t.Errorf("place ps-blocks: %+v", *b)
	}
	clitest.MustRefuse(t, placecmd.NewCmdBlocks, `invalid argument "four" for "--ps"`, "--ps", "four")
}
