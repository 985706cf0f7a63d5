package table

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// String columns whose chunks are dictionary-encoded are read as
// dictionaries (the indices and each chunk's distinct values) and then
// written out once into a string array sized from them: arrow-go's
// decoder otherwise gathers each value into a builder that grows by
// doubling, copying the column's bytes again at each step, which was most
// of reading a table of per-job or per-task names. Other string columns
// (plain pages: mostly distinct names) are decoded as before.

// readStringsAsDictionaries marks, in props, the leaf columns of md that
// are strings and dictionary-encoded in every row group (by the chunks'
// page encoding statistics), and reports which. The statistics are a
// hint: a chunk whose pages say otherwise still reads correctly, as
// arrow-go's dictionary reader takes plain pages too.
func readStringsAsDictionaries(md *metadata.FileMetaData, props *pqarrow.ArrowReadProperties) []bool {
	n := md.Schema.NumColumns()
	marked := make([]bool, n)
	if md.NumRowGroups() == 0 || md.Schema.Root().NumFields() != n {
		return marked // no rows, or not one leaf column per field
	}
	for i := range n {
		col := md.Schema.Column(i)
		if col.PhysicalType() != parquet.Types.ByteArray || col.MaxRepetitionLevel() != 0 {
			continue
		}
		if _, ok := col.LogicalType().(schema.StringLogicalType); !ok {
			continue
		}
		marked[i] = true
		for g := range md.NumRowGroups() {
			cc, err := md.RowGroup(g).ColumnChunk(i)
			if err != nil || !dictionaryPagesOnly(cc) {
				marked[i] = false
				break
			}
		}
		if marked[i] {
			props.SetReadDict(i, true)
		}
	}
	// Only a dictionary of strings (not large strings, as a file's Arrow
	// schema may say) becomes a string array here.
	sc, err := pqarrow.FromParquet(md.Schema, props, md.KeyValueMetadata())
	for i := range marked {
		if !marked[i] {
			continue
		}
		if err != nil || sc.NumFields() != n || !arrow.TypeEqual(sc.Field(i).Type, stringDictionary) {
			marked[i] = false
			props.SetReadDict(i, false)
		}
	}
	return marked
}

// stringDictionary is how arrow-go reads a string column as a dictionary.
var stringDictionary = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// dictionaryPagesOnly reports whether a chunk's data pages are all
// dictionary-encoded, by its encoding statistics.
func dictionaryPagesOnly(cc *metadata.ColumnChunkMetaData) bool {
	stats := cc.EncodingStats()
	if !cc.HasDictionaryPage() || len(stats) == 0 {
		return false
	}
	data := 0
	for _, s := range stats {
		switch s.PageType {
		case 0, 3: // DATA_PAGE, DATA_PAGE_V2
			if !isDictionaryEncoding(s.Encoding) {
				return false
			}
			data++
		}
	}
	return data > 0
}

// denseStrings is the string array of the dictionary chunks' values, in
// order, its bytes counted first so that it is built without growing.
// An index outside its chunk's dictionary is corrupt data.
func denseStrings(chunks []arrow.Array) (arrow.Array, error) {
	rows, size := 0, 0
	for _, c := range chunks {
		d, ok := c.(*array.Dictionary)
		if !ok {
			return nil, fmt.Errorf("a dictionary column's chunk has type %v", c.DataType())
		}
		dict, ok := d.Dictionary().(*array.String)
		if !ok {
			return nil, fmt.Errorf("a string column's dictionary has type %v", d.Dictionary().DataType())
		}
		idx, ok := d.Indices().(*array.Int32)
		if !ok {
			return nil, fmt.Errorf("a dictionary column's indices have type %v", d.Indices().DataType())
		}
		valid := validityOf(idx)
		entries := int32(dict.Len())
		for r, k := range idx.Int32Values() {
			if valid.null(r) {
				continue
			}
			if k < 0 || k >= entries {
				return nil, fmt.Errorf("row %d: dictionary index %d of a dictionary of %d values", rows+r+1, k, entries)
			}
			size += dict.ValueLen(int(k))
		}
		rows += d.Len()
	}
	if size > math.MaxInt32 {
		// Offsets that overflow: the builder's, with its error.
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(rows)
		b.ReserveData(size)
		for _, c := range chunks {
			d := c.(*array.Dictionary)
			dict, idx := d.Dictionary().(*array.String), d.Indices().(*array.Int32)
			valid := validityOf(idx)
			for r, k := range idx.Int32Values() {
				if valid.null(r) {
					b.AppendNull()
				} else {
					b.Append(dict.Value(int(k)))
				}
			}
		}
		return b.NewArray(), nil
	}
	// The offsets, bytes and validity bitmap written as the builder's
	// Append and AppendNull write them (see SetStringsRepeated), without a
	// call per row.
	offsets := make([]int32, rows+1)
	data := make([]byte, 0, size)
	bitmap := builderBitmap(rows)
	row, nulls := 0, 0
	for _, c := range chunks {
		d := c.(*array.Dictionary)
		dict, idx := d.Dictionary().(*array.String), d.Indices().(*array.Int32)
		valid := validityOf(idx)
		if valid.bitmap == nil {
			bitutil.SetBitsTo(bitmap, int64(row), int64(idx.Len()), true)
		}
		for r, k := range idx.Int32Values() {
			if valid.null(r) {
				nulls++
			} else {
				if valid.bitmap != nil {
					bitutil.SetBit(bitmap, row)
				}
				data = append(data, dict.Value(int(k))...)
			}
			row++
			offsets[row] = int32(len(data))
		}
	}
	a := array.NewData(arrow.BinaryTypes.String, rows, []*memory.Buffer{memory.NewBufferBytes(bitmap),
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(data)}, nil, nulls, 0)
	defer a.Release()
	return array.MakeFromData(a), nil
}
