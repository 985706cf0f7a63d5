package root

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// goldenTestbed are the SHA-256 sums of the files the testbed pipeline
// writes, as optimus at 8545a09 wrote them (before the steps' glue moved
// into package pipeline). A change to any output's bytes shows here: if it
// is meant, say why in the commit and update the sum.
var goldenTestbed = map[string]string{
	"models.parquet":       "b0595727ef90f30d1b15c25085327ffffed93c1951ee6cdd8caf46c7b0706621",
	"predictions.parquet":  "da6060170a8fbcc6a79b23d3305369da13bda852ae67e0907b6151574c83d197",
	"allocation.parquet":   "993ec1b216303ec5f22e4206547c608bfc7ffd8f617b492d438dc77fd427b3b8",
	"alloc-drf.parquet":    "8f9cb99a6461d94ea5725bfd98f7cfaad316101f19e9449f20a7612b44fed9e8",
	"alloc-tetris.parquet": "ad727f00573e7a7a32f16519bf4110cbde120f592441eb68db800fa4e8078f63",
	"alloc-fifo.parquet":   "545f33ad4fefaa012599084d8a2e56720d3defc75edef3a45ddb3e9980f29783",
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
		if tty && !strings.HasPrefix(said, "solve (optimus, nodes capacity): 26 jobs: 26 running") {
			t.Errorf("at a terminal: %q, want the plan's summary", said)
		}
		if !tty && said != "" {
			t.Errorf("not a terminal: %q, want nothing", said)
		}
	}
}
