package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// encodeParquet writes the bytes pqarrow.FileWriter writes, for every
// column type optimus uses, required and nullable, with nulls and without,
// dictionary and plain, over one row group, several, and none.
func TestEncodeParquetWritesPqarrowsBytes(t *testing.T) {
	for _, tc := range []struct {
		rows, groupRows int
		plain           []string
	}{
		{rows: 1000, groupRows: 1 << 20},
		{rows: 2500, groupRows: 1000},
		{rows: 2500, groupRows: 1000, plain: []string{"float", "name"}},
		{rows: 0, groupRows: 1 << 20},
		// Several data pages per chunk. The float columns' dictionaries
		// would outgrow their page: written plain, as parquetProperties
		// does (pqarrow lists a fallen-back chunk's page encodings in map
		// order, so its bytes vary from run to run).
		{rows: 200_000, groupRows: 1 << 20, plain: []string{"float", "float_null"}},
		{rows: 150_001, groupRows: 50_000},
	} {
		t.Run(fmt.Sprintf("rows=%d/group=%d/plain=%v", tc.rows, tc.groupRows, tc.plain), func(t *testing.T) {
			rec := mixedRecord(tc.rows)
			defer rec.Release()
			opts := []parquet.WriterProperty{
				parquet.WithCompression(compress.Codecs.Snappy),
				parquet.WithMaxRowGroupLength(int64(tc.groupRows)),
				parquet.WithCreatedBy("optimus"),
			}
			for _, name := range tc.plain {
				opts = append(opts, parquet.WithDictionaryFor(name, false))
			}
			props := parquet.NewWriterProperties(opts...)
			got, want, err := bothParquets(rec, props)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes, pqarrow's are %d and differ", len(got), len(want))
			}
		})
	}
}

// mixedRecord is rows rows of a string, int64, float64 and bool column each
// required, and each nullable with every seventh row null, plus a nullable
// column that has no null, with schema metadata.
func mixedRecord(rows int) arrow.RecordBatch {
	var fields []arrow.Field
	var cols []arrow.Array
	add := func(name string, nullable bool, a arrow.Array) {
		fields = append(fields, arrow.Field{Name: name, Type: a.DataType(), Nullable: nullable})
		cols = append(cols, a)
	}
	for _, nullable := range []bool{false, true} {
		valid := make([]bool, rows)
		for r := range valid {
			valid[r] = !nullable || r%7 != 3
		}
		suffix := map[bool]string{false: "", true: "_null"}[nullable]
		s, i, f, b := array.NewStringBuilder(mem), array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewBooleanBuilder(mem)
		for r := range rows {
			if !valid[r] {
				s.AppendNull()
				i.AppendNull()
				f.AppendNull()
				b.AppendNull()
				continue
			}
			s.Append(fmt.Sprintf("job-%05d", r/3))
			i.Append(int64(r * r % 101))
			f.Append(math.Sqrt(float64(r)))
			b.Append(r%3 == 0)
		}
		add("name"+suffix, nullable, s.NewArray())
		add("count"+suffix, nullable, i.NewArray())
		add("float"+suffix, nullable, f.NewArray())
		add("flag"+suffix, nullable, b.NewArray())
	}
	all := array.NewFloat64Builder(mem)
	for r := range rows {
		all.Append(float64(r % 5))
	}
	add("no_nulls", true, all.NewArray())
	md := arrow.NewMetadata([]string{"optimus.table", "optimus.version"}, []string{"test", "dev"})
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, int64(rows))
}

