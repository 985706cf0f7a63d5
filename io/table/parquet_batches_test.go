package table

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/optimus-sched/optimus/io/schema"
)

// planTable is a plan as place writes one, n rows: jobs of 1 to 5 tasks
// whose names need quoting now and then, the row of a waiting job (role,
// index and node null), resources gpu and cpu; the optional columns
// reason and job_method absent, to be filled on reading.
func planTable(n int) *Table {
	t := New(schema.Plan, n)
	job, role, node, status := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	index, ps := make([]int64, n), make([]int64, n)
	gpu, cpu := make([]float64, n), make([]float64, n)
	valid := make([]bool, n)
	for r := range n {
		j := r / 5
		job[r] = fmt.Sprintf("job-%d", j)
		switch j % 7 {
		case 3:
			job[r] = fmt.Sprintf(`job "%d", resnet`, j)
		case 5:
			job[r] = fmt.Sprintf(" job-%d", j)
		}
		valid[r] = j%11 != 4
		status[r] = "running"
		if !valid[r] {
			status[r] = "waiting"
		}
		role[r], index[r], node[r] = "worker", int64(r%5), fmt.Sprintf("n%d", r%97)
		if r%5 == 0 {
			role[r] = "ps"
		}
		ps[r] = 1
		gpu[r], cpu[r] = float64(r%3), 0.5+float64(r%4)/3
	}
	t.SetStrings("job", job, nil)
	t.SetStrings("role", role, valid)
	t.SetInt64s("index", index, valid)
	t.SetStrings("node", node, valid)
	t.SetStrings("status", status, nil)
	t.SetInt64s("job_ps", ps, nil)
	t.SetFloat64s("gpu", gpu, nil)
	t.SetFloat64s("cpu", cpu, nil)
	return t
}

// writeRowGroups writes tbl to path as Parquet in row groups of groupRows
// rows (the writer's own are 1M).
func writeRowGroups(t *testing.T, path string, tbl *Table, groupRows int) {
	t.Helper()
	rec := tbl.Record()
	defer rec.Release()
	at := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	defer at.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pqarrow.WriteTable(at, f, int64(groupRows), nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
}

// batchesCSV converts the Parquet file at path to CSV batch by batch.
func batchesCSV(path string, rows int) ([]byte, int, error) {
	var buf bytes.Buffer
	w := NewCSVWriter(&buf)
	batches := 0
	err := ReadParquetBatches(path, nil, rows, func(t *Table) error {
		batches++
		return w.Write(t)
	})
	return buf.Bytes(), batches, err
}

// A Parquet file read batch by batch and written as CSV part by part is
// the CSV of the file read whole, byte for byte, whatever the batch size:
// one row, a batch that does not divide the table, several pages of a
// row group, several row groups, more than the table.
func TestParquetBatchesWriteTheWholeTablesCSV(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ rows, groupRows, batch int }{
		{rows: 23, groupRows: 1 << 20, batch: 1},
		{rows: 30_000, groupRows: 1 << 20, batch: 4096},
		{rows: 30_000, groupRows: 7_000, batch: 5_000},
		{rows: 30_000, groupRows: 1 << 20, batch: 1 << 20},
	} {
		t.Run(fmt.Sprintf("rows=%d/group=%d/batch=%d", tc.rows, tc.groupRows, tc.batch), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("plan-%d-%d.parquet", tc.rows, tc.groupRows))
			writeRowGroups(t, path, planTable(tc.rows), tc.groupRows)
			whole, err := ReadFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := Write(&want, CSV, whole); err != nil {
				t.Fatal(err)
			}
			got, batches, err := batchesCSV(path, tc.batch)
			if err != nil {
				t.Fatal(err)
			}
			if wantBatches := (tc.rows + tc.batch - 1) / tc.batch; batches != wantBatches {
				t.Errorf("%d batches, want %d", batches, wantBatches)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("batches' CSV (%d bytes) differs from the whole table's (%d bytes)", len(got), want.Len())
			}
			if !strings.Contains(want.String(), `"job ""3"", resnet"`) || !strings.HasPrefix(want.String(), "job,role,index,node,kept,status,reason,job_ps") {
				t.Fatalf("the plan's CSV lacks its quoted names or filled columns:\n%.300s", want.String())
			}
		})
	}
}

// What the batches cannot decide alone is left to the whole read: a bad
// value in a late batch (the whole read names its row), a table with a
// unique column, an empty table, a file that is not Parquet. Each's own
// error comes back as it is.
func TestParquetBatchesLeaveToTheWholeRead(t *testing.T) {
	dir := t.TempDir()
	bad := planTable(10_000)
	ps := bad.Int64s("job_ps")
	ps[9_876] = -2
	bad.SetInt64s("job_ps", ps, nil)
	badPath := filepath.Join(dir, "bad.parquet")
	if err := WriteFile(badPath, bad); err != nil {
		t.Fatal(err)
	}
	_, _, err := batchesCSV(badPath, 1000)
	if !errors.Is(err, ErrWholeTable) {
		t.Fatalf("a bad row in batch 10: %v, want ErrWholeTable", err)
	}
	if _, err := ReadFile(badPath, nil); err == nil || !strings.Contains(err.Error(), "row 9877") {
		t.Fatalf("the whole read: %v, want the bad row named", err)
	}

	cluster := New(schema.Cluster, 3)
	cluster.SetStrings("node", []string{"a", "b", "a"}, nil)
	cluster.SetFloat64s("gpu", []float64{1, 2, 3}, nil)
	clusterPath := filepath.Join(dir, "cluster.parquet")
	if err := WriteFile(clusterPath, cluster); err != nil {
		t.Fatal(err)
	}
	if _, _, err := batchesCSV(clusterPath, 1000); !errors.Is(err, ErrWholeTable) {
		t.Fatalf("a table with a unique column: %v, want ErrWholeTable", err)
	}

	emptyPath := filepath.Join(dir, "empty.parquet")
	if err := WriteFile(emptyPath, planTable(0)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := batchesCSV(emptyPath, 1000); !errors.Is(err, ErrWholeTable) {
		t.Fatalf("an empty table: %v, want ErrWholeTable", err)
	}

	csvPath := filepath.Join(dir, "plan.parquet.csv")
	if err := os.WriteFile(csvPath, []byte("job\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notParquet := filepath.Join(dir, "text.parquet")
	if err := os.WriteFile(notParquet, []byte("job\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{csvPath, notParquet, filepath.Join(dir, "missing.parquet")} {
		if _, _, err := batchesCSV(p, 1000); !errors.Is(err, ErrWholeTable) {
			t.Fatalf("%s: %v, want ErrWholeTable", p, err)
		}
	}

	good := filepath.Join(dir, "good.parquet")
	if err := WriteFile(good, planTable(5000)); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("disk full")
	calls := 0
	err = ReadParquetBatches(good, nil, 1000, func(*Table) error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Fatalf("each's error: %v after %d batches, want %v after 3", err, calls, stop)
	}
}
