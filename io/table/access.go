package table

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Typed column access without copies, for code that reads large tables
// (loss points, speed samples) once: the slices and views share the
// table's memory, so they cost nothing per row and must not be modified.
// Values of null rows are unspecified in them; check IsValid, or NullCount
// for none.

// Int64Values returns an int64 column's values, sharing the table's memory.
func (t *Table) Int64Values(name string) []int64 {
	return t.mustTyped(name, "int64").(*array.Int64).Int64Values()
}

// Float64Values returns a float64 column's values, sharing the table's
// memory.
func (t *Table) Float64Values(name string) []float64 {
	return t.mustTyped(name, "float64").(*array.Float64).Float64Values()
}

// StringValues returns a string column as a view sharing the table's
// memory: its strings point into the column's buffer (keeping one keeps
// the buffer alive).
func (t *Table) StringValues(name string) StringColumn {
	return StringColumn{a: t.mustTyped(name, "string").(*array.String)}
}

// BoolValues returns a bool column as a view.
func (t *Table) BoolValues(name string) BoolColumn {
	return BoolColumn{a: t.mustTyped(name, "bool").(*array.Boolean)}
}

// NullCount is the number of null rows of the named column.
func (t *Table) NullCount(name string) int { return t.mustColumn(name).NullN() }

// Validity returns the named column's null mask.
func (t *Table) Validity(name string) Validity {
	a := t.mustColumn(name)
	if a.NullN() == 0 {
		return Validity{}
	}
	return Validity{bits: a.NullBitmapBytes(), offset: a.Data().Offset()}
}

// Validity says which rows of a column hold a value.
type Validity struct {
	bits   []byte // nil: every row
	offset int
}

// IsValid reports whether row i holds a value (is not null).
func (v Validity) IsValid(i int) bool { return v.bits == nil || bitutil.BitIsSet(v.bits, v.offset+i) }

// StringColumn is a read-only view of a string column.
type StringColumn struct{ a *array.String }

// Len is the number of rows.
func (c StringColumn) Len() int { return c.a.Len() }

// Value is row i's string, "" for null; it shares the column's memory.
func (c StringColumn) Value(i int) string {
	if c.a.IsNull(i) {
		return ""
	}
	return c.a.Value(i)
}

// IsValid reports whether row i holds a value.
func (c StringColumn) IsValid(i int) bool { return c.a.IsValid(i) }

// BoolColumn is a read-only view of a bool column.
type BoolColumn struct{ a *array.Boolean }

// Len is the number of rows.
func (c BoolColumn) Len() int { return c.a.Len() }

// Value is row i's value, false for null.
func (c BoolColumn) Value(i int) bool { return c.a.IsValid(i) && c.a.Value(i) }

// IsValid reports whether row i holds a value.
func (c BoolColumn) IsValid(i int) bool { return c.a.IsValid(i) }

func (t *Table) mustTyped(name, typ string) any {
	a := t.mustColumn(name)
	switch a.(type) {
	case *array.Int64:
		if typ == "int64" {
			return a
		}
	case *array.Float64:
		if typ == "float64" {
			return a
		}
	case *array.String:
		if typ == "string" {
			return a
		}
	case *array.Boolean:
		if typ == "bool" {
			return a
		}
	}
	panic(fmt.Sprintf("table %s: column %q is %s, not %s", t.Name, name, a.DataType(), typ))
}

// Groups indexes a table's rows by the value of a string column: the
// distinct values (keys) in order of first appearance and, for each, its
// rows in table order. Null rows group under "". Building it reads the
// column once, with one map lookup per change of key (logs usually list a
// job's rows together), and holds 4 bytes per row only when some key's rows
// are not contiguous.
type Groups struct {
	keys  []string
	start []int   // group g is rows[start[g]:start[g+1]], or those rows themselves when rows is nil
	rows  []int32 // nil when every group's rows are contiguous
}

// GroupBy indexes the rows by the named string column (see Groups).
func (t *Table) GroupBy(name string) *Groups {
	col := t.StringValues(name)
	n := col.Len()
	g := &Groups{}
	index := map[string]int32{}
	var counts []int
	var groupOf []int32 // row -> group, once some key's rows are split
	cur, curKey := int32(-1), ""
	for r := 0; r < n; r++ {
		k := col.Value(r)
		if cur < 0 || k != curKey {
			gi, seen := index[k]
			if !seen {
				gi = int32(len(g.keys))
				index[k] = gi
				g.keys = append(g.keys, k)
				counts = append(counts, 0)
			} else if groupOf == nil {
				// Key k comes back after others: from here on rows need an
				// explicit index. Rows so far ran group by group.
				groupOf = make([]int32, n)
				row := 0
				for gg, c := range counts {
					for range c {
						groupOf[row] = int32(gg)
						row++
					}
				}
			}
			cur, curKey = gi, k
		}
		counts[cur]++
		if groupOf != nil {
			groupOf[r] = cur
		}
	}
	g.start = make([]int, len(g.keys)+1)
	for i, c := range counts {
		g.start[i+1] = g.start[i] + c
	}
	if groupOf != nil {
		g.rows = make([]int32, n)
		next := make([]int, len(g.keys))
		copy(next, g.start)
		for r, gi := range groupOf {
			g.rows[next[gi]] = int32(r)
			next[gi]++
		}
	}
	return g
}

// Len is the number of groups (distinct keys).
func (g *Groups) Len() int { return len(g.keys) }

// Key is group i's value.
func (g *Groups) Key(i int) string { return g.keys[i] }

// Keys lists the groups' values in order of first appearance.
func (g *Groups) Keys() []string { return g.keys }

// Size is the number of rows of group i.
func (g *Groups) Size(i int) int { return g.start[i+1] - g.start[i] }

// Rows appends group i's rows, in table order, to buf[:0] and returns it:
// reuse buf across groups to allocate nothing per group.
func (g *Groups) Rows(i int, buf []int) []int {
	buf = buf[:0]
	if g.rows == nil {
		for r := g.start[i]; r < g.start[i+1]; r++ {
			buf = append(buf, r)
		}
		return buf
	}
	for _, r := range g.rows[g.start[i]:g.start[i+1]] {
		buf = append(buf, int(r))
	}
	return buf
}
