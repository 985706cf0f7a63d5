package table

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A Parquet file is decoded here leaf column by leaf column, straight from
// arrow-go's typed column chunk readers (parquet/file) into arrays
// allocated once at their final length: the row groups' row counts, which
// checkParquetClaims has held to the pages. Only flat columns of the types
// an optimus table can take are read: text, integers, floating point,
// booleans, and columns of nothing but nulls. Any other column is refused,
// naming its type, as conform refuses such a column of an Arrow input.
//
// Each column is read as arrow-go's own Arrow reader (pqarrow) reads it,
// to the same Arrow type and values, but pqarrow is not linked: it imports
// arrow/flight for a schema's serialisation, and with it gRPC and
// protobuf, whose initialisation every command paid at start-up
// (benchmarks/tables-session13.md). The tests read every file with
// pqarrow as well and compare.

// parquetPiece bounds the rows read in one call of a column chunk reader
// where levels or values pass through a scratch buffer.
const parquetPiece = 1 << 16

// textGrant is the step in which a column takes its text's bytes from the
// read's budget.
const textGrant = 64 << 10

// parquetColumn is one leaf column of a Parquet file, read row group by
// row group in pieces of rows.
type parquetColumn struct {
	pf     *file.Reader
	source string
	index  int
	field  arrow.Field
	maxDef int16
	groups []int // row groups not yet opened, in order
	group  int   // the open row group (for messages)
	cr     file.ColumnChunkReader
	left   int64 // rows of the open row group not yet read
	rows   int64 // rows of the column not yet read
	// text is what is left of the memory budget for the text of a read
	// (the whole file's, or a batch's), shared by the columns
	// (checkParquetClaims counted the rest); granted is what this column
	// took of it and has not filled yet.
	text    *atomic.Int64
	granted int64
	defs    []int16
}

// parquetColumns opens every leaf column of pf for reading, each with the
// Arrow field it is read as. A file that is not flat, or a column of a
// type optimus tables do not take, is refused.
func parquetColumns(pf *file.Reader, source string) ([]*parquetColumn, error) {
	md := pf.MetaData()
	sc := md.Schema
	n := sc.NumColumns()
	for i := range sc.Root().NumFields() {
		if f := sc.Root().Field(i); f.Type() != schema.Primitive || i >= n {
			return nil, &Error{Source: source, Column: f.Name(), Msg: "is a nested column (a struct, a list or a map): optimus tables are flat"}
		}
	}
	if sc.Root().NumFields() != n {
		return nil, Errorf(source, "has %d leaf columns in %d fields: optimus tables are flat", n, sc.Root().NumFields())
	}
	var stored *arrow.Schema
	if v := md.KeyValueMetadata().FindValue("ARROW:schema"); v != nil {
		stored = storedArrowSchema(*v, n)
	}
	var groups []int
	var rows int64
	for g := range pf.NumRowGroups() {
		if r := md.RowGroup(g).NumRows(); r > 0 {
			groups = append(groups, g)
			rows += r
		}
	}
	text := new(atomic.Int64)
	text.Store(MemoryBudget())
	cols := make([]*parquetColumn, n)
	for i := range n {
		descr := sc.Column(i)
		if descr.MaxRepetitionLevel() != 0 {
			return nil, &Error{Source: source, Column: descr.Name(), Msg: "is a repeated (list) column: optimus tables are flat"}
		}
		typ, err := parquetArrowType(descr)
		if err == nil && stored != nil {
			err = storedTypeFits(stored.Field(i), descr.Name())
		}
		if err != nil {
			return nil, &Error{Source: source, Column: descr.Name(), Msg: err.Error()}
		}
		cols[i] = &parquetColumn{
			pf: pf, source: source, index: i,
			field:  arrow.Field{Name: descr.Name(), Type: typ, Nullable: descr.SchemaNode().RepetitionType() == parquet.Repetitions.Optional},
			maxDef: descr.MaxDefinitionLevel(),
			groups: groups, group: -1, rows: rows, text: text,
		}
	}
	return cols, nil
}

