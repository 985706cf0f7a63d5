package table

import (
	"bytes"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// writeStringDictionary writes a string column chunk's values as the
// dictionary encoder would from the values themselves (pqarrow's path),
// with the same bytes (see parquet_dictionary.go). It reports false,
// having written nothing, where its bytes could differ or where it would
// be slower: a writer dictionaryTarget does not take, a dictionary that
// would outgrow its page (the writer falls back to plain), a page cut
// before the dictionary has its final index width, another sort order
// than unsigned bytes (UTF-8's, which bytes.Compare gives), or mostly
// distinct values.
func writeStringDictionary(cw file.ColumnChunkWriter, values *array.String, defLevels []int16) (bool, error) {
	w, enc, ok := dictionaryTarget(cw)
	n := values.Len()
	if !ok || n == 0 || cw.Descr().SortOrder() != schema.SortUNSIGNED {
		return false, nil
	}
	buf := []byte{}
	if b := values.Data().Buffers()[2]; b != nil {
		buf = b.Bytes()
	}
	offsets := values.ValueOffsets()
	valid := validityOf(values)
	batch := int(cw.Properties().WriteBatchSize())

	// The dictionary by first appearance, and the batches: a value equal
	// to the one before it is neither looked up nor compared.
	indices := make([]int32, n)
	var dict [][]byte
	seen := map[string]int32{}
	dictSize := int64(0)
	spans := make([]batchSpan, 0, (n+batch-1)/batch)
	prev, other := int32(-1), int32(-1) // the last value's index, and the one before
	for lo := 0; lo < n; lo += batch {
		s := batchSpan{lo: lo, hi: min(n, lo+batch), min: -1, max: -1}
		last := int32(-1) // the batch's value before, for its min and max
		for r := s.lo; r < s.hi; r++ {
			if r == distinctCheck && len(dict) > r/2 {
				return false, nil
			}
			if valid.null(r) {
				s.nulls++
				continue
			}
			v := buf[offsets[r]:offsets[r+1]]
			s.raw += int64(len(v)) + 4 // the value's bytes and its length
			k := prev
			switch {
			case prev >= 0 && bytes.Equal(v, dict[prev]):
			case other >= 0 && bytes.Equal(v, dict[other]):
				// Two values taking turns (ps and worker) are not
				// looked up either.
				k, prev, other = other, other, prev
			default:
				// The key is v's bytes in the column's buffer, which
				// outlives the map: no copy.
				key := unsafe.String(unsafe.SliceData(v), len(v))
				var found bool
				if k, found = seen[key]; !found {
					k = int32(len(dict))
					seen[key] = k
					dict = append(dict, v)
					dictSize += int64(len(v)) + 4
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
			case bytes.Compare(v, dict[s.min]) < 0:
				s.min = k
			case bytes.Compare(v, dict[s.max]) > 0:
				s.max = k
			}
		}
		s.entries = len(dict)
		spans = append(spans, s)
	}
	props := cw.Properties()
	if len(dict) == 0 || n < distinctCheck && len(dict) > n/2 || dictSize >= props.DictionaryPageSizeLimit() ||
		cutsBeforeWhole(spans, len(dict), props.DataPageSize()) {
		return false, nil
	}
	stats, ok := w.PageStatistics().(*metadata.ByteArrayStatistics)
	if !ok && w.PageStatistics() != nil {
		return false, nil
	}
	db := array.NewStringBuilder(memory.DefaultAllocator)
	defer db.Release()
	db.ReserveData(int(dictSize))
	for _, v := range dict {
		db.BinaryBuilder.Append(v)
	}
	dictArr := db.NewArray()
	defer dictArr.Release()
	return true, writeIndices(w, enc, dictArr, values, indices, spans, defLevels, func(lo, hi int32) {
		stats.SetMinMax(dict[lo], dict[hi])
	})
}
