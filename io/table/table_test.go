package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// sampleJobs is a small jobs table exercising every column type, nulls, NaN
// in an AllowNaN column elsewhere, and pattern columns.
func sampleJobs(t *testing.T) *Table {
	t.Helper()
	csv := "job,model,mode,global_batch,epoch_steps,arrival_s,epoch_budget,progress_steps,max_workers,worker_gpu,worker_cpu,ps_gpu,ps_cpu,image,team\n" +
		"a,resnet-50,sync,32,1000,0,,0,4,1,2,0,3,img:1,x\n" +
		"b,vgg-16,async,64,500,12.5,30,2000,,1,2.5,0,4,,y\n"
	tb, err := Decode([]byte(csv), CSV, "jobs.csv", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestCSVReadFillsDefaultsAndOrdersColumns(t *testing.T) {
	tb := sampleJobs(t)
	if tb.Name != "jobs" || tb.NumRows() != 2 {
		t.Fatalf("got %s with %d rows", tb.Name, tb.NumRows())
	}
	got := strings.Join(tb.ColumnNames(), ",")
	want := "job,model,mode,global_batch,epoch_steps,arrival_s,weight,epoch_budget,progress_steps,ps,workers,max_ps,max_workers,image,command,schedule_end_steps,worker_gpu,worker_cpu,ps_gpu,ps_cpu,team"
	if got != want {
		t.Errorf("columns\n got %s\nwant %s", got, want)
	}
	if w := tb.Float64s("weight"); w[0] != 1 || w[1] != 1 {
		t.Errorf("weight default: %v", w)
	}
	if v := tb.Valid("epoch_budget"); v[0] || !v[1] {
		t.Errorf("epoch_budget validity: %v", v)
	}
	if v := tb.Valid("max_ps"); v[0] || v[1] {
		t.Errorf("absent nullable column should be null: %v", v)
	}
	if c := tb.Float64s("worker_cpu"); c[1] != 2.5 {
		t.Errorf("worker_cpu: %v", c)
	}
	if f := tb.Field(tb.Index("worker_gpu")); f.Type.ID().String() != "FLOAT64" {
		t.Errorf("pattern column type %s, want float64", f.Type)
	}
}

func TestRoundTripEveryFormat(t *testing.T) {
	tb := sampleJobs(t)
	// A loss table carries NaN and null, which must both survive.
	loss, err := Decode([]byte("job,step,value\na,0,2.5\na,10,NaN\na,20,\na,30,-Inf\n"), CSV, "loss.csv", schema.Loss)
	if err != nil {
		t.Fatal(err)
	}
	for _, orig := range []*Table{tb, loss} {
		for _, f := range []Format{ArrowStream, ArrowFile, Parquet, CSV} {
			var buf bytes.Buffer
			if err := Write(&buf, f, orig); err != nil {
				t.Fatalf("%s %v: %v", orig.Name, f, err)
			}
			back, err := Read(&buf, "buf", nil)
			if err != nil {
				t.Fatalf("%s %v: %v", orig.Name, f, err)
			}
			if d := Diff(orig, back); d != "" {
				t.Errorf("%s via %v: %s", orig.Name, f, d)
			}
		}
	}
	v := loss.Float64s("value")
	if !math.IsNaN(v[1]) || !math.IsInf(v[3], -1) || loss.Valid("value")[2] {
		t.Errorf("loss values %v valid %v", v, loss.Valid("value"))
	}
}

func TestWriteIsByteStable(t *testing.T) {
	tb := sampleJobs(t)
	for _, f := range []Format{ArrowStream, ArrowFile, Parquet, CSV} {
		var a, b bytes.Buffer
		if err := Write(&a, f, tb); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, f, sampleJobs(t)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%v: two writes of the same table differ", f)
		}
	}
}

func TestRecogniseCSVKind(t *testing.T) {
	cases := []struct{ header, want string }{
		{"node,gpu,cpu", "cluster"},
		{"job,step,value", "loss"},
		{"job,ps,workers,speed", "speed"},
		{"job,model,mode,global_batch,epoch_steps", "jobs"},
		{"job,model,mode,global_batch,epoch_steps,remaining_steps_p50", "predictions"},
		{"job,model,mode,global_batch,epoch_steps,alloc_ps,alloc_workers,status", "allocation"},
		{"job,role,index,node,gpu", "plan"},
		{"x,y", ""},
	}
	for _, c := range cases {
		got := ""
		if s := Recognise(strings.Split(c.header, ","), nil); s != nil {
			got = s.Name
		}
		if got != c.want {
			t.Errorf("%s: recognised %q, want %q", c.header, got, c.want)
		}
	}
}

// TestBadInput checks that each kind of broken input is rejected with an
// error that is an ErrInvalidInput and names the place of the problem.
func TestBadInput(t *testing.T) {
	var pq bytes.Buffer
	if err := Write(&pq, Parquet, sampleJobs(t)); err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	if err := Write(&stream, ArrowStream, sampleJobs(t)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		want *schema.Table
		msg  string
	}{
		{"empty", nil, schema.Cluster, "empty input"},
		{"truncated parquet", pq.Bytes()[:pq.Len()/2], schema.Jobs, "not a valid Parquet"},
		{"truncated stream", stream.Bytes()[:stream.Len()/2], schema.Jobs, "Arrow IPC stream"},
		{"missing column", []byte("node,gpu\n"), schema.Jobs, `missing required columns "job", "model", "mode", "global_batch", "epoch_steps"`},
		{"wrong type", []byte("node,gpu\nn1,two\nn2,2\nn3,4\n"), schema.Cluster, `column "gpu", row 1 (line 2): "two" is not a number`},
		{"NaN capacity", []byte("node,gpu\nn1,NaN\n"), schema.Cluster, `column "gpu", row 1 (line 2): NaN is not allowed`},
		{"negative capacity", []byte("node,gpu,cpu\nn1,2,8\nn2,-1,8\n"), schema.Cluster, `column "gpu", row 2 (line 3): -1 is negative`},
		{"duplicate id", []byte("node,gpu\nn1,2\nn1,2\n"), schema.Cluster, `column "node", row 2 (line 3): duplicate node "n1" (first at row 1)`},
		{"bad enum", []byte("job,model,mode,global_batch,epoch_steps\na,m,fast,32,10\n"), schema.Jobs, `column "mode", row 1 (line 2): "fast" is not one of sync, async`},
		{"short row", []byte("node,gpu\nn1\n"), schema.Cluster, "line 2: wrong number of fields"},
		{"no resources", []byte("node\nn1\n"), schema.Cluster, "no resource columns"},
		{"fraction in int column", []byte("job,ps,workers,speed\na,1.5,2,3\n"), schema.Speed, `column "ps", row 1 (line 2): "1.5" is not a whole number`},
		{"binary garbage", []byte{0x01, 0x00, 0xfe, 0x02}, schema.Cluster, "unrecognised input"},
		{"wrong table kind", stream.Bytes(), schema.Cluster, "is a jobs table, but a cluster table is expected"},
		{"zero workers", []byte("job,ps,workers,speed\na,1,0,3\n"), schema.Speed, `column "workers", row 1 (line 2): 0 must be at least 1`},
	}
	for _, c := range cases {
		_, err := Read(bytes.NewReader(c.data), "in", c.want)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%s: error %q is not an input error", c.name, err)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got %q\nwant it to contain %q", c.name, err, c.msg)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %q", c.name, err)
		}
	}
}

func TestAtomicWriteLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := AtomicWrite(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("expected the error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left %d entries behind", len(entries))
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("existing file changed to %q", b)
	}
}

// SetSideBySide leaves the table calling the setters one after another
// leaves it: the same columns in the same order, with the same nulls and
// the same Arrow IPC bytes; a setter's panic reaches the caller.
func TestSetSideBySide(t *testing.T) {
	const rows = 5000
	names, valid := make([]string, rows), make([]bool, rows)
	counts, share := make([]int64, rows), make([]float64, rows)
	for r := range rows {
		names[r], valid[r] = strings.Repeat("n", r%7), r%5 != 0
		counts[r], share[r] = int64(r*r%97), math.Sqrt(float64(r))
	}
	jobs, runs := []string{"a", "b", "c"}, []int{1000, 0, 4000}
	sets := []func(*Table){
		func(t *Table) { t.SetStrings("node", names, valid) },
		func(t *Table) { t.SetInt64s("index", counts, nil); t.SetFloat64s("gpu", share, valid) },
		func(t *Table) { t.SetStringsRepeated("job", jobs, nil, runs) },
		func(t *Table) {},
		func(t *Table) { t.SetFloat64s("cpu", share, nil) },
	}
	serial := New(schema.Plan, rows)
	for _, set := range sets {
		set(serial)
	}
	side := New(schema.Plan, rows)
	side.SetSideBySide(sets...)
	if got, want := strings.Join(side.ColumnNames(), ","), strings.Join(serial.ColumnNames(), ","); got != want {
		t.Fatalf("columns %s, want %s", got, want)
	}
	var a, b bytes.Buffer
	if err := Write(&a, ArrowStream, side); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, ArrowStream, serial); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("side by side: %d bytes of Arrow stream, one after another %d, and they differ", a.Len(), b.Len())
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "has 3 rows") {
			t.Errorf("a setter's panic: recovered %v, want the wrong length's", r)
		}
	}()
	New(schema.Plan, rows).SetSideBySide(func(t *Table) { t.SetInt64s("index", []int64{1, 2, 3}, nil) })
}

// InvalidInput marks an error as the input's (exit 2) and keeps its message
// and its chain.
func TestInvalidInputKeepsTheMessage(t *testing.T) {
	inner := fmt.Errorf("w.csv: column %q, row 2: bad", "time")
	err := InvalidInput(inner)
	if !errors.Is(err, ErrInvalidInput) || !errors.Is(err, inner) || err.Error() != inner.Error() {
		t.Errorf("InvalidInput(%q) = %q (is ErrInvalidInput: %v)", inner, err, errors.Is(err, ErrInvalidInput))
	}
	if InvalidInput(nil) != nil {
		t.Error("InvalidInput(nil) is not nil")
	}
}
