package simulatecmd_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/simulatecmd"
)

// The switches of the paper's testbed setup reach simulate.Config, and a
// malformed request is refused before anything runs.
func TestPaperSwitchesReachTheConfig(t *testing.T) {
	o := clitest.MustParse(t, simulatecmd.NewCmd, "--baseline-request", "1:2", "--restart-every-round", "--arrive-at-once")
	if o.Sim.BaselineRequest != [2]int{1, 2} || !o.Sim.RestartEveryRound || !o.Sim.ArriveAtOnce {
		t.Errorf("simulate: %+v", o.Sim)
	}
	if o := clitest.MustParse(t, simulatecmd.NewCmd); o.Sim.BaselineRequest != [2]int{} || o.Sim.RestartEveryRound || o.Sim.ArriveAtOnce {
		t.Errorf("defaults: %+v", o.Sim)
	}
	for _, bad := range []string{"2", "1:0", "a:b", "-1:2", "1:99999"} {
		clitest.MustRefuse(t, simulatecmd.NewCmd, "want PS:WORKERS", "--baseline-request", bad)
	}
}