// The dictionary writers (writeStringDictionary, writeNumberDictionary)
// write pqarrow's bytes for columns of every shape, and take their own
// path where they say they do: runs, a few values over many pages, nulls
// and empty strings, bytes whose order differs signed and unsigned,
// negative numbers and zero, and row groups that are slices. Where the
// dictionary is still growing when a page is cut, or outgrows its page,
// or the values are mostly distinct, or a float is NaN or -0, they leave
// the column to pqarrow.
func TestWriteDictionary(t *testing.T) {
	strs := func(value func(r int) (string, bool)) func(int) arrow.Array {
		return columnOf(func() appender[string] { return array.NewStringBuilder(mem) }, value)
	}
	ints := func(value func(r int) (int64, bool)) func(int) arrow.Array {
		return columnOf(func() appender[int64] { return array.NewInt64Builder(mem) }, value)
	}
	floats := func(value func(r int) (float64, bool)) func(int) arrow.Array {
		return columnOf(func() appender[float64] { return array.NewFloat64Builder(mem) }, value)
	}
	for _, tc := range []struct {
		name      string
		rows      int
		groupRows int
		column    func(rows int) arrow.Array
		own       bool // written by the dictionary writer
		// pqarrow's own bytes vary from run to run (a dictionary that
		// falls back to plain mid-chunk): only own is checked.
		varies bool
	}{
		{name: "strings in runs", rows: 10_000, groupRows: 1 << 20, own: true,
			column: strs(func(r int) (string, bool) { return fmt.Sprintf("job-%05d", r/7), true })},
		{name: "two strings over pages", rows: 300_000, groupRows: 1 << 20, own: true,
			column: strs(func(r int) (string, bool) { return []string{"ps", "worker"}[min(1, r%9)], true })},
		{name: "few strings, nulls and empty", rows: 250_000, groupRows: 1 << 20, own: true,
			column: strs(func(r int) (string, bool) { return []string{"", "running", "waiting", "done"}[r%4], r%5 != 2 })},
		{name: "unsigned order", rows: 5000, groupRows: 1 << 20, own: true,
			column: strs(func(r int) (string, bool) { return []string{"zeta", "éclair", "Alpha", "ü", "a\x00b"}[r*r%5], true })},
		{name: "string row groups as slices", rows: 120_000, groupRows: 50_000, own: true,
			column: strs(func(r int) (string, bool) { return fmt.Sprintf("gpu-%05d", r/4%16_000), r%11 != 0 })},
		{name: "mostly distinct strings", rows: 16_000, groupRows: 1 << 20,
			column: strs(func(r int) (string, bool) { return fmt.Sprintf("gpu-%05d", r), true })},
		{name: "string dictionary still growing at a page cut", rows: 300_000, groupRows: 1 << 20,
			column: strs(func(r int) (string, bool) { return fmt.Sprintf("%05d", r/3), true })},
		{name: "string dictionary past its page", rows: 200_000, groupRows: 1 << 20, varies: true,
			column: strs(func(r int) (string, bool) { return fmt.Sprintf("task-%07d", r), true })},
		{name: "one string", rows: 3000, groupRows: 1 << 20, own: true,
			column: strs(func(r int) (string, bool) { return "even", true })},
		{name: "all null", rows: 3000, groupRows: 1 << 20,
			column: strs(func(r int) (string, bool) { return "", false })},
		{name: "ints in runs, negative and zero", rows: 20_000, groupRows: 1 << 20, own: true,
			column: ints(func(r int) (int64, bool) { return int64(r/5%301 - 150), true })},
		{name: "few ints over pages, nulls", rows: 400_000, groupRows: 1 << 20, own: true,
			column: ints(func(r int) (int64, bool) { return int64(r % 3), r%7 != 1 })},
		{name: "int row groups as slices", rows: 150_001, groupRows: 50_000, own: true,
			column: ints(func(r int) (int64, bool) { return int64(r / 10), r%13 != 0 })},
		{name: "int dictionary still growing at a page cut", rows: 300_000, groupRows: 1 << 20,
			column: ints(func(r int) (int64, bool) { return int64(r / 3), true })},
		{name: "mostly distinct ints", rows: 5000, groupRows: 1 << 20,
			column: ints(func(r int) (int64, bool) { return int64(r * r), true })},
		{name: "few floats, nulls and zero", rows: 200_000, groupRows: 1 << 20, own: true,
			column: floats(func(r int) (float64, bool) { return []float64{0, 1.5, 8, -3.25, 1e300}[r%5], r%9 != 4 })},
		{name: "floats in runs", rows: 97_000, groupRows: 1 << 20, own: true,
			column: floats(func(r int) (float64, bool) { return math.Sqrt(float64(r / 6)), true })},
		{name: "float NaN", rows: 3000, groupRows: 1 << 20,
			column: floats(func(r int) (float64, bool) { return []float64{1, math.NaN(), 2}[r%3], true })},
		{name: "float -0", rows: 3000, groupRows: 1 << 20,
			column: floats(func(r int) (float64, bool) { return []float64{1, math.Copysign(0, -1), 2}[r%3], true })},
		{name: "mostly distinct floats", rows: 5000, groupRows: 1 << 20,
			column: floats(func(r int) (float64, bool) { return math.Sqrt(float64(r)), true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			col := tc.column(tc.rows)
			defer col.Release()
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "c", Type: col.DataType(), Nullable: true}}, nil), []arrow.Array{col}, int64(tc.rows))
			defer rec.Release()
			props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
				parquet.WithMaxRowGroupLength(int64(tc.groupRows)), parquet.WithCreatedBy("optimus"))
			got, want, err := bothParquets(rec, props)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.varies && !bytes.Equal(got, want) {
				t.Fatalf("%d bytes, pqarrow's are %d and differ", len(got), len(want))
			}
			if own := ownsFirstGroup(t, rec, props); own != tc.own {
				t.Errorf("the dictionary writer wrote the first row group: %v, want %v", own, tc.own)
			}
		})
	}
}

