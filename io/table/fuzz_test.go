package table

// Fuzz targets for every reader. Run one with, for example,
//
//	go test ./io/table -run '^$' -fuzz '^FuzzReadParquet$' -fuzztime 5m -parallel 1 \
//		-fuzzminimizetime 2s -fuzz-slow 5s
//
// (each execution writes the table back in four formats, so it is slow, and
// minimizing every new interesting input for the default minute would leave
// little time for fuzzing).
//
// Without -fuzz, `go test` runs each target over its seed corpus: the tables
// built below in every format, broken variants of them, and the files under
// testdata/fuzz/<FuzzName>/ (the embedded testbed in every format, written by
// TestWriteFuzzCorpus, plus inputs the fuzzers found).
//
// The properties, for any input:
//   - reading never panics (Decode turns the decoders' panics on corrupt data
//     into errors, but a panic raised in this package is a bug);
//   - every error is an input error (errors.Is(err, ErrInvalidInput)) whose
//     message is one line, starting with the source name;
//   - a table that is accepted writes back in every format and reads back
//     with identical content (Diff), except that CSV is only asked to carry
//     what it can (see csvCarries).

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/optimus-sched/optimus/io/schema"
)

// seedTables are small tables of several kinds, covering every column type,
// nulls, NaN and infinities, defaults, pattern columns and an extra column.
var seedTables = []struct {
	name, csv string
	want      *schema.Table
}{
	{"jobs", "job,model,mode,global_batch,epoch_steps,arrival_s,epoch_budget,progress_steps,max_workers,worker_gpu,worker_cpu,ps_gpu,ps_cpu,image,team\n" +
		"a,resnet-50,sync,32,1000,0,,0,4,1,2,0,3,img:1,x\n" +
		"b,vgg-16,async,64,500,12.5,30,2000,,1,2.5,0,4,,y\n", schema.Jobs},
	{"loss", "job,step,value,higher_is_better\na,0,2.5,false\na,10,NaN,false\na,20,,false\nb,30,-Inf,true\n", schema.Loss},
	{"cluster", "node,gpu,cpu,memory_gb,zone\nn1,4,16,64,east\nn2,0,32,128.5,\n", schema.Cluster},
	{"speed", "job,ps,workers,speed,mode\na,1,2,3.5,sync\na,2,2,0,\n", schema.Speed},
	{"none", "x,y,z\n1,a,true\n2,,false\n", nil},
	{"no rows", "job,model,mode,global_batch,epoch_steps\n", schema.Jobs},
}

// wantOf maps the fuzzers' second argument to the schema the reader is
// asked for: nil (any table) or one of the declared tables.
func wantOf(kind byte) *schema.Table {
	k := int(kind) % (len(schema.All) + 1)
	if k == 0 {
		return nil
	}
	return schema.All[k-1]
}

func kindOf(want *schema.Table) byte {
	for i, s := range schema.All {
		if s == want {
			return byte(i + 1)
		}
	}
	return 0
}

