package table

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// AdoptInt64s sets an int64 column from vals without copying them: the
// column's value buffer is vals itself, so the caller must not change
// them afterwards. valid may be nil (no nulls). The column is the one
// SetInt64s makes (the same values, validity bitmap and null count); a
// large column built only to be set saves a copy and its fresh pages.
func (t *Table) AdoptInt64s(name string, vals []int64, valid []bool) {
	t.set(name, adopted(arrow.PrimitiveTypes.Int64, vals, valid), t.nullableFor(name))
}

// AdoptFloat64s sets a float64 column from vals without copying them, as
// AdoptInt64s.
func (t *Table) AdoptFloat64s(name string, vals []float64, valid []bool) {
	t.set(name, adopted(arrow.PrimitiveTypes.Float64, vals, valid), t.nullableFor(name))
}

// adopted is vals as an Arrow array of type dt, with a validity bitmap
// as an Arrow builder's AppendValues writes it (every row's bit, set for
// a valid row; all set when valid is nil).
func adopted[T int64 | float64](dt arrow.DataType, vals []T, valid []bool) arrow.Array {
	n := len(vals)
	bitmap := builderBitmap(n)
	nulls := 0
	if valid == nil {
		bitutil.SetBitsTo(bitmap, 0, int64(n), true)
	} else {
		if len(valid) != n {
			panic("table: values and validity of different lengths")
		}
		for i, ok := range valid {
			if ok {
				bitutil.SetBit(bitmap, i)
			} else {
				nulls++
			}
		}
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 8*n)
	data := array.NewData(dt, n, []*memory.Buffer{memory.NewBufferBytes(bitmap), memory.NewBufferBytes(raw)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// builderBitmap is a validity bitmap for n rows as long as a fresh Arrow
// builder's after Reserve(n) (a power of two of at least 32 rows), which
// the Arrow IPC writers write whole.
func builderBitmap(n int) []byte {
	return make([]byte, bitutil.CeilByte(max(32, bitutil.NextPowerOf2(n)))/8)
}