// parquetArrowType is the Arrow type pqarrow reads a flat leaf column as,
// for the types an optimus table can take (see naturalType), or an error
// saying which type the column has.
func parquetArrowType(c *schema.Column) (arrow.DataType, error) {
	lt := c.LogicalType()
	if !lt.IsValid() || lt.Equals(schema.NullLogicalType{}) {
		return arrow.Null, nil
	}
	switch c.PhysicalType() {
	case parquet.Types.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case parquet.Types.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case parquet.Types.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case parquet.Types.Int32:
		if lt.IsNone() {
			return arrow.PrimitiveTypes.Int32, nil
		}
		if it, ok := lt.(schema.IntLogicalType); ok && it.BitWidth() <= 32 {
			if t := intType(it); t != nil {
				return t, nil
			}
		}
	case parquet.Types.Int64:
		if lt.IsNone() {
			return arrow.PrimitiveTypes.Int64, nil
		}
		if it, ok := lt.(schema.IntLogicalType); ok && it.BitWidth() == 64 {
			if t := intType(it); t != nil {
				return t, nil
			}
		}
	case parquet.Types.ByteArray:
		if _, ok := lt.(schema.StringLogicalType); ok {
			return arrow.BinaryTypes.String, nil
		}
		if lt.IsNone() {
			return nil, fmt.Errorf("has type binary (Parquet BYTE_ARRAY without a String annotation), which optimus tables do not use (string, int64, float64 or bool)")
		}
	case parquet.Types.FixedLenByteArray:
		if _, ok := lt.(schema.Float16LogicalType); ok && c.TypeLength() == 2 {
			return arrow.FixedWidthTypes.Float16, nil
		}
	}
	what := c.PhysicalType().String()
	if !lt.IsNone() {
		what += " " + lt.String()
	}
	return nil, fmt.Errorf("has Parquet type %s, which optimus tables do not use (string, int64, float64 or bool)", what)
}

// intType is the Arrow integer type of a Parquet integer annotation, or
// nil for a width that is none of 8, 16, 32 and 64.
func intType(it schema.IntLogicalType) arrow.DataType {
	signed := map[int8]arrow.DataType{8: arrow.PrimitiveTypes.Int8, 16: arrow.PrimitiveTypes.Int16,
		32: arrow.PrimitiveTypes.Int32, 64: arrow.PrimitiveTypes.Int64}
	unsigned := map[int8]arrow.DataType{8: arrow.PrimitiveTypes.Uint8, 16: arrow.PrimitiveTypes.Uint16,
		32: arrow.PrimitiveTypes.Uint32, 64: arrow.PrimitiveTypes.Uint64}
	if it.IsSigned() {
		return signed[it.BitWidth()]
	}
	return unsigned[it.BitWidth()]
}

// storedArrowSchema is the Arrow schema a writer such as pyarrow or
// pqarrow stored in the file's metadata (base64 of an IPC stream without
// batches), or nil when there is none or it does not describe n columns.
// pqarrow reads a column as the stored type where the two agree, so a
// stored type optimus tables do not take (a duration kept as INT64, say)
// is refused here as pqarrow's reading of it would be by conform.
func storedArrowSchema(encoded string, n int) *arrow.Schema {
	if encoded == "" {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(encoded); err != nil {
			return nil
		}
	}
	sc, err := ipcSchema(raw)
	if err != nil || sc.NumFields() != n {
		return nil
	}
	return sc
}

// storedTypeFits checks a column's stored Arrow type: one that an optimus
// table can take (a dictionary by its values), or an error naming it.
func storedTypeFits(f arrow.Field, name string) error {
	if f.Name != name {
		return nil // not the schema of these columns
	}
	t := f.Type
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.ValueType
	}
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.BOOL, arrow.NULL:
		return nil
	}
	if isNumeric(t) {
		return nil
	}
	return fmt.Errorf("has type %s, which optimus tables do not use (string, int64, float64 or bool)", f.Type)
}

// newRead gives the next read of cols (a batch) the whole memory budget
// for its text: the batches before it are released.
func newRead(cols []*parquetColumn) {
	if len(cols) > 0 {
		cols[0].text.Store(MemoryBudget())
	}
	for _, c := range cols {
		c.granted = 0
	}
}

