package table

import (
	"bytes"
	"fmt"
	"io"
	"math"
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
			var want, got bytes.Buffer
			pw, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{&want}, props, pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			if err := pw.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := pw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := encodeParquet(struct{ io.Writer }{&got}, rec, props); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d bytes, pqarrow's are %d and differ", got.Len(), want.Len())
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

// writeStringDictionary writes pqarrow's bytes for string columns of
// every shape, and takes its own path where it says it does: runs, a few
// values over many pages, nulls and empty strings, bytes whose order
// differs signed and unsigned, and row groups that are slices. Where the
// dictionary is still growing when a page is cut, or outgrows its page, or
// the values are mostly distinct, it leaves the column to pqarrow.
func TestWriteStringDictionary(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rows      int
		groupRows int
		value     func(r int) (string, bool) // the value of row r, and whether it is valid
		own       bool                       // written by writeStringDictionary
		// pqarrow's own bytes vary from run to run (a dictionary that
		// falls back to plain mid-chunk): only own is checked.
		varies bool
	}{
		{"runs", 10_000, 1 << 20, func(r int) (string, bool) { return fmt.Sprintf("job-%05d", r/7), true }, true, false},
		{"two values over pages", 300_000, 1 << 20, func(r int) (string, bool) { return []string{"ps", "worker"}[min(1, r%9)], true }, true, false},
		{"few values, nulls and empty", 250_000, 1 << 20, func(r int) (string, bool) {
			return []string{"", "running", "waiting", "done"}[r%4], r%5 != 2
		}, true, false},
		{"unsigned order", 5000, 1 << 20, func(r int) (string, bool) {
			return []string{"zeta", "éclair", "Alpha", "ü", "a\x00b"}[r*r%5], true
		}, true, false},
		{"row groups as slices", 120_000, 50_000, func(r int) (string, bool) { return fmt.Sprintf("gpu-%05d", r/4%16_000), r%11 != 0 }, true, false},
		{"mostly distinct", 16_000, 1 << 20, func(r int) (string, bool) { return fmt.Sprintf("gpu-%05d", r), true }, false, false},
		{"dictionary still growing at a page cut", 300_000, 1 << 20, func(r int) (string, bool) { return fmt.Sprintf("%05d", r/3), true }, false, false},
		{"dictionary past its page", 200_000, 1 << 20, func(r int) (string, bool) { return fmt.Sprintf("task-%07d", r), true }, false, true},
		{"one value", 3000, 1 << 20, func(r int) (string, bool) { return "even", true }, true, false},
		{"all null", 3000, 1 << 20, func(r int) (string, bool) { return "", false }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := array.NewStringBuilder(mem)
			for r := range tc.rows {
				if v, ok := tc.value(r); ok {
					b.Append(v)
				} else {
					b.AppendNull()
				}
			}
			col := b.NewArray()
			defer col.Release()
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil), []arrow.Array{col}, int64(tc.rows))
			defer rec.Release()
			props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
				parquet.WithMaxRowGroupLength(int64(tc.groupRows)), parquet.WithCreatedBy("optimus"))
			var want, got bytes.Buffer
			pw, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{&want}, props, pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			if err := pw.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := pw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := encodeParquet(struct{ io.Writer }{&got}, rec, props); err != nil {
				t.Fatal(err)
			}
			if !tc.varies && !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d bytes, pqarrow's are %d and differ", got.Len(), want.Len())
			}
			if own := ownsFirstGroup(t, rec, props); own != tc.own {
				t.Errorf("writeStringDictionary wrote the first row group: %v, want %v", own, tc.own)
			}
		})
	}
}

// ownsFirstGroup reports whether writeStringDictionary writes the first
// row group of rec's only column itself.
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
	values := array.NewSlice(rec.Column(0), 0, size).(*array.String)
	defer values.Release()
	levels := make([]int16, size)
	for r := range levels {
		if values.IsValid(r) {
			levels[r] = 1
		}
	}
	own, err := writeStringDictionary(cw, values, levels)
	if err != nil {
		t.Fatal(err)
	}
	return own
}
