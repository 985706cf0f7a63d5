package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/optimus-sched/optimus/io/schema"
)

// ReadFile reads the table in path, choosing the format by the file's
// extension (or by its first bytes when the extension is not a table
// format's), and validates it against want. want may be nil: the table is
// then validated against the schema named in its metadata, or recognised by
// its columns.
func ReadFile(path string, want *schema.Table) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
			return nil, Errorf(path, "no such file")
		}
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, Errorf(path, "is a directory: name a table file")
	}
	head := make([]byte, 8)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	head = head[:n]
	format, ferr := FormatOf(path)
	sniffed := Sniff(head)
	switch {
	case ferr != nil:
		format = sniffed // not a table extension: go by the content
	case len(head) > 0 && sniffed != format:
		return nil, Errorf(path, "not a valid %s (its first bytes %s)", format.fileNoun(), describeHead(head))
	}
	if format == Parquet && info.Mode().IsRegular() {
		// Parquet is read where it lies, column chunk by column chunk,
		// rather than copied into memory whole first.
		return decode(path, format, want, func() (*Table, error) {
			return decodeParquet(io.NewSectionReader(f, 0, info.Size()), info.Size(), path)
		})
	}
	budget := MemoryBudget()
	data := head
	if info.Mode().IsRegular() {
		if err := checkBudget(path, info.Size()); err != nil {
			return nil, err
		}
		// Made at its size, not grown into: see readInto.
		data = make([]byte, len(head), int(info.Size())+bytes.MinRead)
		copy(data, head)
	}
	data, err = readInto(data, f, budget, path)
	if err != nil {
		return nil, readError(path, err)
	}
	t, err := Decode(data, format, path, want)
	if int64(len(data)) > collectEvery {
		// The text and what decoding it left are garbage now: collect them
		// before the caller's next phase (a write, say) grows the heap on
		// top of them, to twice a live size that counted them.
		data = nil
		runtime.GC()
	}
	return t, err
}

// Read reads a table of any format from r, recognising the format by its
// first bytes, and validates it against want (see ReadFile).
func Read(r io.Reader, source string, want *schema.Table) (*Table, error) {
	data, err := ReadAll(r, source)
	if err != nil {
		return nil, err
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
func Decode(data []byte, format Format, source string, want *schema.Table) (*Table, error) {
	if len(data) == 0 {
		return nil, Errorf(source, "empty input: expected a table (Arrow, Parquet or CSV)")
	}
	if format == CSV {
		return decodeCSVGuarded(data, source, want)
	}
	return decode(source, format, want, func() (*Table, error) {
		switch format {
		case ArrowStream:
			return decodeArrowStream(data)
		case ArrowFile:
			return decodeArrowFile(data)
		case Parquet:
			return decodeParquet(bytes.NewReader(data), int64(len(data)), source)
		}
		return nil, errUnrecognised
	})
}

var errUnrecognised = errors.New("unrecognised input")

// decodeCSVGuarded decodes CSV, turning a panic into an error as decode
// does.
func decodeCSVGuarded(data []byte, source string, want *schema.Table) (t *Table, err error) {
	defer recoverCorrupt(source, CSV, &t, &err)
	return decodeCSV(data, source, want)
}

// recoverCorrupt turns a decoder's panic on corrupt input into an error:
// a corrupt file is bad input, not a crash.
func recoverCorrupt(source string, format Format, t **Table, err *error) {
	if r := recover(); r != nil {
		if onRecover != nil {
			onRecover(r, debug.Stack())
		}
		*t, *err = nil, Errorf(source, "corrupt %s data: %v", format, r)
	}
}

// decoderPanic is a decoder's panic on corrupt input, recovered in the
// goroutine where it happened (a recover works only there) and handed
// back as an error; decode reports it as recoverCorrupt does.
type decoderPanic struct{ value any }

func (p *decoderPanic) Error() string { return fmt.Sprint(p.value) }

// guard runs decode, turning its panic into a *decoderPanic: every
// goroutine that decodes input runs its work through it.
func guard(decode func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if onRecover != nil {
				onRecover(r, debug.Stack())
			}
			err = &decoderPanic{r}
		}
	}()
	return decode()
}

