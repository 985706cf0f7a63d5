package simulatecmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

func TestPolluxWorkloadRuns(t *testing.T) {
	code, out, stderr := optimus.Run(t, nil, "simulate", "--pollux", "workload-1", "--interval", "60", "--stop-cost", "0", "--restore-cost", "30",
		"--policies", "tiresias,optimus", "--oracle", "--intervals=false", "--format", "csv", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum, err := table.Read(bytes.NewReader(out), "stdout", schema.SimSummary)
	if err != nil {
		t.Fatal(err)
	}
	pol, fin, jct := sum.Strings("policy"), sum.Int64s("finished"), sum.Float64s("mean_jct_s")
	if len(pol) != 2 || fin[0] != 160 || fin[1] != 160 || !(jct[0] > 0) || !(jct[1] > 0) {
		t.Errorf("policies %v finished %v mean JCT %v", pol, fin, jct)
	}
}

func TestPolluxBadInput(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.csv")
	if err := os.WriteFile(w, []byte("name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\nncf-1,110,ncf,1,16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := optimus.Run(t, nil, "simulate", "--pollux", w, "--oracle", "-q")
	want := `column "batch_size", row 2 (line 3): job "ncf-1": batch size 16 is outside the profiled range 256-32768 of ncf`
	if code != 2 || len(out) != 0 || !strings.Contains(stderr, w+": "+want) {
		t.Errorf("exit %d, %d bytes out, stderr %q; want exit 2 and %s", code, len(out), stderr, want)
	}
	for _, c := range []struct{ row, want string }{
		{"gpt-1,200,gpt,4,512\n", `column "application", row 2 (line 3): job "gpt-1": application "gpt" has no profile (profiled: bert, cifar10, deepspeech2, imagenet, ncf, yolov3)`},
		{"cifar10-1,200,cifar10,65,4096\n", `column "num_replicas", row 2 (line 3): job "cifar10-1" asks for 65 GPUs, more than the cluster's 64`},
	} {
		if err := os.WriteFile(w, []byte("name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\n"+c.row), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := optimus.Run(t, nil, "simulate", "--pollux", w, "--oracle", "-q")
		if code != 2 || len(out) != 0 || !strings.Contains(stderr, w+": "+c.want) {
			t.Errorf("exit %d, %d bytes out, stderr %q; want exit 2 and %s", code, len(out), stderr, c.want)
		}
	}
	if code, _, stderr := optimus.Run(t, nil, "simulate", "--pollux", "workload-1", "--workload", w, "-q"); code != 2 || !strings.Contains(stderr, "--pollux brings its own") {
		t.Errorf("--pollux with --workload: exit %d: %s", code, stderr)
	}
}

// The switches of Pollux's modelling choices: each one changes the run,
// a bad one is a usage error (exit 2).
func TestPolluxSwitches(t *testing.T) {
	meanJCT := func(args ...string) float64 {
		t.Helper()
		base := []string{"simulate", "--pollux", "workload-1", "--interval", "60", "--stop-cost", "0", "--restore-cost", "30",
			"--policies", "tiresias", "--oracle", "--intervals=false", "--format", "csv", "-q"}
		code, out, stderr := sims.Run(t, append(base, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		sum, err := table.Read(bytes.NewReader(out), "stdout", schema.SimSummary)
		if err != nil {
			t.Fatal(err)
		}
		return sum.Float64s("mean_jct_s")[len(sum.Float64s("mean_jct_s"))-1] // the last policy
	}
	base := meanJCT()
	for _, args := range [][]string{
		{"--start-cost", "30"},
		{"--placement", "pollux"},
		{"--pollux-depart", "epochs-minus-one"},
		{"--pollux-depart", "iteration-column,max-local-from-scalability"},
	} {
		if got := meanJCT(args...); got == base {
			t.Errorf("%v: mean JCT %v, the same as without", args, got)
		}
	}
	optimusJCT := func(args ...string) float64 {
		return meanJCT(append([]string{"--policies", "optimus"}, args...)...)
	}
	// --policies given twice adds up: tiresias, then optimus.
	if a, b := optimusJCT(), optimusJCT("--srtf-weight", "2"); !(b < a) {
		t.Errorf("--srtf-weight 2: optimus' mean JCT %v, %v without", b, a)
	}
	if a, b := optimusJCT(), optimusJCT("--oracle-remaining", "pollux"); a == b {
		t.Errorf("--oracle-remaining pollux: optimus' mean JCT %v, the same as without", b)
	}
	for _, args := range [][]string{
		{"--oracle-remaining", "guess"},
		{"--placement", "everywhere"},
		{"--pollux-depart", "everything"},
		{"--tiresias-order", "random"},
		{"--start-cost", "-1"},
		{"--srtf-weight", "-1"},
	} {
		code, _, stderr := optimus.Run(t, nil, append([]string{"simulate", "--pollux", "workload-1", "-q"}, args...)...)
		if code != 2 || !strings.Contains(stderr, args[0]) {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
