package table

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// encodeParquet writes rec as pqarrow.FileWriter.Write does (the same
// schema, metadata, row groups and pages, so the same bytes), but encodes
// a row group's columns side by side: each column chunk is encoded into
// its own buffer (a buffered row group) and the chunks are written out in
// column order when the row group closes. Encoding (dictionaries,
// statistics, compression) is most of a Parquet write, and one column's
// does not depend on another's. A string, int64 or float64 column's
// dictionary is built without hashing every value where that gives the
// same bytes (parquet_dictionary.go). Only flat schemas are written (every optimus
// table is one), so each column is one leaf and its definition levels are
// its validity.
func encodeParquet(w io.Writer, rec arrow.RecordBatch, props *parquet.WriterProperties) error {
	sc := rec.Schema()
	root, err := parquetSchema(sc, props)
	if err != nil {
		return err
	}
	meta := make(metadata.KeyValueMetadata, 0, sc.Metadata().Len())
	for i, k := range sc.Metadata().Keys() {
		meta.Append(k, sc.Metadata().Values()[i])
	}
	fw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return err
	}
	if rec.NumRows() == 0 {
		// pqarrow writes an empty table as one row group without rows,
		// through a serial row group, whose bytes a buffered one does not
		// give; there is nothing to encode side by side anyway.
		rgw, err := fw.AppendRowGroupChecked()
		if err != nil {
			return err
		}
		for range rec.NumCols() {
			if _, err := rgw.NextColumn(); err != nil {
				return err
			}
		}
		if err := rgw.Close(); err != nil {
			return err
		}
		return fw.Close()
	}
	n, groupRows := rec.NumRows(), props.MaxRowGroupLength()
	for off := int64(0); off < n; off += groupRows {
		size := min(groupRows, n-off)
		rgw, err := fw.AppendBufferedRowGroupChecked()
		if err != nil {
			return err
		}
		if err := encodeRowGroup(rgw, rec, off, size); err != nil {
			return err
		}
		if err := rgw.Close(); err != nil {
			return err
		}
	}
	return fw.Close()
}

// parquetSchema is the Parquet schema pqarrow.ToParquet gives a flat
// schema of the column types optimus tables hold (and the other integer
// and float types the reader reads): each field a leaf, optional when
// nullable, without a field id.
func parquetSchema(sc *arrow.Schema, props *parquet.WriterProperties) (*schema.GroupNode, error) {
	nodes := make(schema.FieldList, 0, sc.NumFields())
	for _, f := range sc.Fields() {
		var typ parquet.Type
		var logical schema.LogicalType = schema.NoLogicalType{}
		switch f.Type.ID() {
		case arrow.STRING:
			typ, logical = parquet.Types.ByteArray, schema.StringLogicalType{}
		case arrow.INT64:
			typ, logical = parquet.Types.Int64, schema.NewIntLogicalType(64, true)
		case arrow.UINT64:
			typ, logical = parquet.Types.Int64, schema.NewIntLogicalType(64, false)
		case arrow.INT8, arrow.INT16, arrow.INT32:
			typ, logical = parquet.Types.Int32, schema.NewIntLogicalType(int8(f.Type.(arrow.FixedWidthDataType).BitWidth()), true)
		case arrow.UINT8, arrow.UINT16, arrow.UINT32:
			typ, logical = parquet.Types.Int32, schema.NewIntLogicalType(int8(f.Type.(arrow.FixedWidthDataType).BitWidth()), false)
		case arrow.FLOAT64:
			typ = parquet.Types.Double
		case arrow.FLOAT32:
			typ = parquet.Types.Float
		case arrow.BOOL:
			typ = parquet.Types.Boolean
		default:
			return nil, fmt.Errorf("column %q has type %s, which optimus does not write", f.Name, f.Type)
		}
		rep := parquet.Repetitions.Required
		if f.Nullable {
			rep = parquet.Repetitions.Optional
		}
		node, err := schema.NewPrimitiveNodeLogical(f.Name, rep, logical, typ, -1, -1)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, node)
	}
	return schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
}

