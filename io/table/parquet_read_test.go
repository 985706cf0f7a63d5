package table

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readBoth decodes a Parquet file with decodeParquet and with pqarrow's
// reader and says where the two tables differ: column names, nullability,
// types (pqarrow's large strings and dictionaries of strings are read here
// as strings), nulls and values.
func readBoth(data []byte) error {
	ours, err := decodeParquet(bytes.NewReader(data), int64(len(data)), "t.parquet")
	if err != nil {
		return fmt.Errorf("ours: %v", err)
	}
	theirs, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(data), nil, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return fmt.Errorf("pqarrow: %v", err)
	}
	defer theirs.Release()
	if int(theirs.NumCols()) != len(ours.cols) || int(theirs.NumRows()) != ours.rows {
		return fmt.Errorf("%d columns of %d rows, pqarrow's %d of %d", len(ours.cols), ours.rows, theirs.NumCols(), theirs.NumRows())
	}
	for i := range ours.cols {
		f, tf := ours.fields[i], theirs.Schema().Field(i)
		if f.Name != tf.Name || f.Nullable != tf.Nullable {
			return fmt.Errorf("column %d: field %v, pqarrow's %v", i, f, tf)
		}
		col := theirs.Column(i).Data()
		var want arrow.Array
		switch col.Len() {
		case 0:
			want = array.MakeArrayOfNull(mem, tf.Type, 0)
		default:
			if want, err = array.Concatenate(col.Chunks(), mem); err != nil {
				return err
			}
		}
		if d, ok := want.(*array.Dictionary); ok {
			want = decodeDictionary(d)
		}
		wantType := want.DataType()
		if wantType.ID() == arrow.LARGE_STRING {
			wantType = arrow.BinaryTypes.String
		}
		got := ours.cols[i]
		if !arrow.TypeEqual(got.DataType(), wantType) {
			return fmt.Errorf("column %q: type %s, pqarrow's %s", f.Name, got.DataType(), want.DataType())
		}
		if err := sameValues(got, want); err != nil {
			return fmt.Errorf("column %q: %v (pqarrow's second)", f.Name, err)
		}
	}
	return nil
}

// sameValues says where two arrays of one length differ in nulls or
// values (floats by their text: NaN is NaN).
func sameValues(got, want arrow.Array) error {
	if got.Len() != want.Len() {
		return fmt.Errorf("%d rows, %d", got.Len(), want.Len())
	}
	for r := range got.Len() {
		if got.IsNull(r) != want.IsNull(r) {
			return fmt.Errorf("row %d: null %v, %v", r+1, got.IsNull(r), want.IsNull(r))
		}
		if got.IsValid(r) && got.ValueStr(r) != want.ValueStr(r) {
			return fmt.Errorf("row %d: %s, %s", r+1, got.ValueStr(r), want.ValueStr(r))
		}
	}
	return nil
}

// openParquet opens a Parquet file held in memory, its claims checked.
func openParquet(t *testing.T, data []byte) *file.Reader {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkParquetClaims(pf, bytes.NewReader(data), int64(len(data)), "t.parquet"); err != nil {
		t.Fatal(err)
	}
	return pf
}

