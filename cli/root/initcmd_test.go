// Tests of cli/initcmd, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/initcmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// optimusInit runs "optimus init" alone: the arguments below start after
// "init".
var optimusInit = clitest.Command(func(ios *iostreams.IOStreams) *cobra.Command { return initcmd.NewCmd(ios, nil) })

// init writes a plan table without a task, in the format the name says,
// and refuses to replace a state or to guess a name.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"state.parquet", "state.csv", "state.arrow"} {
		path := filepath.Join(dir, name)
		optimusInit.MustRun(t, nil, path)
		st, err := table.ReadFile(path, schema.Plan)
		if err != nil || st.NumRows() != 0 {
			t.Errorf("%s: %v, %d rows; want an empty plan table", name, err, st.NumRows())
		}
	}
	existing := filepath.Join(dir, "state.parquet")
	before, _ := os.ReadFile(existing)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{existing}, existing + " exists already: it records what runs"},
		{[]string{filepath.Join(dir, "state.txt")}, `unknown table format ".txt"`},
		{[]string{filepath.Join(dir, "nodir", "state.csv")}, "init " + filepath.Join(dir, "nodir", "state.csv") + ": there is no directory " + filepath.Join(dir, "nodir")},
		{[]string{dir}, "init " + dir + " is a directory: name a file in it"},
		{[]string{}, "init takes one argument, the state file to write"},
		{[]string{"a.parquet", "b.parquet"}, "init takes one argument"},
	} {
		code, _, stderr := optimusInit.Run(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if after, _ := os.ReadFile(existing); string(after) != string(before) {
		t.Error("init over an existing state changed it")
	}
	if _, err := os.Stat(filepath.Join(dir, "state.txt")); err == nil {
		t.Error("init wrote state.txt")
	}
}
