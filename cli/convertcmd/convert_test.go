package convertcmd_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/convertcmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// writePlan writes a plan of n task rows (4 tasks a job, resources gpu
// and cpu) to path, with job_ps of row bad (if >= 0) negative.
func writePlan(t *testing.T, path string, n, bad int) {
	t.Helper()
	p := table.New(schema.Plan, n)
	job, role, node := make([]string, n), make([]string, n), make([]string, n)
	index, ps := make([]int64, n), make([]int64, n)
	gpu, cpu := make([]float64, n), make([]float64, n)
	for r := range n {
		job[r], role[r], node[r] = fmt.Sprintf("job-%d", r/4), "worker", fmt.Sprintf("node,%d", r%1009)
		if r%4 == 0 {
			role[r] = "ps"
		}
		index[r], ps[r], gpu[r], cpu[r] = int64(r%4), 1, float64(r%2), 0.25*float64(r%7)
	}
	if bad >= 0 {
		ps[bad] = -1
	}
	p.SetStrings("job", job, nil)
	p.SetStrings("role", role, nil)
	p.SetInt64s("index", index, nil)
	p.SetStrings("node", node, nil)
	p.SetInt64s("job_ps", ps, nil)
	p.SetFloat64s("gpu", gpu, nil)
	p.SetFloat64s("cpu", cpu, nil)
	if err := table.WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
}

// Parquet to a CSV file, converted batch by batch, writes the bytes the
// whole table's conversion writes to standard output; a bad row in a late
// batch is the whole read's error, naming its row, and leaves no file.
func TestParquetToCSVFileInBatches(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "plan.parquet")
	const rows = 70_000 // two batches
	writePlan(t, in, rows, -1)

	ios, _, stdout, _ := iostreams.Test()
	opts := &convertcmd.Options{IO: ios, Input: in}
	opts.Output.Format = "csv"
	if err := convertcmd.Run(opts); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "plan.csv")
	ios, _, _, _ = iostreams.Test()
	opts = &convertcmd.Options{IO: ios, Input: in}
	opts.Output.Path = out
	if err := convertcmd.Run(opts); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, stdout.Bytes()) || bytes.Count(got, []byte("\n")) != rows+1 {
		t.Fatalf("the file's CSV (%d bytes, %d lines) differs from standard output's (%d bytes)",
			len(got), bytes.Count(got, []byte("\n")), stdout.Len())
	}

	badIn := filepath.Join(dir, "bad.parquet")
	writePlan(t, badIn, rows, 69_000)
	badOut := filepath.Join(dir, "bad.csv")
	ios, _, _, _ = iostreams.Test()
	opts = &convertcmd.Options{IO: ios, Input: badIn}
	opts.Output.Path = badOut
	err = convertcmd.Run(opts)
	if err == nil || !strings.Contains(err.Error(), "row 69001") || !strings.Contains(err.Error(), "job_ps") {
		t.Fatalf("bad row 69001: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "bad.csv") || strings.HasPrefix(e.Name(), ".bad.csv") {
			t.Errorf("%s left behind by a failed conversion", e.Name())
		}
	}
}
