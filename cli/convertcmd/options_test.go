package convertcmd_test

import (
	"reflect"
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/convertcmd"
)

// --as names the table kind, -c/--columns takes a comma-separated list.
func TestCommandLines(t *testing.T) {
	o := clitest.MustParse(t, convertcmd.NewCmd, "-i", "plan.parquet", "--as", "plan", "-c", "job,node", "--columns", "role", "-o", "plan.csv")
	if o.Input != "plan.parquet" || o.As != "plan" || !reflect.DeepEqual(o.Columns, []string{"job", "node", "role"}) || o.Output.Path != "plan.csv" {
		t.Errorf("convert: %+v", *o)
	}
	clitest.MustRefuse(t, convertcmd.NewCmd, "unknown command", "plan.parquet")
}
