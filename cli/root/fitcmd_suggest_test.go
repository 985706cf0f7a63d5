// Tests of cli/fitcmd, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"bytes"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/fitcmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// An allreduce job is suggested (workers, nodes) with ps 0, within
// --max-nodes, and the suggestions identify its model.
func TestSuggestAllReduce(t *testing.T) {
	stdin := []byte("job,ps,workers,speed,mode,global_batch\nr,0,1,2.5,allreduce,512\n")
	out, _ := clitest.Command(func(ios *iostreams.IOStreams) *cobra.Command { return fitcmd.NewCmd(ios, nil) }).MustRun(t, stdin, "suggest", "--samples", "7", "--max-workers", "16", "--max-nodes", "4", "--format", "csv")
	s, err := table.Read(bytes.NewReader(out), "stdout", schema.Suggestions)
	if err != nil {
		t.Fatal(err)
	}
	ps, ws, nodes, ok, ident := s.Int64s("ps"), s.Int64s("workers"), s.Int64s("nodes"), s.Valid("nodes"), s.Bools("identifiable")
	if len(ps) != 6 {
		t.Fatalf("%d suggestions, want 6 (7 less the one measured)", len(ps))
	}
	for i := range ps {
		if ps[i] != 0 || !ok[i] || nodes[i] < 1 || nodes[i] > 4 || nodes[i] > ws[i] || ws[i] > 16 {
			t.Errorf("suggestion %d: %d PS, %d workers on %d nodes", i+1, ps[i], ws[i], nodes[i])
		}
	}
	if !ident[len(ident)-1] {
		t.Errorf("the suggestions do not identify the model: %v", ident)
	}
}
