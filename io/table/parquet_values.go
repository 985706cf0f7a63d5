package table

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// dictValue is a column value as the dictionary writer compares it: an
// int64, a float64, or a string's bytes (a string that views the
// column's buffer), whose == and < are byte by byte, the unsigned order
// of UTF-8 strings' statistics.
type dictValue interface{ int64 | float64 | string }

// valueColumn is what writeValueDictionary needs of a column: the values
// of a batch's rows [lo, hi) (a null row's undefined; the slice may be
// reused by the next call), the raw bytes of a batch's values (the
// writer's page sizes),
// the dictionary's size, which values to leave to the encoder (nil:
// none), the dictionary as an Arrow array, and the page statistics' min
// and max setter (false for statistics of another type).
type valueColumn[T dictValue] struct {
	batch     func(lo, hi int) []T
	raw       func(lo, hi, nonNull int) int64
	dictSize  func(dict []T) int64
	refuse    func(v T) bool
	array     func(dict []T) arrow.Array
	setMinMax func(stats metadata.TypedStatistics) (func(min, max T), bool)
}

// writeStringDictionary writes a string column chunk through
// writeValueDictionary: a value's raw bytes are its own plus 4 (its
// length). Another sort order than unsigned bytes is left to the encoder.
func writeStringDictionary(cw file.ColumnChunkWriter, values *array.String, defLevels []int16) (bool, error) {
	if cw.Descr().SortOrder() != schema.SortUNSIGNED {
		return false, nil
	}
	buf := []byte{}
	if b := values.Data().Buffers()[2]; b != nil {
		buf = b.Bytes()
	}
	offsets := values.ValueOffsets()
	var views []string
	return writeValueDictionary(cw, values, defLevels, valueColumn[string]{
		// Views of the values' bytes in the column's buffer, which
		// outlives them: no copy.
		batch: func(lo, hi int) []string {
			views = views[:0]
			for r := lo; r < hi; r++ {
				var v string
				if n := offsets[r+1] - offsets[r]; n > 0 {
					v = unsafe.String(&buf[offsets[r]], n)
				}
				views = append(views, v)
			}
			return views
		},
		raw: func(lo, hi, nonNull int) int64 {
			if nonNull == hi-lo {
				return int64(offsets[hi]-offsets[lo]) + 4*int64(nonNull)
			}
			raw := int64(0)
			for r := lo; r < hi; r++ {
				if values.IsValid(r) {
					raw += int64(offsets[r+1]-offsets[r]) + 4
				}
			}
			return raw
		},
		dictSize: func(dict []string) int64 {
			size := int64(0)
			for _, v := range dict {
				size += int64(len(v)) + 4
			}
			return size
		},
		array: func(dict []string) arrow.Array {
			b := array.NewStringBuilder(memory.DefaultAllocator)
			defer b.Release()
			b.Reserve(len(dict))
			for _, v := range dict {
				b.Append(v)
			}
			return b.NewArray()
		},
		setMinMax: func(stats metadata.TypedStatistics) (func(min, max string), bool) {
			s, ok := stats.(*metadata.ByteArrayStatistics)
			return func(min, max string) { s.SetMinMax(bytesOf(min), bytesOf(max)) }, ok
		},
	})
}

// bytesOf is s's bytes, without a copy; never nil, as the statistics
// take nil for no value.
func bytesOf(s string) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// writeNumberDictionary writes an int64 or float64 column chunk (vals
// are its values, by row, nulls included) through writeValueDictionary.
// A float NaN or -0 is left to the encoder: its hash table and statistics
// give those their own equality and order.
func writeNumberDictionary[T int64 | float64](cw file.ColumnChunkWriter, values arrow.Array, vals []T, defLevels []int16) (bool, error) {
	col := valueColumn[T]{
		batch:    func(lo, hi int) []T { return vals[lo:hi] },
		raw:      func(lo, hi, nonNull int) int64 { return 8 * int64(nonNull) },
		dictSize: func(dict []T) int64 { return 8 * int64(len(dict)) },
		array: func(dict []T) arrow.Array {
			raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dict))), 8*len(dict))
			data := array.NewData(arrow.GetDataType[T](), len(dict), []*memory.Buffer{nil, memory.NewBufferBytes(raw)}, nil, 0, 0)
			defer data.Release()
			return array.MakeFromData(data)
		},
		setMinMax: func(stats metadata.TypedStatistics) (func(min, max T), bool) {
			s, ok := stats.(interface{ SetMinMax(min, max T) })
			return func(min, max T) { s.SetMinMax(min, max) }, ok
		},
	}
	if _, isFloat := any(vals).([]float64); isFloat {
		col.refuse = func(v T) bool {
			f := float64(v)
			return math.IsNaN(f) || f == 0 && math.Signbit(f)
		}
	}
	return writeValueDictionary(cw, values, defLevels, col)
}

