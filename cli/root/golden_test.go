package root

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/pipeline"
)

// goldenTestbed are the SHA-256 sums of the files the testbed pipeline
// writes, as optimus at 8545a09 wrote them (before the steps' glue moved
// into package pipeline). A change to any output's bytes shows here: if it
// is meant, say why in the commit and update the sum.
var goldenTestbed = map[string]string{
	"models.parquet":       "bdcf45ffc3b13aed10e68e2231eb46268b3a12bdbcf743a7b8a569f2ba21d0e1",
	"predictions.parquet":  "0bfc0632a32fdfc10623dec01273e57382b0a8699078f0e4e5e2ffe8a26fd54d",
	"allocation.parquet":   "b736572ec70e428ca6d9ee778da1e792b0d83c8d2999c5ded83e69b997787b06",
	"alloc-drf.parquet":    "1fa3a07b0ee5d328af1a058a438f7d242e00f658cf023099b615cb656df612cd",
	"alloc-tetris.parquet": "bf15905aa340a908bcd85d08e6b7573caa26c8df0b29443798c492004a99a757",
	"alloc-fifo.parquet":   "58640b323c14f39fe7e73d6729f857780621dcb40ae87845bc4f807eb30e1e36",
	"plan.parquet":         "e67ba4c705234a652daceaedd0dafa48887593e6b334cc1464e8f22369785b0a",
	"plan-current.parquet": "febb35654bd158605bfd78b5c861e55df0e0ddf4a38bfb8a502386a9a08af635",
}

func TestTestbedPipelineOutputsArePinned(t *testing.T) {
	tb := exportTestbed(t)
	out := t.TempDir()
	in := func(name string) string { return filepath.Join(tb, name) }
	o := func(name string) string { return filepath.Join(out, name) }
	steps := [][]string{
		{"fit", "-i", in("loss.parquet"), "--speed", in("speed.parquet"), "--jobs", in("jobs.parquet"), "-o", o("models.parquet")},
		{"predict", "-i", in("jobs.parquet"), "--models", o("models.parquet"), "-o", o("predictions.parquet")},
		{"solve", "--cluster", in("cluster.parquet"), "-i", o("predictions.parquet"), "-o", o("allocation.parquet")},
		{"solve", "--cluster", in("cluster.parquet"), "-i", o("predictions.parquet"), "--policy", "drf", "-o", o("alloc-drf.parquet")},
		{"solve", "--cluster", in("cluster.parquet"), "-i", o("predictions.parquet"), "--policy", "tetris", "-o", o("alloc-tetris.parquet")},
		{"solve", "--cluster", in("cluster.parquet"), "-i", o("predictions.parquet"), "--policy", "fifo", "-o", o("alloc-fifo.parquet")},
		{"place", "--cluster", in("cluster.parquet"), "-i", o("allocation.parquet"), "-o", o("plan.parquet")},
		{"place", "--cluster", in("cluster.parquet"), "-i", o("allocation.parquet"), "--current", o("plan.parquet"), "-o", o("plan-current.parquet")},
	}
	for _, args := range steps {
		if code, _, stderr := run(t, nil, args...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	for name, want := range goldenTestbed {
		data, err := os.ReadFile(o(name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
	}
}

// At a terminal solve and place say what they decided on standard error;
// through a pipe (cron) they stay silent.
func TestSummaryOnlyAtTerminal(t *testing.T) {
	tb := exportTestbed(t)
	pred := filepath.Join(t.TempDir(), "p.parquet")
	if code, _, stderr := run(t, nil, "datasets", "generate", "--tasks", "200", "--nodes", "40", "--cluster", filepath.Join(tb, "gen.parquet"), "-o", pred); code != 0 {
		t.Fatal(stderr)
	}
	for _, tty := range []bool{false, true} {
		ios, _, _, errOut := iostreams.Test()
		ios.SetStderrTTY(tty)
		if code := Main(ios, []string{"solve", "--cluster", filepath.Join(tb, "gen.parquet"), "-i", pred, "-o", filepath.Join(t.TempDir(), "a.parquet")}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		said := errOut.String()
		if tty && said != "optimus: solve (optimus, nodes capacity): 26 jobs: 26 running, 0 waiting, 0 done; 181 tasks; objective 151209 s, 2 restarts (600 s); used gpu 70/280 cpu 573/2720 memory_gb 1542/19840 net_gbps 331/2000\n" {
			t.Errorf("at a terminal: %q, want the plan's summary", said)
		}
		if !tty && said != "" {
			t.Errorf("not a terminal: %q, want nothing", said)
		}
	}
}

// A panic is reported as a bug (exit 3 and the stack), never as invalid
// input (Go's own exit status for a panic is 2), also from a worker
// goroutine of the pipeline.
func TestPanicIsABug(t *testing.T) {
	for _, where := range []string{"command", "worker"} {
		ios, _, _, errOut := iostreams.Test()
		cmd := NewCmd(ios)
		cmd.AddCommand(&cobra.Command{Use: "crash", RunE: func(*cobra.Command, []string) error {
			if where == "worker" {
				pipeline.ForEach(4, 2, func(i int) { panic("index out of range") }, nil)
			}
			panic("index out of range")
		}})
		code := execute(ios, cmd, []string{"crash"})
		said := errOut.String()
		if code != ExitBug || !strings.HasPrefix(said, "optimus: internal error (a bug in optimus") || !strings.Contains(said, "index out of range") || !strings.Contains(said, "goroutine") {
			t.Errorf("%s: exit %d: %q", where, code, said)
		}
	}
}