// read decodes the column's next n rows, or as many as are left, into one
// array of the column's type.
func (c *parquetColumn) read(n int64) (arrow.Array, error) {
	n = min(n, c.rows)
	switch c.field.Type.ID() {
	case arrow.NULL:
		return array.MakeArrayOfNull(mem, arrow.Null, int(n)), c.skip(n)
	case arrow.BOOL:
		vals := make([]bool, n)
		valid, nulls, err := readFixed(c, vals)
		if err != nil {
			return nil, err
		}
		bits := make([]byte, bitutil.BytesForBits(n))
		for i, v := range vals {
			if v {
				bitutil.SetBit(bits, i)
			}
		}
		return arrayOf(c.field.Type, int(n), valid, nulls, bits), nil
	case arrow.FLOAT32:
		return fixedArray[float32](c, n)
	case arrow.FLOAT64:
		return fixedArray[float64](c, n)
	case arrow.INT64:
		return fixedArray[int64](c, n)
	case arrow.UINT64:
		return castArray(c, n, func(v int64) uint64 { return uint64(v) })
	case arrow.INT32:
		return fixedArray[int32](c, n)
	case arrow.UINT32:
		return castArray(c, n, func(v int32) uint32 { return uint32(v) })
	case arrow.INT16:
		return castArray(c, n, func(v int32) int16 { return int16(v) })
	case arrow.UINT16:
		return castArray(c, n, func(v int32) uint16 { return uint16(v) })
	case arrow.INT8:
		return castArray(c, n, func(v int32) int8 { return int8(v) })
	case arrow.UINT8:
		return castArray(c, n, func(v int32) uint8 { return uint8(v) })
	case arrow.FLOAT16:
		return c.readFloat16(n)
	case arrow.STRING:
		return c.readStrings(n)
	}
	return nil, fmt.Errorf("column %q: no reader for type %s", c.field.Name, c.field.Type)
}

// pieces calls each for the next n rows of the column (n at most the rows
// left), in pieces of at most limit rows that each lie in one row group:
// each reads rows [at, at+k) of the n from cr.
func (c *parquetColumn) pieces(n, limit int64, each func(cr file.ColumnChunkReader, at, k int64) error) error {
	for at := int64(0); at < n; {
		if c.left == 0 {
			if err := c.open(); err != nil {
				return err
			}
			continue
		}
		k := min(n-at, c.left, limit)
		if err := each(c.cr, at, k); err != nil {
			return err
		}
		at += k
		c.left -= k
		c.rows -= k
	}
	return nil
}

// open opens the column's chunk in its next row group.
func (c *parquetColumn) open() error {
	c.close()
	if len(c.groups) == 0 {
		return fmt.Errorf("column %q has fewer rows than its row groups claim", c.field.Name)
	}
	c.group, c.groups = c.groups[0], c.groups[1:]
	rg := c.pf.RowGroup(c.group)
	cr, err := rg.Column(c.index)
	if err != nil {
		return err
	}
	c.cr, c.left = cr, rg.NumRows()
	return nil
}

// close releases the open column chunk reader (its page buffers).
func (c *parquetColumn) close() {
	if c.cr != nil {
		c.cr.Close()
		c.cr = nil
	}
}

// short is the error of a column chunk whose pages end before its rows.
func (c *parquetColumn) short(want, got int64) error {
	return fmt.Errorf("column %q of row group %d: %d rows decoded where %d were due", c.field.Name, c.group+1, got, want)
}

// skip passes over the next n rows of an all-null column without decoding
// them: every one is null whatever its pages hold.
func (c *parquetColumn) skip(n int64) error {
	return c.pieces(n, math.MaxInt64, func(file.ColumnChunkReader, int64, int64) error { return nil })
}

// levels returns the scratch for k definition levels, or nil for a
// required column (it has none).
func (c *parquetColumn) levels(k int64) []int16 {
	if c.maxDef == 0 {
		return nil
	}
	if int64(cap(c.defs)) < k {
		c.defs = make([]int16, k)
	}
	return c.defs[:k]
}

