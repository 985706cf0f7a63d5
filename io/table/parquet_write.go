package table

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
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
	arrowProps := pqarrow.DefaultWriterProps()
	if rec.NumRows() == 0 {
		// pqarrow writes an empty row group's column chunks through a
		// serial row group, whose bytes a buffered one does not give;
		// there is nothing to encode side by side anyway.
		pw, err := pqarrow.NewFileWriter(rec.Schema(), w, props, arrowProps)
		if err != nil {
			return err
		}
		if err := pw.Write(rec); err != nil {
			return err
		}
		return pw.Close()
	}
	sc := rec.Schema()
	pqSchema, err := pqarrow.ToParquet(sc, props, arrowProps)
	if err != nil {
		return err
	}
	meta := make(metadata.KeyValueMetadata, 0, sc.Metadata().Len())
	for i, k := range sc.Metadata().Keys() {
		meta.Append(k, sc.Metadata().Values()[i])
	}
	fw, err := file.NewParquetWriterWithError(w, pqSchema.Root(), file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return err
	}
	n, groupRows := rec.NumRows(), props.MaxRowGroupLength()
	for off := int64(0); off < n; off += groupRows {
		size := min(groupRows, n-off)
		rgw, err := fw.AppendBufferedRowGroupChecked()
		if err != nil {
			return err
		}
		if err := encodeRowGroup(rgw, rec, off, size, arrowProps); err != nil {
			return err
		}
		if err := rgw.Close(); err != nil {
			return err
		}
	}
	return fw.Close()
}

// encodeRowGroup encodes rows [off, off+size) of every column of rec into
// rgw's column chunks, on up to GOMAXPROCS goroutines, and closes each
// chunk as soon as it and the chunks before it are encoded. Closing a
// chunk builds and compresses its dictionary page and copies the chunk to
// the file, so the chunks must close in column order, as the row group's
// Close would close them (it then finds them closed); closing them here,
// while later columns are still being encoded, takes that work off the
// serial end of the row group.
func encodeRowGroup(rgw file.BufferedRowGroupWriter, rec arrow.RecordBatch, off, size int64, arrowProps pqarrow.ArrowWriterProperties) error {
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
		errs[i] = encodeColumn(rgw, i, rec.Schema().Field(i), rec.Column(i), off, size, arrowProps)
	})
	return <-closed
}

// encodeColumn writes rows [off, off+size) of column i, whose field is f.
// Each call has its own write context: pqarrow keeps scratch buffers in it.
func encodeColumn(rgw file.BufferedRowGroupWriter, i int, f arrow.Field, col arrow.Array, off, size int64, arrowProps pqarrow.ArrowWriterProperties) error {
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
		ctx := pqarrow.NewArrowWriteContext(context.Background(), &arrowProps)
		if err := pqarrow.WriteArrowToColumn(ctx, cw, values, defLevels, nil, f.Nullable); err != nil {
			return err
		}
	}
	return flushLastPage(cw)
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