// encodeRowGroup encodes rows [off, off+size) of every column of rec into
// rgw's column chunks, on up to GOMAXPROCS goroutines, and closes each
// chunk as soon as it and the chunks before it are encoded. Closing a
// chunk builds and compresses its dictionary page and copies the chunk to
// the file, so the chunks must close in column order, as the row group's
// Close would close them (it then finds them closed); closing them here,
// while later columns are still being encoded, takes that work off the
// serial end of the row group.
func encodeRowGroup(rgw file.BufferedRowGroupWriter, rec arrow.RecordBatch, off, size int64) error {
	n := int(rec.NumCols())
	errs := make([]error, n)
	encoded := make([]chan struct{}, n)
	for i := range encoded {
		encoded[i] = make(chan struct{})
	}
	closed := make(chan error, 1)
	go func() {
		for i := range n {
			<-encoded[i]
			if errs[i] != nil {
				closed <- errs[i]
				return
			}
			cw, err := rgw.Column(i)
			if err == nil {
				err = cw.Close()
			}
			if err != nil {
				closed <- err
				return
			}
		}
		closed <- nil
	}()
	forEachColumn(n, func(i int) {
		defer close(encoded[i])
		errs[i] = encodeColumn(rgw, i, rec.Schema().Field(i), rec.Column(i), off, size)
	})
	return <-closed
}

// encodeColumn writes rows [off, off+size) of column i, whose field is f.
func encodeColumn(rgw file.BufferedRowGroupWriter, i int, f arrow.Field, col arrow.Array, off, size int64) error {
	cw, err := rgw.Column(i)
	if err != nil {
		return err
	}
	values := array.NewSlice(col, off, off+size)
	defer values.Release()
	var defLevels []int16
	if f.Nullable {
		defLevels = make([]int16, values.Len())
		for r := range defLevels {
			if values.IsValid(r) {
				defLevels[r] = 1
			}
		}
	}
	done, err := writeDictionary(cw, values, defLevels)
	if err != nil {
		return err
	}
	if !done {
		if err := writePlain(cw, values, defLevels); err != nil {
			return err
		}
	}
	return flushLastPage(cw)
}

// writePlain writes a column's values as pqarrow.WriteArrowToColumn does
// for a flat column: a batch of every value, or of the non-null values
// spread over the rows (WriteBatchSpaced) when some are null. The column
// writer chooses the encoding (dictionary or plain) and the pages.
func writePlain(cw file.ColumnChunkWriter, values arrow.Array, defLevels []int16) error {
	noNulls := values.NullN() == 0 || cw.Descr().SchemaNode().RepetitionType() == parquet.Repetitions.Required
	nulls, offset := values.NullBitmapBytes(), int64(values.Data().Offset())
	var err error
	switch wr := cw.(type) {
	case *file.Int32ColumnChunkWriter:
		data, ok := widened(values)
		if !ok {
			return fmt.Errorf("column %q: no INT32 writer for type %s", cw.Descr().Name(), values.DataType())
		}
		err = writeBatch(wr, data, defLevels, noNulls, nulls, offset)
	case *file.Float32ColumnChunkWriter:
		data := values.(*array.Float32).Float32Values()
		err = writeBatch(wr, data, defLevels, noNulls, nulls, offset)
	case *file.Int64ColumnChunkWriter:
		var data []int64
		switch v := values.(type) {
		case *array.Int64:
			data = v.Int64Values()
		case *array.Uint64:
			data = arrow.Int64Traits.CastFromBytes(bytesOfSlice(v.Uint64Values()))
		default:
			return fmt.Errorf("column %q: no INT64 writer for type %s", cw.Descr().Name(), values.DataType())
		}
		err = writeBatch(wr, data, defLevels, noNulls, nulls, offset)
	case *file.Float64ColumnChunkWriter:
		data := values.(*array.Float64).Float64Values()
		err = writeBatch(wr, data, defLevels, noNulls, nulls, offset)
	case *file.BooleanColumnChunkWriter:
		b := values.(*array.Boolean)
		if noNulls {
			_, err = wr.WriteBitmapBatch(b.Data().Buffers()[1].Bytes(), offset, b.Len(), defLevels, nil)
			break
		}
		data := make([]bool, b.Len())
		for r := range data {
			data[r] = b.Value(r)
		}
		_, err = wr.WriteBatchSpacedWithError(data, defLevels, nil, nulls, offset)
	case *file.ByteArrayColumnChunkWriter:
		s := values.(*array.String)
		buf := []byte{}
		if b := s.Data().Buffers()[2]; b != nil {
			buf = b.Bytes()
		}
		offsets := s.ValueOffsets()
		if wr.SupportsArrowOffsets() {
			if noNulls {
				_, err = wr.WriteBatchArrow(buf, offsets, defLevels, nil)
			} else {
				_, err = wr.WriteBatchSpacedArrow(buf, offsets, defLevels, nil, nulls, offset)
			}
			break
		}
		data := make([]parquet.ByteArray, s.Len())
		for r := range data {
			data[r] = parquet.ByteArray(buf[offsets[r]:offsets[r+1]])
		}
		err = writeBatch(wr, data, defLevels, noNulls, nulls, offset)
	default:
		return fmt.Errorf("column %q: no writer for type %s", cw.Descr().Name(), values.DataType())
	}
	return err
}

