package predictcmd_test

import (
	"reflect"
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/predictcmd"
	"github.com/optimus-sched/optimus/fit"
)

// --at repeats, the rule's flags default to fit.DefaultRule, -o and
// --format land in the output options.
func TestCommandLines(t *testing.T) {
	o := clitest.MustParse(t, predictcmd.NewCmd, "-i", "jobs.parquet", "--models", "models.parquet", "--at", "1,4", "--at", "2,8", "-o", "p.parquet")
	if o.Input != "jobs.parquet" || o.Models != "models.parquet" || !reflect.DeepEqual(o.At, []string{"1,4", "2,8"}) || o.Rule != fit.DefaultRule || o.Output.Path != "p.parquet" {
		t.Errorf("predict: %+v", *o)
	}
	o = clitest.MustParse(t, predictcmd.NewCmd, "--models", "m.parquet", "--cap", "40", "--format", "csv")
	if o.Rule.Cap != 40 || o.Rule.Window != fit.DefaultRule.Window || o.Output.Format != "csv" || o.At != nil {
		t.Errorf("predict --cap 40 --format csv: %+v", *o)
	}
	clitest.MustRefuse(t, predictcmd.NewCmd, "unknown flag: --model", "--model", "m.parquet")
}