// allTypesRecord is a record of every type decodeParquet reads, each
// required and nullable (with a null every third row from row 2, and none
// in a nullable column without nulls), with values at the types' ends.
func allTypesRecord(rows int) arrow.RecordBatch {
	type column struct {
		name string
		typ  arrow.DataType
		add  func(b array.Builder, r int)
	}
	cols := []column{
		{"i8", arrow.PrimitiveTypes.Int8, func(b array.Builder, r int) { b.(*array.Int8Builder).Append(int8(r*37 - 128)) }},
		{"u8", arrow.PrimitiveTypes.Uint8, func(b array.Builder, r int) { b.(*array.Uint8Builder).Append(uint8(r * 41)) }},
		{"i16", arrow.PrimitiveTypes.Int16, func(b array.Builder, r int) { b.(*array.Int16Builder).Append(int16(r*997 - 32768)) }},
		{"u16", arrow.PrimitiveTypes.Uint16, func(b array.Builder, r int) { b.(*array.Uint16Builder).Append(uint16(r * 1009)) }},
		{"i32", arrow.PrimitiveTypes.Int32, func(b array.Builder, r int) { b.(*array.Int32Builder).Append(int32(r*100_003 - math.MaxInt32)) }},
		{"u32", arrow.PrimitiveTypes.Uint32, func(b array.Builder, r int) { b.(*array.Uint32Builder).Append(uint32(math.MaxUint32 - r*7)) }},
		{"i64", arrow.PrimitiveTypes.Int64, func(b array.Builder, r int) { b.(*array.Int64Builder).Append(int64(r%50) - 1<<62) }},
		{"u64", arrow.PrimitiveTypes.Uint64, func(b array.Builder, r int) { b.(*array.Uint64Builder).Append(math.MaxUint64 - uint64(r%1000)) }},
		{"f16", arrow.FixedWidthTypes.Float16, func(b array.Builder, r int) {
			b.(*array.Float16Builder).Append(float16.New(float32(r%300) / 8))
		}},
		{"f32", arrow.PrimitiveTypes.Float32, func(b array.Builder, r int) { b.(*array.Float32Builder).Append(float32(r) / 3) }},
		{"f64", arrow.PrimitiveTypes.Float64, func(b array.Builder, r int) {
			v := []float64{math.Inf(1), math.Inf(-1), math.NaN(), -0.0, math.SmallestNonzeroFloat64}
			if r < len(v) {
				b.(*array.Float64Builder).Append(v[r])
				return
			}
			b.(*array.Float64Builder).Append(float64(r%500) * 1.25)
		}},
		{"bool", arrow.FixedWidthTypes.Boolean, func(b array.Builder, r int) { b.(*array.BooleanBuilder).Append(r%5 < 2) }},
		{"text", arrow.BinaryTypes.String, func(b array.Builder, r int) {
			b.(*array.StringBuilder).Append(fmt.Sprintf("job-%d-é\u202e<x>", r%700))
		}},
		{"unique", arrow.BinaryTypes.String, func(b array.Builder, r int) {
			b.(*array.StringBuilder).Append(strings.Repeat("u", r%9) + fmt.Sprint(r))
		}},
		{"large", arrow.BinaryTypes.LargeString, func(b array.Builder, r int) {
			b.(*array.LargeStringBuilder).Append(fmt.Sprint("L", r%13))
		}},
	}
	var fields []arrow.Field
	var arrays []arrow.Array
	for _, c := range cols {
		for _, nullable := range []string{"", "_null", "_nonull"} {
			b := array.NewBuilder(mem, c.typ)
			for r := range rows {
				if nullable == "_null" && r%3 == 1 {
					b.AppendNull()
					continue
				}
				c.add(b, r)
			}
			fields = append(fields, arrow.Field{Name: c.name + nullable, Type: c.typ, Nullable: nullable != ""})
			arrays = append(arrays, b.NewArray())
			b.Release()
		}
	}
	fields = append(fields, arrow.Field{Name: "nothing", Type: arrow.Null, Nullable: true})
	arrays = append(arrays, array.MakeArrayOfNull(mem, arrow.Null, rows))
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrays, int64(rows))
}

