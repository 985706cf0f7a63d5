// Tests of cli/datasetscmd, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Importing Pollux's workload-1.csv gives the tables of the embedded
// pollux-workload-1 dataset.
func TestImportPolluxWorkload(t *testing.T) {
	dir := t.TempDir()
	imported, exported := filepath.Join(dir, "imported"), filepath.Join(dir, "exported")
	if code, _, stderr := optimusDatasets.Run(t, nil, "datasets", "import", "pollux", "../../datasets/data/pollux/workloads/workload-1.csv", "-o", imported, "--format", "csv", "-q"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if code, _, stderr := optimusDatasets.Run(t, nil, "datasets", "export", "pollux-workload-1", "-o", exported, "--format", "csv", "-q"); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"cluster", "jobs", "speed", "placements"} {
		a, err := os.ReadFile(filepath.Join(imported, name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(exported, name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s.csv differs between the import of workload-1.csv and the embedded dataset", name)
		}
	}
	jobs, _ := os.ReadFile(filepath.Join(imported, "jobs.csv"))
	if n := strings.Count(string(jobs), "\n"); n != 161 || !strings.Contains(string(jobs), "cifar10-0,cifar10,allreduce,2048,") {
		t.Errorf("jobs.csv: %d lines, want 161 with cifar10-0 an allreduce job of batch 2048", n)
	}
}

// The bad-input bar of issue 13 through the CLI: an application with no
// profile, a batch size outside the profile's range, a replica count
// larger than the cluster; each names file, column and row, exits 2 and
// writes nothing.
func TestImportPolluxBadInput(t *testing.T) {
	head := "name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\n"
	for _, c := range []struct{ name, row, want string }{
		{"no profile", "gpt-1,200,gpt,4,512\n", `column "application", row 2 (line 3): job "gpt-1": application "gpt" has no profile (profiled: bert, cifar10, deepspeech2, imagenet, ncf, yolov3)`},
		{"batch below the range", "cifar10-1,200,cifar10,4,64\n", `column "batch_size", row 2 (line 3): job "cifar10-1": batch size 64 is outside the profiled range 128-4096 of cifar10`},
		{"batch above the range", "bert-1,200,bert,4,768\n", `column "batch_size", row 2 (line 3): job "bert-1": batch size 768 is outside the profiled range 12-384 of bert`},
		{"more GPUs than the cluster", "cifar10-1,200,cifar10,65,4096\n", `column "num_replicas", row 2 (line 3): job "cifar10-1" asks for 65 GPUs, more than the cluster's 64`},
	} {
		dir := t.TempDir()
		w := filepath.Join(dir, "w.csv")
		if err := os.WriteFile(w, []byte(head+c.row), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		code, _, stderr := optimusDatasets.Run(t, nil, "datasets", "import", "pollux", w, "-o", out)
		if code != 2 || !strings.Contains(stderr, w+": "+c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %s", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s was written", c.name, out)
		}
	}
	if code, _, stderr := optimusDatasets.Run(t, nil, "datasets", "import", "philly", "x.csv", "-o", t.TempDir()); code != 2 || !strings.Contains(stderr, "pollux") {
		t.Errorf("an unknown format: exit %d: %s", code, stderr)
	}
}
