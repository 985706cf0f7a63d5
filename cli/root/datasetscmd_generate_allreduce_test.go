// Tests of cli/datasetscmd, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// With --allreduce, generate mixes in all-reduce jobs of Pollux's
// applications (workers only, no max_ps), which solve and place run on
// workers alone; the same seed gives the same bytes, and without the flag
// there are none.
func TestGenerateAllReduceJobs(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, extra ...string) string {
		t.Helper()
		out := filepath.Join(dir, name+".csv")
		args := append([]string{"datasets", "generate", "--tasks", "300", "--nodes", "40", "--cluster", filepath.Join(dir, name+"-cluster.csv"), "-o", out, "-q"}, extra...)
		if code, _, msg := optimusDatasets.Run(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, msg)
		}
		return out
	}
	a, b, none := gen("a", "--allreduce", "0.5"), gen("b", "--allreduce", "0.5"), gen("none")
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if string(ab) != string(bb) {
		t.Error("the same seed gave different tables")
	}
	count := func(file string) (allReduce, jobs int) {
		t.Helper()
		p, err := table.ReadFile(file, schema.Predictions)
		if err != nil {
			t.Fatal(err)
		}
		maxPSOK, ps := p.Valid("max_ps"), p.Int64s("ps")
		for i, m := range p.Strings("mode") {
			if m == "allreduce" {
				allReduce++
				if maxPSOK[i] || ps[i] != 0 {
					t.Errorf("%s row %d: an all-reduce job with max_ps %v, ps %d", file, i+1, maxPSOK[i], ps[i])
				}
			}
		}
		return allReduce, p.NumRows()
	}
	if n, jobs := count(a); n < jobs/4 || n > 3*jobs/4 {
		t.Errorf("%d all-reduce jobs of %d with --allreduce 0.5", n, jobs)
	}
	if n, _ := count(none); n != 0 {
		t.Errorf("%d all-reduce jobs without --allreduce", n)
	}
	alloc, plan := filepath.Join(dir, "alloc.csv"), filepath.Join(dir, "plan.csv")
	if code, _, msg := optimusDatasets.Run(t, nil, "solve", "--cluster", filepath.Join(dir, "a-cluster.csv"), "-i", a, "-o", alloc, "-q"); code != 0 {
		t.Fatalf("solve: exit %d: %s", code, msg)
	}
	if code, _, msg := optimusDatasets.Run(t, nil, "place", "--cluster", filepath.Join(dir, "a-cluster.csv"), "-i", alloc, "-o", plan, "-q"); code != 0 {
		t.Fatalf("place: exit %d: %s", code, msg)
	}
	pt, err := table.ReadFile(plan, schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	pred, _ := table.ReadFile(a, schema.Predictions)
	mode := map[string]string{}
	for i, j := range pred.Strings("job") {
		mode[j] = pred.Strings("mode")[i]
	}
	workers := 0
	for i, j := range pt.Strings("job") {
		if mode[j] != "allreduce" || !pt.Valid("role")[i] {
			continue
		}
		if r := pt.Strings("role")[i]; r != "worker" {
			t.Errorf("plan row %d: all-reduce job %s has a %s task", i+1, j, r)
		}
		workers++
	}
	if workers == 0 {
		t.Error("no all-reduce job was placed")
	}
}
