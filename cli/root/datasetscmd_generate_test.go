// Tests of cli/datasetscmd, moved into cli/root's test binary, which links every
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
	"github.com/optimus-sched/optimus/cli/convertcmd"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/placecmd"
	"github.com/optimus-sched/optimus/cli/solvecmd"
)

// optimusDatasets runs, in-process, the commands the tests pipe generated
// workloads through (clitest.Tree: those commands only, as in their own
// test binary, which linked no client-go).
var optimusDatasets = clitest.Tree(datasetscmd.NewCmd,
	func(ios *iostreams.IOStreams) *cobra.Command { return convertcmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return solvecmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return placecmd.NewCmd(ios, nil) })

// TestGeneratedPairsStayTogether: generate's cluster and predictions carry
// one pair id; solve refuses a cluster of one run with the predictions of
// another, and takes matching ones or a cluster without an id.
func TestGeneratedPairsStayTogether(t *testing.T) {
	dir := t.TempDir()
	f := func(name string) string { return filepath.Join(dir, name) }
	for _, seed := range []string{"1", "2"} {
		if code, _, msg := optimusDatasets.Run(t, nil, "datasets", "generate", "--tasks", "40", "--nodes", "8", "--seed", seed,
			"--cluster", f("c"+seed+".parquet"), "-o", f("p"+seed+".parquet")); code != 0 {
			t.Fatalf("generate: %d %s", code, msg)
		}
	}
	if code, _, msg := optimusDatasets.Run(t, nil, "convert", "-i", f("c1.parquet"), "-o", f("c1.csv")); code != 0 {
		t.Fatal(msg)
	}
	cases := []struct {
		pred, cluster string
		code          int
		want          string
	}{
		{"p1.parquet", "c1.parquet", 0, ""},
		{"p1.parquet", "c2.parquet", 2, `was made by "datasets generate --seed 2`},
		{"p1.parquet", "c1.csv", 0, ""}, // CSV carries no metadata: nothing to check
	}
	for _, c := range cases {
		code, _, msg := optimusDatasets.Run(t, nil, "solve", "-i", f(c.pred), "--cluster", f(c.cluster), "-o", f("a.parquet"))
		if code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("solve -i %s --cluster %s: exit %d %q, want %d %q", c.pred, c.cluster, code, msg, c.code, c.want)
		}
	}
}

// TestGenerateWritesBothOrNeither: when the second output cannot be
// written, the first is not renamed into place either.
func TestGenerateWritesBothOrNeither(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "c.parquet")
	code, _, msg := optimusDatasets.Run(t, nil, "datasets", "generate", "--tasks", "40", "--nodes", "8", "--cluster", cluster, "-o", filepath.Join(dir, "nodir", "p.parquet"))
	if code == 0 || !strings.Contains(msg, "nodir/p.parquet") {
		t.Fatalf("exit %d %q", code, msg)
	}
	if _, err := os.Stat(cluster); err == nil {
		t.Errorf("the cluster was written without the predictions")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestGenerateBoundsItsSizes: flags that size the workload are bounded.
func TestGenerateBoundsItsSizes(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--tasks", "1000000000000"}, {"--nodes", "1000000000"}, {"--max-job-workers", "1000000000000"},
	} {
		code, _, msg := optimusDatasets.Run(t, nil, append([]string{"datasets", "generate", "--cluster", filepath.Join(dir, "c.parquet"), "-o", filepath.Join(dir, "p.parquet")}, args...)...)
		if code != 2 || !strings.Contains(msg, "at most") {
			t.Errorf("%v: exit %d %q", args, code, msg)
		}
	}
}

// TestGenerateRefusesOneFileForBoth: --cluster and -o naming one file (by
// path or through a link) is refused before anything is written.
func TestGenerateRefusesOneFileForBoth(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.parquet")
	link := filepath.Join(dir, "link.parquet")
	if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{f, filepath.Join(dir, ".", "x.parquet"), link} {
		code, _, msg := optimusDatasets.Run(t, nil, "datasets", "generate", "--tasks", "40", "--nodes", "8", "--cluster", f, "-o", out)
		if code != 2 || !strings.Contains(msg, "are the same file") {
			t.Errorf("-o %s: exit %d %q", out, code, msg)
		}
		if b, _ := os.ReadFile(f); string(b) != "old" {
			t.Errorf("-o %s: the file was replaced", out)
		}
	}
}
