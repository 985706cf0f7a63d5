// Tests of cli/fitcmd, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/fitcmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/root"
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

// The configurations a job's suggestions are chosen from are bounded, by
// the flags and by the job's own max_ps and max_workers (which win over
// them): --max-ps and --samples of 2^63-1 once built a grid without end.
func TestSuggestBounds(t *testing.T) {
	dir := t.TempDir()
	jobs := dir + "/jobs.csv"
	allreduce := dir + "/allreduce.csv"
	if err := os.WriteFile(jobs, []byte("job,model,mode,global_batch,epoch_steps,max_ps,max_workers\na,m,sync,64,100,100000,100000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(allreduce, []byte("job,model,mode,global_batch,epoch_steps,max_workers\nb,m,allreduce,64,100,200000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--samples", "1001"}, "--samples 1001: give a number from 1 to 1000"},
		{[]string{"--samples", "0"}, "--samples 0: give a number from 1 to 1000"},
		{[]string{"--max-ps", "9223372036854775807", "--samples", "9223372036854775807"}, "--samples 9223372036854775807: give a number from 1 to 1000"},
		{[]string{"--max-workers", "65537"}, "--max-workers 65537: give a number from 1 to 65536"},
		{[]string{"--workers-per-node", "1025"}, "--workers-per-node 1025: give a number from 1 to 1024"},
		{[]string{"--jobs", allreduce, "--max-nodes", "100000"}, `job "b": suggesting from up to 200000 workers: at most 32768 (lower --max-workers or the job's max_workers)`},
		{[]string{"--jobs", jobs}, `job "a": suggesting from 100000 PS x 100000 workers: at most 65536 configurations (lower --max-ps, --max-workers or the job's max_ps, max_workers)`},
	} {
		code, _, stderr := root.Run(nil, append([]string{"fit", "suggest", "--format", "csv"}, tc.args...)...)
		if code != 2 || stderr != "optimus: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
