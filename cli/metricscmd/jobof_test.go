package metricscmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/root"
)

// --job-of files logs that are not one directory per job: a collector's
// tree by date, the job in the file's name. The shared event file and
// MXNet log keep their points, read independently in the other tests.
func TestJobOfMapsPathsToJobs(t *testing.T) {
	sh := sharedDir(t)
	logs := filepath.Join(t.TempDir(), "logs")
	put(t, logs, "2016-10-14/estimator.ps1-w2/events.out.tfevents.1476472047.localhost", filepath.Join(sh, "events/tensorboard-estimator-train.tfevents"))
	put(t, logs, "2019-06-18/resnet50-mlperf.log", filepath.Join(sh, "logs/mxnet-speedometer-resnet50.log"))
	put(t, logs, "2019-06-18/other.jsonl", filepath.Join(sh, "logs/mxnet-speedometer-resnet50.log"))
	out := t.TempDir()
	code, _, stderr := root.Run(nil, "metrics", logs, "--format", "csv", "-o", out, "--epoch-steps", "770",
		"--job-of", "*/estimator.*/*=estimator", "--job-of", "resnet50-*.log=resnet50")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	progress, err := os.ReadFile(filepath.Join(out, "progress.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(progress)), "\n")
	var jobs []string
	for _, l := range lines[1:] {
		jobs = append(jobs, strings.SplitN(l, ",", 2)[0])
	}
	// The unmapped file stays with its first path component.
	if strings.Join(jobs, " ") != "2019-06-18 estimator resnet50" {
		t.Fatalf("jobs %v, want 2019-06-18 (the file no rule maps), estimator and resnet50:\n%s", jobs, progress)
	}
	for _, want := range []string{"estimator,2901,loss,false,30,1,", "resnet50,46200,eval_accuracy,true,15,"} {
		if !strings.Contains(string(progress), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress)
		}
	}
	for _, bad := range []string{"nojob", "[=a", "x=", "x=a\x01b"} {
		code, _, stderr := root.Run(nil, "metrics", logs, "-o", out, "--job-of", bad)
		if code != 2 || !strings.Contains(stderr, "--job-of") {
			t.Errorf("--job-of %q: exit %d, %s", bad, code, stderr)
		}
	}
}