// bothParquets writes rec through encodeParquet and through pqarrow's
// FileWriter, with the same properties.
func bothParquets(rec arrow.RecordBatch, props *parquet.WriterProperties) (ours, pqarrows []byte, err error) {
	var a, b bytes.Buffer
	if err := encodeParquet(struct{ io.Writer }{&a}, rec, props); err != nil {
		return nil, nil, err
	}
	pw, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{&b}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, nil, err
	}
	if err := pw.Write(rec); err != nil {
		return nil, nil, err
	}
	if err := pw.Close(); err != nil {
		return nil, nil, err
	}
	return a.Bytes(), b.Bytes(), nil
}

// appender is an Arrow array builder of values of type T.
type appender[T any] interface {
	Append(T)
	AppendNull()
	NewArray() arrow.Array
}

// columnOf makes a column of rows rows whose row r is value(r), or null.
func columnOf[T any](builder func() appender[T], value func(r int) (T, bool)) func(rows int) arrow.Array {
	return func(rows int) arrow.Array {
		b := builder()
		for r := range rows {
			if v, ok := value(r); ok {
				b.Append(v)
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray()
	}
}

// ownsFirstGroup reports whether the dictionary writer of rec's only
// column writes its first row group itself.
func ownsFirstGroup(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties) bool {
	t.Helper()
	sc, err := pqarrow.ToParquet(rec.Schema(), props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	fw, err := file.NewParquetWriterWithError(io.Discard, sc.Root(), file.WithWriterProps(props))
	if err != nil {
		t.Fatal(err)
	}
	rgw, err := fw.AppendBufferedRowGroupChecked()
	if err != nil {
		t.Fatal(err)
	}
	cw, err := rgw.Column(0)
	if err != nil {
		t.Fatal(err)
	}
	size := min(rec.NumRows(), props.MaxRowGroupLength())
	values := array.NewSlice(rec.Column(0), 0, size)
	defer values.Release()
	levels := make([]int16, size)
	for r := range levels {
		if values.IsValid(r) {
			levels[r] = 1
		}
	}
	own, err := writeDictionary(cw, values, levels)
	if err != nil {
		t.Fatal(err)
	}
	return own
}

// failAfter is a writer that fails once n bytes have been written.
type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// A sink that fails while the column chunks are closed (written out)
// makes encodeParquet return its error, whichever chunk it hits, with
// the other columns still encoding.
func TestEncodeParquetReturnsTheSinksError(t *testing.T) {
	rec := mixedRecord(60_000)
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	for _, n := range []int{0, 10, 5000, 100_000, 400_000} {
		err := encodeParquet(&failAfter{n: n}, rec, props)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("sink failing after %d bytes: %v, want its error", n, err)
		}
	}
}