// writeValueDictionary writes a column chunk's values as the dictionary encoder would from the values themselves (pqarrow's
// path), with the same bytes (see parquet_dictionary.go). It reports
// false, having written nothing, where its bytes could differ or where it
// would be slower: a writer dictionaryTarget does not take, a dictionary
// that would outgrow its page (the writer falls back to plain), a page
// cut before the dictionary has its final index width, a value col
// refuses, or mostly distinct values.
func writeValueDictionary[T dictValue](cw file.ColumnChunkWriter, values arrow.Array, defLevels []int16, col valueColumn[T]) (bool, error) {
	w, enc, ok := dictionaryTarget(cw)
	n := values.Len()
	if !ok || n == 0 {
		return false, nil
	}
	valid := validityOf(values)
	batch := int(cw.Properties().WriteBatchSize())

	// The dictionary by first appearance, and the batches: a value equal
	// to either of the last two is not looked up, and one equal to the
	// batch's last is not compared for its min and max.
	indices := make([]int32, n)
	var dict []T
	seen := map[T]int32{}
	spans := make([]batchSpan, 0, (n+batch-1)/batch)
	prev, other := int32(-1), int32(-1) // the last value's index, and the one before
	for lo := 0; lo < n; lo += batch {
		s := batchSpan{lo: lo, hi: min(n, lo+batch), min: -1, max: -1}
		last := int32(-1)
		vals := col.batch(s.lo, s.hi)
		for r := s.lo; r < s.hi; r++ {
			if r == distinctCheck && len(dict) > r/2 {
				return false, nil
			}
			if valid.null(r) {
				s.nulls++
				continue
			}
			v := vals[r-s.lo]
			k := prev
			switch {
			case prev >= 0 && v == dict[prev]:
			case other >= 0 && v == dict[other]:
				// Two values taking turns (a PS's and a worker's).
				k, prev, other = other, other, prev
			default:
				var found bool
				if k, found = seen[v]; !found {
					if col.refuse != nil && col.refuse(v) {
						return false, nil
					}
					k = int32(len(dict))
					seen[v] = k
					dict = append(dict, v)
				}
				prev, other = k, prev
			}
			indices[r] = k
			if k == last {
				continue
			}
			last = k
			switch {
			case s.min < 0:
				s.min, s.max = k, k
			case v < dict[s.min]:
				s.min = k
			case v > dict[s.max]:
				s.max = k
			}
		}
		s.raw = col.raw(s.lo, s.hi, s.hi-s.lo-s.nulls)
		s.entries = len(dict)
		spans = append(spans, s)
	}
	props := cw.Properties()
	if len(dict) == 0 || n < distinctCheck && len(dict) > n/2 || col.dictSize(dict) >= props.DictionaryPageSizeLimit() ||
		cutsBeforeWhole(spans, len(dict), props.DataPageSize()) {
		return false, nil
	}
	var set func(min, max T)
	if stats := w.PageStatistics(); stats != nil {
		if set, ok = col.setMinMax(stats); !ok {
			return false, nil
		}
	}
	dictArr := col.array(dict)
	defer dictArr.Release()
	return true, writeIndices(w, enc, dictArr, values, indices, spans, defLevels, func(lo, hi int32) { set(dict[lo], dict[hi]) })
}