// batchReader is a typed column chunk reader of values of type T.
type batchReader[T any] interface {
	ReadBatch(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
}

// readFixed reads the column's next len(vals) rows into vals, null rows
// as T's zero, and returns the validity bitmap (nil without nulls) and the
// nulls counted.
func readFixed[T any](c *parquetColumn, vals []T) ([]byte, int, error) {
	var bits []byte
	nulls := 0
	err := c.pieces(int64(len(vals)), parquetPiece, func(cr file.ColumnChunkReader, at, k int64) error {
		r, ok := cr.(batchReader[T])
		if !ok {
			return fmt.Errorf("column %q: reader %T for values of type %T", c.field.Name, cr, vals[:0])
		}
		defs := c.levels(k)
		dst := vals[at : at+k]
		total, read, err := r.ReadBatch(k, dst, defs, nil)
		if err != nil {
			return err
		}
		if defs == nil {
			if total != k || int64(read) != k {
				return c.short(k, int64(read))
			}
			return nil
		}
		if total != k {
			return c.short(k, total)
		}
		// The values come packed, the nulls left out: spread them to
		// their rows from the end, where a value never moves back over
		// one not yet moved.
		j := read - 1
		var zero T
		for i := k - 1; i >= 0; i-- {
			if defs[i] == c.maxDef {
				if j < 0 {
					return fmt.Errorf("column %q of row group %d: fewer values than its levels say", c.field.Name, c.group+1)
				}
				dst[i] = dst[j]
				j--
				continue
			}
			dst[i] = zero
			if bits == nil {
				bits = validBitmap(int64(len(vals)))
			}
			bitutil.ClearBit(bits, int(at+i))
			nulls++
		}
		if j != -1 {
			return fmt.Errorf("column %q of row group %d: more values than its levels say", c.field.Name, c.group+1)
		}
		return nil
	})
	return bits, nulls, err
}

// fixedArray reads the column's next n rows of a type stored as it is
// decoded (int32, int64, float and double).
func fixedArray[T int32 | int64 | float32 | float64](c *parquetColumn, n int64) (arrow.Array, error) {
	vals := make([]T, n)
	valid, nulls, err := readFixed(c, vals)
	if err != nil {
		return nil, err
	}
	return arrayOf(c.field.Type, int(n), valid, nulls, bytesOfSlice(vals)), nil
}

// castArray reads the column's next n rows of a type stored wider or
// signed (an int8 as an INT32, a uint64 as an INT64), each converted.
func castArray[S int32 | int64, T int8 | int16 | uint8 | uint16 | uint32 | uint64](c *parquetColumn, n int64, cast func(S) T) (arrow.Array, error) {
	stored := make([]S, n)
	valid, nulls, err := readFixed(c, stored)
	if err != nil {
		return nil, err
	}
	vals := make([]T, n)
	for i, v := range stored {
		vals[i] = cast(v)
	}
	return arrayOf(c.field.Type, int(n), valid, nulls, bytesOfSlice(vals)), nil
}

// bytesOfSlice is the memory of a slice of fixed-width values as bytes.
func bytesOfSlice[T any](vals []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*int(unsafe.Sizeof(zero)))
}

// validBitmap is a validity bitmap of n rows, all valid.
func validBitmap(n int64) []byte {
	bits := make([]byte, bitutil.BytesForBits(n))
	bitutil.SetBitsTo(bits, 0, n, true)
	return bits
}

