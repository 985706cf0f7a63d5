package table

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Columns of repeated values, such as the plan's job_* columns (one value
// per job, repeated on each of its task rows): value i (and its validity,
// valid[i]; valid may be nil for no nulls) fills runs[i] consecutive rows,
// and the runs add up to the table's rows. They are built straight into the
// Arrow array, without a per-row Go slice of the values; the result is the
// same column as the Set method of the expanded values makes (null rows
// hold no text).

// SetStringsRepeated sets a string column of repeated values.
func (t *Table) SetStringsRepeated(name string, vals []string, valid []bool, runs []int) {
	rows, bytes := checkRuns(t, name, len(vals), len(valid), runs)
	for i, v := range vals {
		bytes += len(v) * runs[i]
	}
	if bytes > math.MaxInt32 {
		b := array.NewStringBuilder(mem) // whose offsets overflow, with its error
		b.Reserve(rows)
		for i, v := range vals {
			ok := valid == nil || valid[i]
			for range runs[i] {
				if ok {
					b.Append(v)
				} else {
					b.AppendNull()
				}
			}
		}
		t.set(name, b.NewArray(), t.nullableFor(name))
		return
	}
	// The offsets, bytes and validity bitmap written as the builder's
	// Append and AppendNull write them, without a call per row.
	offsets := make([]int32, rows+1)
	data := make([]byte, 0, bytes)
	bitmap := builderBitmap(rows)
	r, nulls := 0, 0
	for i, v := range vals {
		ok := valid == nil || valid[i]
		if ok {
			bitutil.SetBitsTo(bitmap, int64(r), int64(runs[i]), true)
		} else {
			nulls += runs[i]
		}
		for range runs[i] {
			if ok {
				data = append(data, v...)
			}
			r++
			offsets[r] = int32(len(data))
		}
	}
	a := array.NewData(arrow.BinaryTypes.String, rows, []*memory.Buffer{memory.NewBufferBytes(bitmap),
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(data)}, nil, nulls, 0)
	defer a.Release()
	t.set(name, array.MakeFromData(a), t.nullableFor(name))
}

// SetInt64sRepeated sets an int64 column of repeated values.
func (t *Table) SetInt64sRepeated(name string, vals []int64, valid []bool, runs []int) {
	rows, _ := checkRuns(t, name, len(vals), len(valid), runs)
	out := make([]int64, 0, rows)
	for i, v := range vals {
		for range runs[i] {
			out = append(out, v)
		}
	}
	t.AdoptInt64s(name, out, expandValid(valid, runs, rows))
}

// SetFloat64sRepeated sets a float64 column of repeated values.
func (t *Table) SetFloat64sRepeated(name string, vals []float64, valid []bool, runs []int) {
	rows, _ := checkRuns(t, name, len(vals), len(valid), runs)
	out := make([]float64, 0, rows)
	for i, v := range vals {
		for range runs[i] {
			out = append(out, v)
		}
	}
	t.AdoptFloat64s(name, out, expandValid(valid, runs, rows))
}

// SetFloat64sRepeatedNaNAsNull sets a float64 column of repeated values in
// which NaN means "no value".
func (t *Table) SetFloat64sRepeatedNaNAsNull(name string, vals []float64, runs []int) {
	valid := make([]bool, len(vals))
	for i, v := range vals {
		valid[i] = !math.IsNaN(v)
	}
	t.SetFloat64sRepeated(name, vals, valid, runs)
}

// SetBoolsRepeated sets a bool column of repeated values.
func (t *Table) SetBoolsRepeated(name string, vals []bool, valid []bool, runs []int) {
	rows, _ := checkRuns(t, name, len(vals), len(valid), runs)
	out := make([]bool, 0, rows)
	for i, v := range vals {
		for range runs[i] {
			out = append(out, v)
		}
	}
	t.SetBools(name, out, expandValid(valid, runs, rows))
}

// checkRuns panics unless runs fit vals and the table's rows (a
// programming error, as a column of the wrong length is), and returns the
// rows.
func checkRuns(t *Table, name string, vals, valid int, runs []int) (rows, zero int) {
	if len(runs) != vals || valid != 0 && valid != vals {
		panic(fmt.Sprintf("table %s: column %q: %d values, %d validities, %d runs", t.Name, name, vals, valid, len(runs)))
	}
	for _, r := range runs {
		if r < 0 {
			panic(fmt.Sprintf("table %s: column %q: a run of %d rows", t.Name, name, r))
		}
		rows += r
	}
	if rows != t.rows {
		panic(fmt.Sprintf("table %s: column %q has %d rows, table has %d", t.Name, name, rows, t.rows))
	}
	return rows, 0
}

func expandValid(valid []bool, runs []int, rows int) []bool {
	if valid == nil {
		return nil
	}
	out := make([]bool, 0, rows)
	for i, ok := range valid {
		for range runs[i] {
			out = append(out, ok)
		}
	}
	return out
}
