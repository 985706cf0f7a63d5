package simulatecmd_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/simulatecmd"
)

// The seam: with a runF, simulate parses its flags into the options and
// does not run (the files named do not exist).
func TestCommandLineReachesRunF(t *testing.T) {
	o := clitest.MustParse(t, simulatecmd.NewCmd, "--cluster", "no-cluster.csv", "--workload", "no-workload.csv", "--profiles", "no-profiles.csv", "--dir", "out")
	if o.Cluster != "no-cluster.csv" || o.Workload != "no-workload.csv" || o.Profiles != "no-profiles.csv" || o.Dir != "out" {
		t.Errorf("simulate: %+v", *o)
	}
	clitest.MustRefuse(t, simulatecmd.NewCmd, `invalid argument "many" for "--philly-jobs"`, "--philly-jobs", "many")
}
