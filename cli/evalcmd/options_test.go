package evalcmd

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/eval"
	"github.com/optimus-sched/optimus/fit"
)

// The flags of eval speed and eval convergence have their documented
// defaults, and the convergence rule's flags change the rule.
func TestCommandLines(t *testing.T) {
	sp := clitest.MustParse(t, NewCmdSpeed, "-i", "speed.parquet")
	if sp.Input != "speed.parquet" || sp.Samples != 10 || sp.Sampling != eval.SampleSuggest || sp.Trials != 20 || sp.Key != "" {
		t.Errorf("eval speed: %+v", *sp)
	}
	sp = clitest.MustParse(t, NewCmdSpeed, "--key", "model", "--sampling", "random", "--trials", "5", "--samples", "6", "--seed", "9")
	if sp.Key != "model" || sp.Sampling != "random" || sp.Trials != 5 || sp.Samples != 6 || sp.Seed != 9 {
		t.Errorf("eval speed --key model --sampling random --trials 5 --samples 6 --seed 9: %+v", *sp)
	}
	cv := clitest.MustParse(t, NewCmdConvergence, "-i", "loss.parquet", "--jobs", "jobs.parquet")
	if cv.Input != "loss.parquet" || cv.Jobs != "jobs.parquet" || cv.Fractions != "0.25,0.5" || !cv.Prior || cv.OtherFamilies || !cv.Schedules || cv.Budgets || cv.Rule != fit.DefaultRule {
		t.Errorf("eval convergence: %+v", *cv)
	}
	cv = clitest.MustParse(t, NewCmdConvergence, "--epoch-steps", "100", "--prior=false", "--leave-family-out", "--schedules=false", "--budgets", "--threshold", "0.01", "--window", "3", "--cap", "50")
	if want := (fit.Rule{Threshold: 0.01, Window: 3, Cap: 50}); cv.EpochSteps != 100 || cv.Prior || !cv.OtherFamilies || cv.Schedules || !cv.Budgets || cv.Rule != want {
		t.Errorf("eval convergence with every flag: %+v, want rule %+v", *cv, want)
	}
	clitest.MustRefuse(t, NewCmdConvergence, `invalid argument "x" for "--window"`, "--window", "x")
}
