package table

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Write encodes t in the given format.
func Write(w io.Writer, format Format, t *Table) error {
	switch format {
	case ArrowStream:
		return writeArrowStream(w, t)
	case ArrowFile:
		return writeArrowFile(w, t)
	case Parquet:
		return writeParquet(w, t)
	case CSV:
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := writeCSV(bw, t); err != nil {
			return err
		}
		return bw.Flush()
	}
	return fmt.Errorf("table: cannot write format %v", format)
}

// WriteStream writes t as an Arrow IPC stream, the format of pipes.
func WriteStream(w io.Writer, t *Table) error { return writeArrowStream(w, t) }

// WriteFile writes t to path in the format its extension names. The file
// appears complete or not at all: the table is written to a temporary file
// in the same directory, synced, and renamed over path.
func WriteFile(path string, t *Table) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	return AtomicWrite(path, func(w io.Writer) error { return Write(w, format, t) })
}

// AtomicWrite creates path with the content fill writes, through a temporary
// file renamed into place only when fill succeeded; on failure nothing is
// left behind and an existing file at path is untouched.
func AtomicWrite(path string, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeArrowStream(w io.Writer, t *Table) error {
	rec := t.Record()
	defer rec.Release()
	iw := ipc.NewWriter(w, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
	if err := iw.Write(rec); err != nil {
		return err
	}
	return iw.Close()
}

func writeArrowFile(w io.Writer, t *Table) error {
	rec := t.Record()
	defer rec.Release()
	iw, err := ipc.NewFileWriter(w, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
	if err != nil {
		return err
	}
	if err := iw.Write(rec); err != nil {
		return err
	}
	return iw.Close()
}

// parquetRowGroup bounds the rows per row group, so that readers can stream
// large tables.
const parquetRowGroup = 1 << 20

func writeParquet(w io.Writer, t *Table) error {
	rec := t.Record()
	defer rec.Release()
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(parquetRowGroup),
		parquet.WithCreatedBy("optimus"),
	)
	// Hide w's Close method: the Parquet writer closes a sink that has one,
	// and closing is the caller's business.
	pw, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{w}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := pw.Write(rec); err != nil {
		return err
	}
	return pw.Close()
}

// cellText is a value as CSV writes it; "" for null.
func cellText(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return ""
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(r)
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Float64:
		return FormatFloat(a.Value(r))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(r))
	}
	return a.ValueStr(r)
}