// pqarrowFile writes rec as pqarrow writes it, with the given writer and
// Arrow writer properties (props nil for the defaults).
func pqarrowFile(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties, arrowProps pqarrow.ArrowWriterProperties) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, arrowProps)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeParquet reads every type it reads as pqarrow does, over files
// that pqarrow writes with each layout arrow-go offers: dictionary and
// plain pages, version 1 and 2 pages, several row groups and pages, each
// codec, and with the Arrow schema stored.
func TestDecodeParquetReadsAsPqarrow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  int
		props []parquet.WriterProperty
		arrow []pqarrow.WriterOption
	}{
		{name: "default", rows: 1000},
		{name: "empty", rows: 0},
		{name: "one row", rows: 1},
		{name: "row groups", rows: 5000, props: []parquet.WriterProperty{parquet.WithMaxRowGroupLength(777)}},
		{name: "small pages", rows: 20_000, props: []parquet.WriterProperty{parquet.WithDataPageSize(512), parquet.WithCompression(compress.Codecs.Snappy)}},
		{name: "plain", rows: 3000, props: []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{name: "v2 pages zstd", rows: 3000, props: []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd)}},
		{name: "v2 pages gzip plain", rows: 3000, props: []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Gzip), parquet.WithDictionaryDefault(false)}},
		{name: "dictionary fallback", rows: 70_000, props: []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(4096)}},
		{name: "stored schema", rows: 2000, arrow: []pqarrow.WriterOption{pqarrow.WithStoreSchema()}},
		{name: "buffered pages", rows: 100_000, props: []parquet.WriterProperty{parquet.WithMaxRowGroupLength(30_000), parquet.WithDataPageSize(4096)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := allTypesRecord(tc.rows)
			defer rec.Release()
			data := pqarrowFile(t, rec, parquet.NewWriterProperties(tc.props...), pqarrow.NewArrowWriterProperties(tc.arrow...))
			if err := readBoth(data); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A batch read gives the rows of the whole read, whatever the batch's
// size against the row groups and pages.
func TestParquetColumnsReadInBatches(t *testing.T) {
	rec := allTypesRecord(10_000)
	defer rec.Release()
	data := pqarrowFile(t, rec, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(3001), parquet.WithDataPageSize(1024)), pqarrow.DefaultWriterProps())
	whole, err := decodeParquet(bytes.NewReader(data), int64(len(data)), "t.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int64{1, 999, 3001, 4096, 10_000, 1 << 20} {
		pf := openParquet(t, data)
		cols, err := parquetColumns(pf, "t.parquet")
		if err != nil {
			t.Fatal(err)
		}
		row := 0
		for cols[0].rows > 0 {
			newRead(cols)
			for i, c := range cols {
				a, err := c.read(batch)
				if err != nil {
					t.Fatalf("batch %d, column %q: %v", batch, c.field.Name, err)
				}
				want := array.NewSlice(whole.cols[i], int64(row), int64(row+a.Len()))
				if err := sameValues(a, want); err != nil {
					t.Fatalf("batch %d, column %q from row %d: %v", batch, c.field.Name, row+1, err)
				}
				if i == len(cols)-1 {
					row += a.Len()
				}
			}
		}
		if row != whole.rows {
			t.Fatalf("batch %d: %d rows read, %d in the table", batch, row, whole.rows)
		}
	}
}

// A column of a type optimus tables do not take is refused as the file is
// read, with an error naming the file, the column and its type; so is a
// column of such a type that the stored Arrow schema gives (a duration
// stored as INT64).
func TestDecodeParquetRefusesOtherTypes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		typ   arrow.DataType
		value func(b array.Builder)
		store bool
		want  string
	}{
		{"timestamp", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
			func(b array.Builder) { b.(*array.TimestampBuilder).Append(1) }, false, "has Parquet type INT64 Timestamp"},
		{"date", arrow.FixedWidthTypes.Date32, func(b array.Builder) { b.(*array.Date32Builder).Append(1) }, false, "has Parquet type INT32 Date"},
		{"decimal", &arrow.Decimal128Type{Precision: 10, Scale: 2},
			func(b array.Builder) { b.(*array.Decimal128Builder).Append(decimal128.FromI64(5)) }, false, "Decimal"},
		{"binary", arrow.BinaryTypes.Binary, func(b array.Builder) { b.(*array.BinaryBuilder).Append([]byte{0xff}) }, false, "has type binary"},
		{"list", arrow.ListOf(arrow.PrimitiveTypes.Int64), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Int64Builder).Append(1)
		}, false, "optimus tables are flat"},
		{"struct", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64}), func(b array.Builder) {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(1)
		}, false, "optimus tables are flat"},
		// pqarrow writes no duration: an INT64 column whose stored Arrow
		// type is one, as pyarrow writes it.
		{"duration", arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).Append(5) }, true, "has type duration[ms]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := array.NewBuilder(mem, tc.typ)
			tc.value(b)
			a := b.NewArray()
			fields := []arrow.Field{{Name: "node", Type: arrow.BinaryTypes.String}, {Name: "x_" + tc.name, Type: tc.typ, Nullable: true}}
			var meta *arrow.Metadata
			if tc.store {
				stored := slices.Clone(fields)
				stored[1].Type = arrow.FixedWidthTypes.Duration_ms
				var ipcBuf bytes.Buffer
				iw := ipc.NewWriter(&ipcBuf, ipc.WithSchema(arrow.NewSchema(stored, nil)))
				if err := iw.Close(); err != nil {
					t.Fatal(err)
				}
				m := arrow.NewMetadata([]string{"ARROW:schema"}, []string{base64.StdEncoding.EncodeToString(ipcBuf.Bytes())})
				meta = &m
			}
			sc := arrow.NewSchema(fields, meta)
			nb := array.NewStringBuilder(mem)
			nb.Append("n1")
			rec := array.NewRecordBatch(sc, []arrow.Array{nb.NewArray(), a}, 1)
			_, err := Decode(pqarrowFile(t, rec, nil, pqarrow.DefaultWriterProps()), Parquet, "in.parquet", nil)
			var e *Error
			if !errors.As(err, &e) || e.Source != "in.parquet" || !strings.Contains(err.Error(), tc.want) ||
				tc.want != "optimus tables are flat" && e.Column != "x_"+tc.name {
				t.Fatalf("got %v (%#v), want an error of in.parquet, column x_%s, saying %q", err, e, tc.name, tc.want)
			}
		})
	}
}

// Damaged files (random bytes overwritten in files of every type and
// layout) are refused with an error or read as a table that writes and
// reads back, never a panic in optimus' code (checkRead, as the fuzzers
// check).
func TestParquetSurvivesDamage(t *testing.T) {
	seeds := seedInputs(t, Parquet)[:len(seedTables)]
	rec := allTypesRecord(300)
	defer rec.Release()
	seeds = append(seeds, pqarrowFile(t, rec, parquet.NewWriterProperties(parquet.WithDataPageSize(256), parquet.WithMaxRowGroupLength(100)), pqarrow.DefaultWriterProps()))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		b := bytes.Clone(seeds[rng.IntN(len(seeds))])
		// Half the damage in the footer (the schema and the row groups'
		// claims), none in its length and magic.
		footer := min(len(b)-8, int(binary.LittleEndian.Uint32(b[len(b)-8:])))
		for range 1 + rng.IntN(4) {
			at := rng.IntN(len(b) - 8)
			if rng.IntN(2) == 0 {
				at = len(b) - 9 - rng.IntN(footer)
			}
			b[at] = byte(rng.IntN(256))
		}
		checkRead(t, b, Parquet, nil)
		if t.Failed() {
			t.Fatalf("damaged input %d", i)
		}
	}
}
