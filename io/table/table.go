// Package table holds optimus tables in memory and reads and writes them as
// Arrow IPC streams and files, Parquet and CSV.
//
// A Table is a list of named Arrow columns of one length plus the name and
// version of its schema (package schema). Commands read a table with Read or
// ReadFile, which decode any supported format and validate the result against
// the schema the command expects; they build their output by setting columns
// from Go slices and write it with WriteFile or WriteStream.
package table

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/optimus-sched/optimus/io/schema"
)

var mem = memory.DefaultAllocator

// Table is a set of equally long, named columns.
type Table struct {
	// Name and Version identify the schema (schema.Lookup(Name)); Name is
	// empty for a table of no known schema.
	Name    string
	Version int
	// Source names where the table came from, for error messages.
	Source string
	// Meta holds further metadata carried with the table (key -> value).
	Meta map[string]string

	fields []arrow.Field
	cols   []arrow.Array
	// checked holds, per column, the rule it was last checked against ("":
	// not checked since it was set); see check.go.
	checked []string
	rows    int
	lines   []int // CSV line of each row, when read from CSV
}

// Clone returns a copy of t that later changes to t (columns set or
// dropped, metadata) do not reach; the Arrow arrays are shared, as they do
// not change.
func (t *Table) Clone() *Table {
	c := *t
	c.Meta = maps.Clone(t.Meta)
	c.fields, c.cols, c.checked = slices.Clone(t.fields), slices.Clone(t.cols), slices.Clone(t.checked)
	return &c
}

// Errorf is an input error about a row (0-based) of a column ("" for the
// whole row) of this table, located by file, column, row and, for CSV, line.
func (t *Table) Errorf(col string, row int, format string, args ...any) *Error {
	e := &Error{Source: t.Source, Column: col, Row: row + 1, Msg: fmt.Sprintf(format, args...)}
	if row < len(t.lines) {
		e.Line = t.lines[row]
	}
	return e
}

// New returns an empty table of the given schema with rows rows; add its
// columns with the Set methods.
func New(s *schema.Table, rows int) *Table {
	t := &Table{rows: rows}
	if s != nil {
		t.Name, t.Version = s.Name, s.Version
	}
	return t
}

// NumRows is the number of rows.
func (t *Table) NumRows() int { return t.rows }

// NumCols is the number of columns.
func (t *Table) NumCols() int { return len(t.cols) }

// ColumnNames lists the columns in order.
func (t *Table) ColumnNames() []string {
	names := make([]string, len(t.fields))
	for i, f := range t.fields {
		names[i] = f.Name
	}
	return names
}

