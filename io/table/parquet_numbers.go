package table

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// minMaxStatistics are an int64 or float64 column's page statistics.
type minMaxStatistics[T int64 | float64] interface {
	SetMinMax(min, max T)
}

// writeNumberDictionary is writeStringDictionary for an int64 or float64
// column (vals are its values, by row, nulls included). A float column
// with a NaN or a -0 is left to the encoder: its hash table and
// statistics give those their own equality and order.
func writeNumberDictionary[T int64 | float64](cw file.ColumnChunkWriter, values arrow.Array, vals []T, defLevels []int16) (bool, error) {
	w, enc, ok := dictionaryTarget(cw)
	n := values.Len()
	if !ok || n == 0 {
		return false, nil
	}
	_, isFloat := any(vals).([]float64)
	size := int64(unsafe.Sizeof(T(0)))
	valid := validityOf(values)
	batch := int(cw.Properties().WriteBatchSize())

	indices := make([]int32, n)
	var dict []T
	seen := map[T]int32{}
	spans := make([]batchSpan, 0, (n+batch-1)/batch)
	prev, other := int32(-1), int32(-1) // the last value's index, and the one before
	for lo := 0; lo < n; lo += batch {
		s := batchSpan{lo: lo, hi: min(n, lo+batch), min: -1, max: -1}
		last := int32(-1)
		for r := s.lo; r < s.hi; r++ {
			if r == distinctCheck && len(dict) > r/2 {
				return false, nil
			}
			if valid.null(r) {
				s.nulls++
				continue
			}
			v := vals[r]
			k := prev
			switch {
			case prev >= 0 && v == dict[prev]:
			case other >= 0 && v == dict[other]:
				// Two values taking turns (a PS's and a worker's) are
				// not looked up either.
				k, prev, other = other, other, prev
			default:
				var found bool
				if k, found = seen[v]; !found {
					if isFloat {
						if f := float64(v); math.IsNaN(f) || f == 0 && math.Signbit(f) {
							return false, nil
						}
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
		s.raw = size * int64(s.hi-s.lo-s.nulls)
		s.entries = len(dict)
		spans = append(spans, s)
	}
	props := cw.Properties()
	if len(dict) == 0 || n < distinctCheck && len(dict) > n/2 || size*int64(len(dict)) >= props.DictionaryPageSizeLimit() ||
		cutsBeforeWhole(spans, len(dict), props.DataPageSize()) {
		return false, nil
	}
	stats, ok := w.PageStatistics().(minMaxStatistics[T])
	if !ok && w.PageStatistics() != nil {
		return false, nil
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dict))), len(dict)*int(size))
	data := array.NewData(arrow.GetDataType[T](), len(dict), []*memory.Buffer{nil, memory.NewBufferBytes(raw)}, nil, 0, 0)
	defer data.Release()
	dictArr := array.MakeFromData(data)
	defer dictArr.Release()
	return true, writeIndices(w, enc, dictArr, values, indices, spans, defLevels, func(lo, hi int32) {
		stats.SetMinMax(dict[lo], dict[hi])
	})
}
