package table

import (
	"errors"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/optimus-sched/optimus/io/schema"
)

// ErrWholeTable says that a table could not be read batch by batch with
// the same outcome as whole: its checks need whole columns (a unique
// column), it is no plain Parquet file, or a batch failed a check. The
// caller reads it whole instead (ReadFile), whose outcome, a table or an
// error naming the row, is the one to report.
var ErrWholeTable = errors.New("table: read the table whole")

// ReadParquetBatches reads the Parquet file at path in batches of at most
// rows rows, each decoded, checked and put in canonical form exactly as
// ReadFile does the whole table (the same columns, types and values), and
// hands them to each in order; a batch is released once each returns. Its
// memory is one batch's rather than the table's.
//
// The checks of a batch are those of the whole table restricted to its
// rows because every rule but uniqueness looks at one value at a time,
// and whether a text column under a numeric pattern holds a number is an
// error in the batch that holds it as in the whole; tables with a unique
// column are refused with ErrWholeTable, as is any batch that fails a
// check (so that the error reported is the whole read's, with its row),
// an empty table, and a file that is not Parquet. An error of each is
// returned as it is.
func ReadParquetBatches(path string, want *schema.Table, rows int, each func(*Table) error) (err error) {
	if format, ferr := FormatOf(path); ferr != nil || format != Parquet || rows < 1 {
		return ErrWholeTable
	}
	f, err := os.Open(path)
	if err != nil {
		return ErrWholeTable
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return ErrWholeTable
	}
	head := make([]byte, 8)
	if n, _ := io.ReadFull(f, head); Sniff(head[:n]) != Parquet {
		return ErrWholeTable
	}
	failed := errors.New("batch failed") // each's own errors pass through
	var eachErr error
	err = guard(func() error {
		r := io.NewSectionReader(f, 0, info.Size())
		// Pages are read through a buffer, not each column chunk whole.
		props := parquet.NewReaderProperties(mem)
		props.BufferedStreamEnabled = true
		props.BufferSize = 1 << 20
		pf, err := file.NewParquetReader(r, file.WithReadProps(props))
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := checkParquetClaims(pf, r, info.Size(), path); err != nil {
			return err
		}
		if pf.NumRows() == 0 {
			return ErrWholeTable
		}
		cols, err := parquetColumns(pf, path)
		if err != nil || len(cols) == 0 {
			return ErrWholeTable
		}
		defer func() {
			for _, c := range cols {
				c.close()
			}
		}()
		md := pf.MetaData().KeyValueMetadata()
		var s *schema.Table
		read := int64(0)
		for cols[0].rows > 0 {
			raw, err := batchTable(cols, int64(rows), path, md.Keys(), md.Values())
			if err != nil {
				return err
			}
			if s == nil {
				if s, err = resolveSchema(raw, want); err != nil || s == nil || hasUnique(s) {
					return ErrWholeTable
				}
			}
			t, err := build(path, s, raw.rows, arrowColumns(raw), nil, raw.Meta)
			if err != nil {
				return ErrWholeTable
			}
			read += int64(t.rows)
			if err := each(t); err != nil {
				eachErr = err
				return failed
			}
		}
		if read != pf.NumRows() {
			return ErrWholeTable
		}
		return nil
	})
	if eachErr != nil {
		return eachErr
	}
	if err != nil {
		return ErrWholeTable
	}
	return nil
}

// batchTable is the next rows rows of cols as the raw table decode
// checks, with the file's metadata.
func batchTable(cols []*parquetColumn, rows int64, source string, keys, vals []string) (*Table, error) {
	t := &Table{Source: source}
	newRead(cols)
	for _, c := range cols {
		a, err := c.read(rows)
		if err != nil {
			return nil, err
		}
		t.fields = append(t.fields, c.field)
		t.cols = append(t.cols, a)
	}
	t.rows = t.cols[0].Len()
	setMeta(t, keys, vals)
	if checkNames(source, t.ColumnNames()) != nil || checkMeta(source, t.Meta) != nil {
		return nil, ErrWholeTable
	}
	return t, nil
}

// hasUnique says whether any column of s must hold distinct values.
func hasUnique(s *schema.Table) bool {
	for _, c := range s.AllColumns() {
		if c.Unique {
			return true
		}
	}
	return false
}