// encoded is every seed table in format f, plus broken variants of it.
func seedInputs(tb testing.TB, f Format) [][]byte {
	var out [][]byte
	for _, s := range seedTables {
		t, err := Decode([]byte(s.csv), CSV, s.name, s.want)
		if err != nil {
			tb.Fatalf("seed %s: %v", s.name, err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, f, t); err != nil {
			tb.Fatalf("seed %s: %v", s.name, err)
		}
		out = append(out, buf.Bytes())
	}
	return append(out, broken(out[0])...)
}

// broken derives damaged inputs from a valid one: truncated at several
// places, with bytes flipped, duplicated, or cut from the middle.
func broken(data []byte) [][]byte {
	n := len(data)
	out := [][]byte{data[:n/2], data[:n-1], data[:min(n, 8)], data[n/3:], {}}
	for _, at := range []int{n / 4, n / 2, 3 * n / 4, n - 5} {
		if at >= 0 && at < n {
			b := bytes.Clone(data)
			b[at] ^= 0xff
			out = append(out, b)
		}
	}
	out = append(out, append(bytes.Clone(data), data...))
	out = append(out, append(bytes.Clone(data[:n/2]), data[n/2+min(16, n/2):]...))
	return out
}

// brokenCSV are hand-made bad CSV inputs.
var brokenCSV = []string{
	"", "\n", "\ufeff", "a,b\n\"x,1\n", "node,gpu\nn1\n", "node,gpu\nn1,NaN\n", "node,gpu\nn1,-1\n",
	"node,gpu\nn1,2\nn1,3\n", "node,node\nn,1\n", ",gpu\nn,1\n", "job,ps,workers,speed\na,1.5,2,3\n",
	"\x00\x01\x02", "PAR1", "ARROW1", "\xff\xff\xff\xff", "job,step,value\r\na,1,1e400\r\n",
	"x\n\"a\"\"b\"\n", "a;b;c\n1;2;3\n",
	// Resources that must not vanish into labels (issue 8, defect 2).
	"node,gpu\nn1,8\nn2,1e309\n", "node,gpu\nn1,lots\nn2,many\nn3,8\n", "node, gpu, cpu\nn1, 4, 16\n",
	"node,zone\nn1,east\n",
	// Number syntax and ranges (defects 5 and 8).
	"job,step,value\na,1_000,1\n", "job,step,value\na,0,0x1p4\n", "job,step,value\na,0,+nan\na,1,-NaN\na,2,+inf\n",
	"job,step,value\na,9223372036854775000,1\n", "job,step,value\na,9223372036854775808,1\n",
	"job,model,mode,global_batch,epoch_steps,weight\na,m,sync,32,10,1e308\n",
	// Text in another encoding (defect 8).
	"node,gpu\nn1,4\ncaf\xe9,2\n",
}

// truncatedStreams are Arrow streams cut where an upstream command that
// dies leaves them: after the schema, inside a message, inside the
// end-of-stream marker (issue 8, defect 3).
func truncatedStreams(tb testing.TB) [][]byte {
	var out [][]byte
	for _, s := range seedTables[:3] {
		t, err := Decode([]byte(s.csv), CSV, s.name, s.want)
		if err != nil {
			tb.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteStream(&buf, t); err != nil {
			tb.Fatal(err)
		}
		d := buf.Bytes()
		schemaEnd := 8 + int(uint32(d[4])|uint32(d[5])<<8|uint32(d[6])<<16|uint32(d[7])<<24)
		out = append(out, d[:schemaEnd], d[:schemaEnd+12], d[:len(d)-8], d[:len(d)-4], d[:len(d)-1])
	}
	return out
}

func FuzzReadArrowStream(f *testing.F) { fuzzFormat(f, ArrowStream) }
func FuzzReadArrowFile(f *testing.F)   { fuzzFormat(f, ArrowFile) }
func FuzzReadParquet(f *testing.F)     { fuzzFormat(f, Parquet) }
func FuzzReadCSV(f *testing.F)         { fuzzFormat(f, CSV) }

// FuzzRead reads through Read, which recognises the format by its first
// bytes, as a command does on its standard input.
func FuzzRead(f *testing.F) { fuzzFormat(f, Unknown) }

func fuzzFormat(f *testing.F, format Format) {
	formats := []Format{format}
	if format == Unknown {
		formats = []Format{ArrowStream, ArrowFile, Parquet, CSV}
	}
	for _, fm := range formats {
		for i, in := range seedInputs(f, fm) {
			if i < len(seedTables) {
				f.Add(in, kindOf(seedTables[i].want))
			}
			f.Add(in, byte(0))
		}
	}
	if format == ArrowStream || format == Unknown {
		for _, in := range truncatedStreams(f) {
			f.Add(in, byte(0))
			f.Add(in, kindOf(schema.Allocation))
		}
	}
	if format == CSV || format == Unknown {
		for _, s := range brokenCSV {
			f.Add([]byte(s), byte(0))
			f.Add([]byte(s), kindOf(schema.Cluster))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, kind byte) {
		start := time.Now()
		checkRead(t, data, format, wantOf(kind))
		if d := time.Since(start); *fuzzSlow > 0 && d > *fuzzSlow {
			t.Fatalf("a %d-byte input took %v", len(data), d)
		}
	})
}

// checkRead reads data as format (Unknown: sniffed by Read) and checks the
// properties above.
func checkRead(t *testing.T, data []byte, format Format, want *schema.Table) {
	onRecover = func(r any, stack []byte) {
		if fn := panicOrigin(stack); strings.HasPrefix(fn, "github.com/optimus-sched/optimus/") {
			t.Fatalf("panic in %s: %v\n%s", fn, r, stack)
		}
	}
	defer func() { onRecover = nil }()

	const source = "fuzz.in"
	var (
		tb  *Table
		err error
	)
	if format == Unknown {
		tb, err = Read(bytes.NewReader(data), source, want)
	} else {
		tb, err = Decode(data, format, source, want)
	}
	if err != nil {
		checkError(t, err, source)
		return
	}
	if tb.Source != source {
		t.Errorf("accepted table's source is %q, want %q", tb.Source, source)
	}
	for _, out := range []Format{ArrowStream, ArrowFile, Parquet, CSV} {
		if out == CSV {
			if why := csvCarries(tb, want); why != "" {
				continue
			}
		}
		var buf bytes.Buffer
		if err := Write(&buf, out, tb); err != nil {
			t.Fatalf("accepted table does not write as %v: %v", out, err)
		}
		back, err := Decode(buf.Bytes(), out, "back", want)
		if err != nil {
			t.Fatalf("accepted table written as %v does not read back: %v", out, err)
		}
		if d := Diff(tb, back); d != "" {
			t.Fatalf("accepted table written as %v reads back different: %s", out, d)
		}
	}
}

func checkError(t *testing.T, err error, source string) {
	t.Helper()
	msg := err.Error()
	if !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("error is not an input error: %T %q", err, msg)
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error message spans lines: %q", msg)
	}
	if !strings.HasPrefix(msg, source+": ") || len(msg) == len(source)+2 {
		t.Fatalf("error message does not start with the source and say something: %q", msg)
	}
}

// panicOrigin is the function that raised the panic whose stack this is:
// the first frame after the panic call that is not the runtime's.
func panicOrigin(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") {
			continue
		}
		for _, m := range lines[i+1:] {
			if m == "" || m[0] == '\t' || strings.HasPrefix(m, "runtime.") || strings.HasPrefix(m, "panic(") {
				continue
			}
			return m
		}
	}
	return ""
}

