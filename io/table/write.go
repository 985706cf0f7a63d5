package table

import (
	"bufio"
	"fmt"
	"io"
	"math"
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
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(parquetRowGroup),
		parquet.WithCreatedBy("optimus"),
	}
	for i, f := range t.fields {
		if dictionaryOverflows(t.cols[i], parquet.DefaultDictionaryPageSizeLimit) {
			opts = append(opts, parquet.WithDictionaryFor(f.Name, false))
		}
	}
	props := parquet.NewWriterProperties(opts...)
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

// dictionaryOverflows reports whether the Parquet writer's dictionary for
// the column would outgrow limit bytes in some row group: it then falls
// back to plain encoding mid-chunk and lists the chunk's page encodings
// from a Go map, in random order (arrow-go v18.8.0), so that the same table
// writes different bytes from run to run. Such columns are written plain
// from the start. The sizes are the writer's own (DictEncodedSize): each
// distinct value's bytes, plus 4 for a string's length; the count stops at
// the limit.
func dictionaryOverflows(a arrow.Array, limit int64) bool {
	n := a.Len()
	for lo := 0; lo < n; lo += parquetRowGroup {
		hi := min(n, lo+parquetRowGroup)
		var size int64
		switch a := a.(type) {
		case *array.String:
			seen := map[string]struct{}{}
			for r := lo; r < hi && size < limit; r++ {
				if a.IsValid(r) {
					v := a.Value(r)
					if _, ok := seen[v]; !ok {
						seen[v] = struct{}{}
						size += int64(len(v)) + 4
					}
				}
			}
		case *array.Int64:
			size = distinctWords(a.Int64Values()[lo:hi], a, lo, limit, func(v int64) uint64 { return uint64(v) })
		case *array.Float64:
			size = distinctWords(a.Float64Values()[lo:hi], a, lo, limit, math.Float64bits)
		}
		if size >= limit {
			return true
		}
	}
	return false
}

// distinctWords is 8 bytes per distinct non-null value of vals (rows
// lo.. of a), counted up to limit.
func distinctWords[T any](vals []T, a arrow.Array, lo int, limit int64, key func(T) uint64) int64 {
	seen := map[uint64]struct{}{}
	var size int64
	for i, v := range vals {
		if size >= limit {
			break
		}
		if a.IsNull(lo + i) {
			continue
		}
		k := key(v)
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			size += 8
		}
	}
	return size
}