// batchWriter is a typed column writer (Int32ColumnChunkWriter and the
// others arrow-go generates) for values of type T.
type batchWriter[T any] interface {
	WriteBatch(values []T, defLevels, repLevels []int16) (int64, error)
	WriteBatchSpacedWithError(values []T, defLevels, repLevels []int16, validBits []byte, validBitsOffset int64) (int64, error)
}

// writeBatch writes data, every row's value, or only the valid rows'
// values as the validity bitmap nulls (from bit offset) marks them.
func writeBatch[T any](wr batchWriter[T], data []T, defLevels []int16, noNulls bool, nulls []byte, offset int64) error {
	var err error
	if noNulls {
		_, err = wr.WriteBatch(data, defLevels, nil)
	} else {
		_, err = wr.WriteBatchSpacedWithError(data, defLevels, nil, nulls, offset)
	}
	return err
}

// flushLastPage builds and compresses the column chunk's last, partly
// filled data page now, beside the other columns, instead of when the row
// group closes, where the columns are closed one after another. It is the
// page Close would build: Close then finds no value left to flush, and
// still writes the dictionary page before the buffered data pages. Whether
// values are left is read from the page's statistics; without statistics
// the page is left to Close.
func flushLastPage(cw file.ColumnChunkWriter) error {
	flusher, ok := cw.(interface{ FlushCurrentPage() error })
	st := cw.PageStatistics()
	if !ok || st == nil || st.NumValues()+st.NullCount() == 0 {
		return nil
	}
	return flusher.FlushCurrentPage()
}

// widened is an integer column stored as INT32, as int32 values.
func widened(values arrow.Array) ([]int32, bool) {
	switch v := values.(type) {
	case *array.Int32:
		return v.Int32Values(), true
	case *array.Uint32:
		return arrow.Int32Traits.CastFromBytes(bytesOfSlice(v.Uint32Values())), true
	case *array.Int16:
		return widen(v.Int16Values()), true
	case *array.Uint16:
		return widen(v.Uint16Values()), true
	case *array.Int8:
		return widen(v.Int8Values()), true
	case *array.Uint8:
		return widen(v.Uint8Values()), true
	}
	return nil, false
}

func widen[T int8 | int16 | uint8 | uint16](vals []T) []int32 {
	out := make([]int32, len(vals))
	for i, v := range vals {
		out[i] = int32(v)
	}
	return out
}