// Index is the position of the named column, or -1.
func (t *Table) Index(name string) int {
	for i, f := range t.fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Has reports whether the table has the named column.
func (t *Table) Has(name string) bool { return t.Index(name) >= 0 }

// Field is the Arrow field of column i.
func (t *Table) Field(i int) arrow.Field { return t.fields[i] }

// Column is the Arrow array of column i.
func (t *Table) Column(i int) arrow.Array { return t.cols[i] }

func (t *Table) mustColumn(name string) arrow.Array {
	i := t.Index(name)
	if i < 0 {
		panic(fmt.Sprintf("table %s: no column %q", t.Name, name))
	}
	return t.cols[i]
}

// Strings returns a string column's values; nulls read as "".
func (t *Table) Strings(name string) []string {
	a := t.mustColumn(name).(*array.String)
	out := make([]string, a.Len())
	for i := range out {
		if a.IsValid(i) {
			out[i] = a.Value(i)
		}
	}
	return out
}

// Int64s returns an int64 column's values; nulls read as 0 (see Valid).
func (t *Table) Int64s(name string) []int64 {
	a := t.mustColumn(name).(*array.Int64)
	out := make([]int64, a.Len())
	copy(out, a.Int64Values())
	for i := range out {
		if a.IsNull(i) {
			out[i] = 0
		}
	}
	return out
}

// Float64s returns a float64 column's values; nulls read as NaN.
func (t *Table) Float64s(name string) []float64 {
	a := t.mustColumn(name).(*array.Float64)
	out := make([]float64, a.Len())
	copy(out, a.Float64Values())
	if a.NullN() > 0 {
		for i := range out {
			if a.IsNull(i) {
				out[i] = math.NaN()
			}
		}
	}
	return out
}

// Bools returns a bool column's values; nulls read as false.
func (t *Table) Bools(name string) []bool {
	a := t.mustColumn(name).(*array.Boolean)
	out := make([]bool, a.Len())
	for i := range out {
		out[i] = a.IsValid(i) && a.Value(i)
	}
	return out
}

// Valid reports, per row, whether the named column holds a value (not null).
func (t *Table) Valid(name string) []bool {
	a := t.mustColumn(name)
	out := make([]bool, a.Len())
	for i := range out {
		out[i] = a.IsValid(i)
	}
	return out
}

// set replaces the named column, or appends it when the table lacks it.
func (t *Table) set(name string, a arrow.Array, nullable bool) { t.setChecked(name, a, nullable, "") }

// setChecked sets a column with the rule it was checked against ("" for
// none).
func (t *Table) setChecked(name string, a arrow.Array, nullable bool, checked string) {
	if a.Len() != t.rows {
		panic(fmt.Sprintf("table %s: column %q has %d rows, table has %d", t.Name, name, a.Len(), t.rows))
	}
	f := arrow.Field{Name: name, Type: a.DataType(), Nullable: nullable}
	for len(t.checked) < len(t.fields) {
		t.checked = append(t.checked, "")
	}
	if i := t.Index(name); i >= 0 {
		t.fields[i], t.cols[i], t.checked[i] = f, a, checked
		return
	}
	t.appendChecked(f, a, checked)
}

// appendChecked adds a column that t does not have (setChecked without
// the search for it by name, which makes building a table of n columns
// quadratic).
func (t *Table) appendChecked(f arrow.Field, a arrow.Array, checked string) {
	if a.Len() != t.rows {
		panic(fmt.Sprintf("table %s: column %q has %d rows, table has %d", t.Name, f.Name, a.Len(), t.rows))
	}
	for len(t.checked) < len(t.fields) {
		t.checked = append(t.checked, "")
	}
	t.fields = append(t.fields, f)
	t.cols = append(t.cols, a)
	t.checked = append(t.checked, checked)
}

// checkedAt is the rule column i was last checked against, or "".
func (t *Table) checkedAt(i int) string {
	if i < len(t.checked) {
		return t.checked[i]
	}
	return ""
}

// nullableFor reports whether the schema lets the named column hold nulls;
// columns of no schema are nullable.
func (t *Table) nullableFor(name string) bool {
	if s := schema.Lookup(t.Name); s != nil {
		if c, ok := s.Column(name); ok {
			return c.Nullable
		}
		if _, ok := s.MatchPattern(name); ok {
			return false
		}
	}
	return true
}

// SetStrings sets a string column. valid may be nil (no nulls).
func (t *Table) SetStrings(name string, vals []string, valid []bool) {
	b := array.NewStringBuilder(mem)
	b.AppendValues(vals, valid)
	t.set(name, b.NewArray(), t.nullableFor(name))
}

// SetInt64s sets an int64 column. valid may be nil (no nulls).
func (t *Table) SetInt64s(name string, vals []int64, valid []bool) {
	b := array.NewInt64Builder(mem)
	b.AppendValues(vals, valid)
	t.set(name, b.NewArray(), t.nullableFor(name))
}

// SetFloat64s sets a float64 column. valid may be nil (no nulls).
func (t *Table) SetFloat64s(name string, vals []float64, valid []bool) {
	b := array.NewFloat64Builder(mem)
	b.AppendValues(vals, valid)
	t.set(name, b.NewArray(), t.nullableFor(name))
}

// SetFloat64sNaNAsNull sets a float64 column in which NaN means "no value".
func (t *Table) SetFloat64sNaNAsNull(name string, vals []float64) {
	valid := make([]bool, len(vals))
	for i, v := range vals {
		valid[i] = !math.IsNaN(v)
	}
	t.SetFloat64s(name, vals, valid)
}

// SetBools sets a bool column. valid may be nil (no nulls).
func (t *Table) SetBools(name string, vals []bool, valid []bool) {
	b := array.NewBooleanBuilder(mem)
	b.AppendValues(vals, valid)
	t.set(name, b.NewArray(), t.nullableFor(name))
}

// SetColumn sets a column from an existing Arrow array (of the table's length).
func (t *Table) SetColumn(name string, a arrow.Array) { t.set(name, a, t.nullableFor(name)) }

// SetSideBySide runs the column setters side by side (up to GOMAXPROCS at
// once), each on a table of its own with t's schema and rows, and then
// sets the columns they set on t in the order of sets (and, within one
// setter, of its calls): t ends as calling the setters one after another
// on it leaves it. Building a long table's columns (an Arrow array each)
// is independent work per column.
func (t *Table) SetSideBySide(sets ...func(*Table)) {
	parts := make([]*Table, len(sets))
	panics := make([]any, len(sets))
	forEachColumn(len(sets), func(i int) {
		parts[i] = &Table{Name: t.Name, Version: t.Version, rows: t.rows}
		// A setter's panic (a column of the wrong length) is raised
		// again in the caller, as without goroutines.
		defer func() { panics[i] = recover() }()
		sets[i](parts[i])
	})
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	for _, p := range parts {
		for i, f := range p.fields {
			t.setChecked(f.Name, p.cols[i], f.Nullable, p.checkedAt(i))
		}
	}
}

// Drop removes the named columns that exist.
func (t *Table) Drop(names ...string) {
	for _, n := range names {
		if i := t.Index(n); i >= 0 {
			t.fields = append(t.fields[:i], t.fields[i+1:]...)
			t.cols = append(t.cols[:i], t.cols[i+1:]...)
			if i < len(t.checked) {
				t.checked = append(t.checked[:i], t.checked[i+1:]...)
			}
		}
	}
}

// Select returns a table of the named columns, in that order. The result
// no longer has its schema (a jobs table without its required columns is
// not a jobs table), so it carries no schema name.
func (t *Table) Select(names []string) (*Table, error) {
	out := &Table{Source: t.Source, rows: t.rows, lines: t.lines}
	for _, n := range names {
		i := t.Index(n)
		if i < 0 {
			return nil, Errorf(t.Source, "no column %q (the table has: %s)", n, strings.Join(t.ColumnNames(), ", "))
		}
		out.fields = append(out.fields, t.fields[i])
		out.cols = append(out.cols, t.cols[i])
		out.checked = append(out.checked, t.checkedAt(i))
	}
	return out, nil
}

// Take returns a table of the given rows, in the given order. Taking every
// row in order shares the columns (Arrow arrays do not change); taking each
// row at most once keeps the columns' checks (see check.go), which hold for
// any subset of the rows in any order.
func (t *Table) Take(rows []int) *Table {
	out := &Table{Name: t.Name, Version: t.Version, Source: t.Source, Meta: t.Meta, rows: len(rows)}
	all, distinct := takesAll(rows, t.rows)
	for i, f := range t.fields {
		out.fields = append(out.fields, f)
		var a arrow.Array
		if all {
			a = t.cols[i]
			a.Retain()
		} else {
			a = takeRows(t.cols[i], rows)
		}
		out.cols = append(out.cols, a)
		if distinct {
			out.checked = append(out.checked, t.checkedAt(i))
		} else {
			out.checked = append(out.checked, "")
		}
	}
	return out
}

// takesAll reports whether rows lists 0..n-1 in order, and whether it
// names each row at most once (and only rows of the table).
func takesAll(rows []int, n int) (all, distinct bool) {
	all = len(rows) == n
	for i, r := range rows {
		if r != i {
			all = false
			break
		}
	}
	if all {
		return true, true
	}
	seen := make([]uint64, (n+63)/64)
	for _, r := range rows {
		if r < 0 || r >= n || seen[r/64]&(1<<(r%64)) != 0 {
			return false, false
		}
		seen[r/64] |= 1 << (r % 64)
	}
	return false, true
}

func takeRows(a arrow.Array, rows []int) arrow.Array {
	switch a := a.(type) {
	case *array.String:
		b := array.NewStringBuilder(mem)
		for _, r := range rows {
			if a.IsNull(r) {
				b.AppendNull()
			} else {
				b.Append(a.Value(r))
			}
		}
		return b.NewArray()
	case *array.Int64:
		b := array.NewInt64Builder(mem)
		for _, r := range rows {
			if a.IsNull(r) {
				b.AppendNull()
			} else {
				b.Append(a.Value(r))
			}
		}
		return b.NewArray()
	case *array.Float64:
		b := array.NewFloat64Builder(mem)
		for _, r := range rows {
			if a.IsNull(r) {
				b.AppendNull()
			} else {
				b.Append(a.Value(r))
			}
		}
		return b.NewArray()
	case *array.Boolean:
		b := array.NewBooleanBuilder(mem)
		for _, r := range rows {
			if a.IsNull(r) {
				b.AppendNull()
			} else {
				b.Append(a.Value(r))
			}
		}
		return b.NewArray()
	}
	panic(fmt.Sprintf("table: unsupported column type %s", a.DataType()))
}

// ArrowSchema is the table's Arrow schema, with the schema name and version
// and Meta in its metadata (keys sorted, so output is byte-stable).
func (t *Table) ArrowSchema() *arrow.Schema {
	meta := map[string]string{}
	for k, v := range t.Meta {
		meta[k] = v
	}
	if t.Name != "" {
		meta[schema.MetaName] = t.Name
		meta[schema.MetaVersion] = fmt.Sprint(t.Version)
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = meta[k]
	}
	var md *arrow.Metadata
	if len(keys) > 0 {
		m := arrow.NewMetadata(keys, vals)
		md = &m
	}
	return arrow.NewSchema(t.fields, md)
}

// Record is the table as one Arrow record batch.
func (t *Table) Record() arrow.RecordBatch {
	return array.NewRecordBatch(t.ArrowSchema(), t.cols, int64(t.rows))
}
