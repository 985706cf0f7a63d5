package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/optimus-sched/optimus/io/schema"
)

// ReadFile reads the table in path, choosing the format by the file's
// extension (or by its first bytes when the extension is not a table
// format's), and validates it against want. want may be nil: the table is
// then validated against the schema named in its metadata, or recognised by
// its columns.
func ReadFile(path string, want *schema.Table) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
			return nil, Errorf(path, "no such file")
		}
		return nil, err
	}
	format, ferr := FormatOf(path)
	sniffed := Sniff(data)
	switch {
	case ferr != nil:
		format = sniffed // not a table extension: go by the content
	case len(data) > 0 && sniffed != format:
		return nil, Errorf(path, "not a valid %s file (its first bytes %s)", format, describeHead(data))
	}
	return Decode(data, format, path, want)
}

// Read reads a table of any format from r, recognising the format by its
// first bytes, and validates it against want (see ReadFile).
func Read(r io.Reader, source string, want *schema.Table) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return Decode(data, Sniff(data), source, want)
}

func describeHead(data []byte) string {
	switch Sniff(data) {
	case Parquet:
		return "are those of a Parquet file"
	case ArrowFile:
		return "are those of an Arrow IPC file"
	case ArrowStream:
		return "are those of an Arrow IPC stream"
	}
	return "look like text"
}

// onRecover, when set (by tests), is told of every panic Decode turns into
// an error, with the stack where it happened: the fuzz tests use it to tell
// the decoders' panics on corrupt data from bugs of this package.
var onRecover func(r any, stack []byte)

// Decode decodes data in the given format and validates it against want.
func Decode(data []byte, format Format, source string, want *schema.Table) (t *Table, err error) {
	if len(data) == 0 {
		return nil, Errorf(source, "empty input: expected a table (Arrow, Parquet or CSV)")
	}
	// The Arrow and Parquet decoders can panic on corrupt input; a corrupt
	// file is bad input, not a crash.
	defer func() {
		if r := recover(); r != nil {
			if onRecover != nil {
				onRecover(r, debug.Stack())
			}
			t, err = nil, Errorf(source, "corrupt %s data: %v", format, r)
		}
	}()
	var raw *Table
	switch format {
	case CSV:
		return decodeCSV(data, source, want)
	case ArrowStream:
		raw, err = decodeArrowStream(data)
	case ArrowFile:
		raw, err = decodeArrowFile(data)
	case Parquet:
		raw, err = decodeParquet(data)
	default:
		return nil, Errorf(source, "unrecognised input: expected a table (Arrow, Parquet or CSV)")
	}
	if err != nil {
		return nil, Errorf(source, "not a valid %s: %v", format, err)
	}
	raw.Source = source
	if len(raw.fields) == 0 {
		return nil, Errorf(source, "no columns: a table needs at least one")
	}
	if err := checkNames(source, raw.ColumnNames()); err != nil {
		return nil, err
	}
	if err := checkMeta(source, raw.Meta); err != nil {
		return nil, err
	}
	return conform(raw, want)
}

// ipcLimits are the Arrow reader's options: no message of the input can be
// longer than the input, so lengths claiming more are corrupt and rejected
// before anything of that size is allocated (and a large table is not
// refused by the reader's default limits).
func ipcLimits(data []byte) []ipc.Option {
	n := int64(len(data))
	return []ipc.Option{ipc.WithAllocator(mem), ipc.WithMetadataSizeLimit(n), ipc.WithBodySizeLimit(n)}
}

func decodeArrowStream(data []byte) (*Table, error) {
	if err := checkArrowStream(data); err != nil {
		return nil, err
	}
	// Through a MessageReader: ipc.NewReader does not pass the size limits
	// on to the message reader it makes.
	opts := ipcLimits(data)
	r, err := ipc.NewReaderFromMessageReader(ipc.NewMessageReader(bytes.NewReader(data), opts...), opts...)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return fromRecords(r.Schema(), recs)
}

func decodeArrowFile(data []byte) (*Table, error) {
	if err := checkArrowFile(data); err != nil {
		return nil, err
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data), ipcLimits(data)...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return nil, err
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return fromRecords(r.Schema(), recs)
}

func decodeParquet(data []byte) (*Table, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return nil, err
	}
	at, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer at.Release()
	t := &Table{rows: int(at.NumRows())}
	for i := 0; i < int(at.NumCols()); i++ {
		col := at.Column(i)
		a, err := oneArray(col.Data().Chunks())
		if err != nil {
			if len(col.Data().Chunks()) == 0 {
				a = array.MakeArrayOfNull(mem, col.DataType(), 0)
			} else {
				return nil, err
			}
		}
		f := at.Schema().Field(i)
		t.fields = append(t.fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable})
		t.cols = append(t.cols, a)
	}
	setMeta(t, pf.MetaData().KeyValueMetadata().Keys(), pf.MetaData().KeyValueMetadata().Values())
	return t, nil
}

// fromRecords concatenates record batches into one table.
func fromRecords(sc *arrow.Schema, recs []arrow.RecordBatch) (*Table, error) {
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	t := &Table{}
	for _, r := range recs {
		t.rows += int(r.NumRows())
	}
	for i, f := range sc.Fields() {
		chunks := make([]arrow.Array, len(recs))
		for j, r := range recs {
			chunks[j] = r.Column(i)
		}
		var a arrow.Array
		if len(chunks) == 0 {
			a = array.MakeArrayOfNull(mem, f.Type, 0)
		} else {
			var err error
			if a, err = oneArray(chunks); err != nil {
				return nil, err
			}
		}
		t.fields = append(t.fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable})
		t.cols = append(t.cols, a)
	}
	md := sc.Metadata()
	setMeta(t, md.Keys(), md.Values())
	return t, nil
}

// setMeta sorts file metadata into the table's schema name, version and Meta.
// Keys written by Arrow and Parquet themselves are not carried over.
func setMeta(t *Table, keys, vals []string) {
	for i, k := range keys {
		switch k {
		case schema.MetaName:
			t.Name = vals[i]
		case schema.MetaVersion:
			v, err := strconv.Atoi(vals[i])
			if err != nil {
				v = -1
			}
			t.Version = v
		case "ARROW:schema", "pandas", "org.apache.spark.sql.parquet.row.metadata":
		default:
			if t.Meta == nil {
				t.Meta = map[string]string{}
			}
			t.Meta[k] = vals[i]
		}
	}
}

// oneArray joins a column's chunks into one array; a single chunk is used
// as it is (retained), without a copy.
func oneArray(chunks []arrow.Array) (arrow.Array, error) {
	if len(chunks) == 1 {
		chunks[0].Retain()
		return chunks[0], nil
	}
	return array.Concatenate(chunks, mem)
}