// csvCarries says why a table cannot go through CSV unchanged, or "" when it
// can. CSV has no metadata beyond the header: the table kind is recognised
// from the column names, undeclared columns take the type their text
// suggests, an empty field is null, names are trimmed, and the CSV reader
// turns \r\n inside a quoted field into \n.
func csvCarries(t *Table, want *schema.Table) string {
	if len(t.Meta) > 0 {
		return "metadata"
	}
	s := Recognise(t.ColumnNames(), want)
	if s == nil {
		s = want
	}
	if s != schema.Lookup(t.Name) {
		return "kind not recognisable from the header"
	}
	for i, f := range t.fields {
		if f.Name != strings.TrimSpace(f.Name) {
			return "column name with surrounding space"
		}
		if i == 0 && (Sniff([]byte(f.Name)) != CSV || strings.HasPrefix(f.Name, "\ufeff")) {
			return "first column name looks like another format"
		}
		texts := make([]string, t.rows)
		for r := range texts {
			texts[r] = cellText(t.cols[i], r)
			if t.cols[i].IsValid(r) && texts[r] == "" {
				return "empty string"
			}
			if strings.Contains(texts[r], "\r") {
				return "carriage return in a value"
			}
		}
		inferred := inferCSVType(stringCells(texts))
		if s != nil {
			if _, ok := s.Column(f.Name); ok {
				continue
			}
			if p, ok := s.MatchPattern(f.Name); ok && (p.Prefix != "" || inferred == schema.Int64 || inferred == schema.Float64) {
				continue
			}
		}
		if nt, _ := naturalType(f.Type); inferred != nt || !f.Nullable {
			return "undeclared column whose type its CSV text does not show"
		}
	}
	return ""
}

var fuzzSlow = flag.Duration("fuzz-slow", 0, "fail on an input that takes longer than this `duration` to read and check (0: no limit)")

var corpusFrom = flag.String("fuzz-corpus-from", "", "TestWriteFuzzCorpus: write the tables of this `dir` (an `optimus datasets export` in any format) into testdata/fuzz")

// TestWriteFuzzCorpus adds the tables of a directory to the fuzzers' seed
// corpus, each in every format (Parquet for FuzzReadParquet, and so on;
// all of them for FuzzRead). It does nothing without -fuzz-corpus-from:
//
//	optimus datasets export testbed -o /tmp/tb
//	go test ./io/table -run TestWriteFuzzCorpus -fuzz-corpus-from /tmp/tb
func TestWriteFuzzCorpus(t *testing.T) {
	if *corpusFrom == "" {
		t.Skip("no -fuzz-corpus-from")
	}
	entries, err := os.ReadDir(*corpusFrom)
	if err != nil {
		t.Fatal(err)
	}
	targets := map[Format]string{ArrowStream: "FuzzReadArrowStream", ArrowFile: "FuzzReadArrowFile", Parquet: "FuzzReadParquet", CSV: "FuzzReadCSV"}
	for _, e := range entries {
		tb, err := ReadFile(filepath.Join(*corpusFrom, e.Name()), nil)
		if err != nil {
			t.Fatal(err)
		}
		for f, target := range targets {
			var buf bytes.Buffer
			if err := Write(&buf, f, tb); err != nil {
				t.Fatal(err)
			}
			name := "testbed-" + strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
			for _, dir := range []string{target, "FuzzRead"} {
				writeCorpusFile(t, dir, name+"-"+strings.ToLower(strings.ReplaceAll(f.String(), " ", "-")), buf.Bytes(), kindOf(schema.Lookup(tb.Name)))
			}
		}
	}
}

func writeCorpusFile(t *testing.T, target, name string, data []byte, kind byte) {
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' {
			return r
		}
		return '-'
	}, name)
	content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbyte(%q)\n", data, kind)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