// decode runs a binary decoder (read), checks the raw table's names and
// metadata and validates it against want.
func decode(source string, format Format, want *schema.Table, read func() (*Table, error)) (t *Table, err error) {
	// The Arrow and Parquet decoders can panic on corrupt input.
	defer recoverCorrupt(source, format, &t, &err)
	raw, err := read()
	if err == errUnrecognised {
		return nil, Errorf(source, "unrecognised input: expected a table (Arrow, Parquet or CSV)")
	}
	var be *BudgetError
	var fe *Error // a column of a type optimus tables do not take
	if errors.As(err, &be) || errors.As(err, &fe) {
		return nil, err
	}
	var dp *decoderPanic
	if errors.As(err, &dp) {
		return nil, Errorf(source, "corrupt %s data: %v", format, dp.value)
	}
	var te *truncatedError
	if errors.As(err, &te) {
		if source == "stdin" {
			return nil, Errorf(source, "truncated: the upstream command stopped before the end of its table (Arrow IPC stream: %s)", te.detail)
		}
		return nil, Errorf(source, "truncated: the Arrow IPC stream ends before its end-of-stream marker (%s): the file was cut while written or copied", te.detail)
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

func decodeParquet(r parquet.ReaderAtSeeker, size int64, source string) (*Table, error) {
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	if err := checkParquetClaims(pf, r, size, source); err != nil {
		return nil, err
	}
	cols, err := parquetColumns(pf, source)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range cols {
			c.close()
		}
	}()
	t := &Table{rows: -1}
	// Column by column, each into arrays of its final length
	// (parquet_read.go) and its reader's page buffers freed before the
	// next, so that a large table is not held in memory twice. A small
	// file's columns are decoded side by side, which its size allows.
	decoded := make([]arrow.Array, len(cols))
	errs := make([]error, len(cols))
	var sinceGC atomic.Int64
	decode := func(i int) {
		errs[i] = guard(func() error {
			var err error
			decoded[i], err = cols[i].read(cols[i].rows)
			// The column's reader keeps its page buffers until closed:
			// drop them now, not when the last column is read.
			cols[i].close()
			if decoded[i] != nil && sinceGC.Add(int64(arraySize(decoded[i]))) > collectEvery {
				sinceGC.Store(0)
				runtime.GC()
			}
			return err
		})
	}
	if parquetBytes(pf) <= parallelDecodeBytes {
		forEachColumn(len(cols), decode)
	} else {
		for i := range cols {
			if decode(i); errs[i] != nil {
				break
			}
		}
	}
	defer func() {
		for _, a := range decoded[len(t.cols):] {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range decoded {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if t.rows < 0 {
			t.rows = a.Len()
		} else if a.Len() != t.rows {
			return nil, fmt.Errorf("column %d has %d rows, column 1 has %d", i+1, a.Len(), t.rows)
		}
		t.fields = append(t.fields, cols[i].field)
		t.cols = append(t.cols, a)
	}
	if t.rows < 0 {
		t.rows = int(pf.NumRows())
	}
	setMeta(t, pf.MetaData().KeyValueMetadata().Keys(), pf.MetaData().KeyValueMetadata().Values())
	return t, nil
}

// parallelDecodeBytes bounds the uncompressed size of a Parquet file whose
// columns are decoded side by side.
const parallelDecodeBytes = 64 << 20

// parquetBytes is the uncompressed size of pf's row groups.
func parquetBytes(pf *file.Reader) int64 {
	var n int64
	for _, rg := range pf.MetaData().RowGroups {
		n += rg.GetTotalByteSize()
	}
	return n
}

// forEachColumn calls decode for each of n columns on up to GOMAXPROCS
// goroutines.
func forEachColumn(n int, decode func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(n, runtime.GOMAXPROCS(0))) {
		wg.Go(func() {
			for i := range next {
				decode(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
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
			// The IPC reader does not check a string column's offsets
			// against its bytes: corrupt ones would be read out of range.
			// (Only the offsets: the text itself is checked later, where
			// a bad value is named by its row.)
			for _, c := range chunks {
				if err := checkStringOffsets(c); err != nil {
					return nil, fmt.Errorf("column %q: %v", f.Name, err)
				}
			}
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

// arraySize is the capacity of an array's buffers, in bytes.
func arraySize(a arrow.Array) int {
	n := 0
	for _, b := range a.Data().Buffers() {
		if b != nil {
			n += cap(b.Buf())
		}
	}
	return n
}

// checkStringOffsets checks that a string column's offsets buffer holds an
// offset for each value and the end, and that they start at or after 0,
// never decrease and end within its bytes.
func checkStringOffsets(c arrow.Array) error {
	width := 0
	switch c.(type) {
	case *array.String:
		width = 4
	case *array.LargeString:
		width = 8
	default:
		return nil
	}
	d := c.Data()
	bufs := d.Buffers()
	if d.Len() == 0 {
		return nil
	}
	if len(bufs) < 3 || bufs[1] == nil || bufs[1].Len() < (d.Offset()+d.Len()+1)*width {
		return fmt.Errorf("the offsets of its %d strings are missing or short", d.Len())
	}
	var offsets []int64
	switch a := c.(type) {
	case *array.String:
		for _, o := range a.ValueOffsets() {
			offsets = append(offsets, int64(o))
		}
	case *array.LargeString:
		offsets = a.ValueOffsets()
	}
	n := int64(0)
	if bufs[2] != nil {
		n = int64(bufs[2].Len())
	}
	for i, o := range offsets {
		if o < 0 || o > n || i > 0 && o < offsets[i-1] {
			return fmt.Errorf("string offset %d of %d is %d, outside the column's %d bytes", i, len(offsets), o, n)
		}
	}
	return nil
}

// collectEvery is how many bytes of decoded columns (and of the decoder's
// spare capacity freed) pass between forced collections while a Parquet
// file is read. The decoder's page buffers and grown builders are garbage
// once a column is joined; left to the collector's pace (a heap twice the
// live one) they lift a large read's peak by most of the table again. The
// table's buffers hold no pointers, so a collection costs little.
var collectEvery int64 = 24 << 20