// arrayOf is the array of type dt of n rows with the validity bitmap valid
// (nil: no nulls) and the buffers after it.
func arrayOf(dt arrow.DataType, n int, valid []byte, nulls int, buffers ...[]byte) arrow.Array {
	bufs := []*memory.Buffer{nil}
	if valid != nil {
		bufs[0] = memory.NewBufferBytes(valid)
	}
	for _, b := range buffers {
		bufs = append(bufs, memory.NewBufferBytes(b))
	}
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// pageReader is a typed column chunk reader of byte-slice values (text or
// fixed-length), read a page at a time: the values alias the page's
// buffer, which the next page may reuse.
type pageReader[T ~[]byte] interface {
	ReadBatchInPage(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
}

// readBytes reads the column's next n rows of byte-slice values a page's
// batch at a time, calling batch with the batch's first row, its
// definition levels (nil for a required column: every row has a value)
// and its values, packed (the nulls left out), which alias the page.
func readBytes[T ~[]byte](c *parquetColumn, n int64, batch func(at int64, defs []int16, vals []T) error) error {
	var scratch []T
	return c.pieces(n, parquetPiece, func(cr file.ColumnChunkReader, at, k int64) error {
		r, ok := cr.(pageReader[T])
		if !ok {
			return fmt.Errorf("column %q: reader %T for values of type %T", c.field.Name, cr, scratch)
		}
		if int64(cap(scratch)) < k {
			scratch = make([]T, k)
		}
		defs := c.levels(k)
		for done := int64(0); done < k; {
			var d []int16
			if defs != nil {
				d = defs[:k-done]
			}
			total, read, err := r.ReadBatchInPage(k-done, scratch[:k-done], d, nil)
			if err != nil {
				return err
			}
			if total == 0 {
				return c.short(k, done)
			}
			if d != nil {
				d = d[:total]
			} else if int64(read) != total {
				return c.short(total, int64(read))
			}
			if err := batch(at+done, d, scratch[:read]); err != nil {
				return err
			}
			done += total
		}
		return nil
	})
}

// spread calls value for each row of a batch of readBytes that has a
// value (its row, the value's index) and null for each other, and checks
// that the values are as many as the levels say.
func (c *parquetColumn) spread(at int64, defs []int16, values int, value func(r int64, j int), null func(r int64)) error {
	if defs == nil {
		for j := range values {
			value(at+int64(j), j)
		}
		return nil
	}
	j := 0
	for i, d := range defs {
		if d != c.maxDef {
			null(at + int64(i))
			continue
		}
		if j == values {
			return fmt.Errorf("column %q of row group %d: fewer values than its levels say", c.field.Name, c.group+1)
		}
		value(at+int64(i), j)
		j++
	}
	if j != values {
		return fmt.Errorf("column %q of row group %d: more values than its levels say", c.field.Name, c.group+1)
	}
	return nil
}

// readStrings reads the column's next n rows of text into a string array,
// its bytes within the memory budget.
func (c *parquetColumn) readStrings(n int64) (arrow.Array, error) {
	offsets := make([]int32, n+1)
	data := make([]byte, 0, c.textHint(n))
	var valid []byte
	nulls := 0
	null := func(r int64) {
		if valid == nil {
			valid = validBitmap(n)
		}
		bitutil.ClearBit(valid, int(r))
		offsets[r+1] = int32(len(data))
		nulls++
	}
	err := readBytes(c, n, func(at int64, defs []int16, vals []parquet.ByteArray) error {
		size := int64(0)
		for _, v := range vals {
			size += int64(len(v))
		}
		end := int64(len(data)) + size
		if end > math.MaxInt32 {
			return fmt.Errorf("column %q holds more than 2 GiB of text", c.field.Name)
		}
		if c.granted < size {
			// Taken in steps, not per batch: the counter is shared.
			grant := max(textGrant, size-c.granted)
			if c.text.Add(-grant) < 0 {
				return &BudgetError{Source: c.source, Budget: MemoryBudget()}
			}
			c.granted += grant
		}
		c.granted -= size
		if end > int64(cap(data)) {
			// Grown once to what the rows so far say the column holds,
			// rather than by doubling (a dictionary's text is longer
			// than its chunk).
			rows := at + int64(len(vals))
			if defs != nil {
				rows = at + int64(len(defs))
			}
			want := end + end/max(1, rows)*(n-rows)
			grown := make([]byte, len(data), min(max(want+want/16, end), math.MaxInt32))
			copy(grown, data)
			data = grown
		}
		return c.spread(at, defs, len(vals), func(r int64, j int) {
			data = append(data, vals[j]...)
			offsets[r+1] = int32(len(data))
		}, null)
	})
	if err != nil {
		return nil, err
	}
	return arrayOf(c.field.Type, int(n), valid, nulls, bytesOfSlice(offsets), data), nil
}

// textHint is the capacity to start a column's text with: its chunks'
// uncompressed size as the footer claims it, which the text of plain
// pages does not exceed, within the budget (and the file's size many
// times over: it is a claim). Dictionary pages give less than their text,
// which then grows as it is read.
func (c *parquetColumn) textHint(n int64) int64 {
	var claimed int64
	for _, g := range append([]int{c.group}, c.groups...) {
		if g < 0 {
			continue
		}
		if cc, err := c.pf.MetaData().RowGroup(g).ColumnChunk(c.index); err == nil {
			claimed += max(0, cc.TotalUncompressedSize())
		}
	}
	if n < c.rows {
		claimed = claimed / max(1, c.rows) * n
	}
	return max(0, min(claimed, c.text.Load(), 1<<30))
}

// readFloat16 reads the column's next n rows of half-precision floats
// (FIXED_LEN_BYTE_ARRAY of 2 bytes, little-endian).
func (c *parquetColumn) readFloat16(n int64) (arrow.Array, error) {
	vals := make([]uint16, n)
	var valid []byte
	nulls := 0
	err := readBytes(c, n, func(at int64, defs []int16, fixed []parquet.FixedLenByteArray) error {
		for _, v := range fixed {
			if len(v) != 2 {
				return fmt.Errorf("column %q: a float16 value of %d bytes", c.field.Name, len(v))
			}
		}
		return c.spread(at, defs, len(fixed), func(r int64, j int) {
			vals[r] = uint16(fixed[j][0]) | uint16(fixed[j][1])<<8
		}, func(r int64) {
			if valid == nil {
				valid = validBitmap(n)
			}
			bitutil.ClearBit(valid, int(r))
			nulls++
		})
	})
	if err != nil {
		return nil, err
	}
	return arrayOf(c.field.Type, int(n), valid, nulls, bytesOfSlice(vals)), nil
}

// ipcSchema is the schema of an Arrow IPC stream. A corrupt one is an
// error, not a panic.
func ipcSchema(raw []byte) (sc *arrow.Schema, err error) {
	err = guard(func() error {
		r, err := ipc.NewReader(bytes.NewReader(raw), ipcLimits(raw)...)
		if err != nil {
			return err
		}
		defer r.Release()
		sc = r.Schema()
		return nil
	})
	return sc, err
}
