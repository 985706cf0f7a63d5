package table

import (
	"bytes"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// distinctCheck is the row at which writeStringDictionary leaves to the
// writer a column whose values so far are more than half distinct: on
// such a column the writer's own hashing costs less than a map of the
// values and then the writer's hashing of the dictionary.
const distinctCheck = 1024

// dictionarySeeder is the part of arrow-go's dictionary encoder that
// writeStringDictionary drives: seeding the dictionary, and counting the
// raw bytes by which the writer sizes a dictionary-encoded page.
type dictionarySeeder interface {
	PutDictionary(arrow.Array) error
	AddRawSize(int64)
	NumEntries() int
}

// writeStringDictionary writes a string column chunk's values as the
// dictionary encoder would from the values themselves (pqarrow's path),
// with the same bytes: the dictionary in order of first appearance, the
// same indices, batches, page cuts and statistics. It builds the
// dictionary with one map lookup per change of value instead of the
// encoder's hash of every value, which on a per-job or per-node column
// is most of a Parquet write. It reports false, having written nothing,
// where its bytes could differ, or where it would be slower (a column of
// mostly distinct values): the writer not dictionary-encoding the
// column, a dictionary that would outgrow its page (the writer falls back
// to plain), a page cut before the dictionary has its final index width,
// another sort order than unsigned bytes (UTF-8), or bloom filters.
func writeStringDictionary(cw file.ColumnChunkWriter, values *array.String, defLevels []int16) (bool, error) {
	w, ok := cw.(*file.ByteArrayColumnChunkWriter)
	if !ok || values.Len() == 0 {
		return false, nil
	}
	enc, ok := w.CurrentEncoder().(dictionarySeeder)
	props, descr := w.Properties(), w.Descr()
	if !ok || enc.NumEntries() != 0 || !isDictionaryEncoding(w.CurrentEncoder().Encoding()) ||
		descr.SortOrder() != schema.SortUNSIGNED || descr.MaxRepetitionLevel() != 0 ||
		props.DataPageVersion() != parquet.DataPageV1 || props.BloomFilterEnabledFor(descr.Path()) {
		return false, nil
	}
	n := values.Len()
	buf := []byte{}
	if b := values.Data().Buffers()[2]; b != nil {
		buf = b.Bytes()
	}
	offsets := values.ValueOffsets()
	value := func(r int) []byte { return buf[offsets[r]:offsets[r+1]] }

	// The dictionary, by first appearance: a value equal to the one
	// before it is not looked up.
	indices := make([]int32, n)
	var dict [][]byte
	seen := map[string]int32{}
	dictSize := int64(0)
	prev := int32(-1)
	for r := range n {
		if r == distinctCheck && len(dict) > r/2 {
			return false, nil
		}
		if values.IsNull(r) {
			continue
		}
		v := value(r)
		if prev >= 0 && bytes.Equal(v, dict[prev]) {
			indices[r] = prev
			continue
		}
		// The key is v's bytes in the column's buffer, which outlives
		// the map: no copy.
		key := unsafe.String(unsafe.SliceData(v), len(v))
		k, ok := seen[key]
		if !ok {
			k = int32(len(dict))
			seen[key] = k
			dict = append(dict, v)
			dictSize += int64(len(v)) + 4
		}
		indices[r], prev = k, k
	}
	if len(dict) == 0 || n < distinctCheck && len(dict) > n/2 || dictSize >= props.DictionaryPageSizeLimit() {
		return false, nil
	}

	// The batches and page cuts of the writer's own loop: a page is cut
	// after the batch that brings its raw bytes (each value's, plus 4) to
	// the page size; its indices are as wide as the dictionary is then.
	batch := props.WriteBatchSize()
	type span struct {
		lo, hi, nulls int
		raw           int64
	}
	var spans []span
	pageRaw, entries := int64(0), 0 // entries: the dictionary's size so far
	for lo := 0; lo < n; lo += int(batch) {
		hi := min(n, lo+int(batch))
		s := span{lo: lo, hi: hi}
		for r := lo; r < hi; r++ {
			if values.IsNull(r) {
				s.nulls++
				continue
			}
			entries = max(entries, int(indices[r])+1)
			s.raw += int64(offsets[r+1]-offsets[r]) + 4
		}
		spans = append(spans, s)
		if pageRaw += s.raw; pageRaw >= props.DataPageSize() {
			if hi < n && indexWidth(entries) != indexWidth(len(dict)) {
				return false, nil
			}
			pageRaw = 0
		}
	}

	db := array.NewStringBuilder(memory.DefaultAllocator)
	defer db.Release()
	for _, v := range dict {
		db.BinaryBuilder.Append(v)
	}
	dictArr := db.NewArray()
	defer dictArr.Release()
	if err := enc.PutDictionary(dictArr); err != nil {
		return true, err
	}
	// The indices, with the values' validity (from bit 0: the values
	// may be a slice).
	var valid *memory.Buffer
	if values.NullN() > 0 {
		bitmap := make([]byte, bitutil.BytesForBits(int64(n)))
		bitutil.CopyBitmap(values.NullBitmapBytes(), values.Data().Offset(), n, bitmap, 0)
		valid = memory.NewBufferBytes(bitmap)
	}
	idxData := array.NewData(arrow.PrimitiveTypes.Int32, n,
		[]*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(indices))}, nil, values.NullN(), 0)
	defer idxData.Release()
	idxArr := array.MakeFromData(idxData)
	defer idxArr.Release()

	stats, _ := w.PageStatistics().(*metadata.ByteArrayStatistics)
	for _, s := range spans {
		if stats != nil {
			stats.IncNulls(int64(s.nulls))
			stats.IncNumValues(int64(s.hi - s.lo - s.nulls))
			// The batch's min and max in byte order (UTF-8's), compared
			// once per run of a value.
			lo, hi, last := int32(-1), int32(-1), int32(-1)
			for r := s.lo; r < s.hi; r++ {
				if values.IsNull(r) || indices[r] == last {
					continue
				}
				k := indices[r]
				last = k
				if lo < 0 {
					lo, hi = k, k
					continue
				}
				if bytes.Compare(dict[k], dict[lo]) < 0 {
					lo = k
				} else if bytes.Compare(dict[k], dict[hi]) > 0 {
					hi = k
				}
			}
			if lo >= 0 {
				stats.SetMinMax(dict[lo], dict[hi])
			}
		}
		enc.AddRawSize(s.raw)
		part := array.NewSlice(idxArr, int64(s.lo), int64(s.hi))
		var levels []int16
		if defLevels != nil {
			levels = defLevels[s.lo:s.hi]
		}
		err := w.WriteDictIndices(part, levels, nil)
		part.Release()
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// indexWidth is the bit width of a dictionary index for entries values,
// as the dictionary encoder computes it.
func indexWidth(entries int) int {
	switch entries {
	case 0:
		return 0
	case 1:
		return 1
	}
	return bits.Len32(uint32(entries - 1))
}

func isDictionaryEncoding(e parquet.Encoding) bool {
	return e == parquet.Encodings.PlainDict || e == parquet.Encodings.RLEDict
}
