package table

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// A column chunk's dictionary written from outside the encoder: the
// string, int64 and float64 writers here build the dictionary (in order of
// first appearance) and each value's index with one map lookup per change
// of value, seed the encoder with the dictionary and hand it the indices,
// in the batches, with the raw sizes (which cut the pages) and the page
// statistics that the encoder's own path over the values would give, so
// that the bytes are the same. The encoder's path hashes every value; on
// a per-job or per-task column, whose values come in runs or from a few,
// that is most of a Parquet write.

// distinctCheck is the row at which a column whose values so far are
// more than half distinct is left to the encoder: on such a column its
// own hashing costs less than a map of the values and then its hashing of
// the dictionary.
const distinctCheck = 1024

// writeDictionary writes values through the dictionary writer of their
// type, and reports false, having written nothing, where it leaves them to
// the encoder.
func writeDictionary(cw file.ColumnChunkWriter, values arrow.Array, defLevels []int16) (bool, error) {
	switch v := values.(type) {
	case *array.String:
		return writeStringDictionary(cw, v, defLevels)
	case *array.Int64:
		return writeNumberDictionary(cw, v, v.Int64Values(), defLevels)
	case *array.Float64:
		return writeNumberDictionary(cw, v, v.Float64Values(), defLevels)
	}
	return false, nil
}

// dictionarySeeder is the part of arrow-go's dictionary encoder that is
// driven from here: seeding the dictionary, and counting the raw bytes by
// which the writer sizes a dictionary-encoded page.
type dictionarySeeder interface {
	PutDictionary(arrow.Array) error
	AddRawSize(int64)
	NumEntries() int
}

// indexWriter is a column chunk writer that takes dictionary indices.
type indexWriter interface {
	file.ColumnChunkWriter
	WriteDictIndices(indices arrow.Array, defLevels, repLevels []int16) error
}

// dictionaryTarget is cw's writer and encoder when cw is a fresh,
// dictionary-encoding, flat column chunk writer of version 1 pages without
// bloom filters (the writer of every optimus table): the case whose bytes
// writeIndices reproduces.
func dictionaryTarget(cw file.ColumnChunkWriter) (indexWriter, dictionarySeeder, bool) {
	w, ok := cw.(indexWriter)
	if !ok {
		return nil, nil, false
	}
	enc, ok := cw.CurrentEncoder().(dictionarySeeder)
	props, descr := cw.Properties(), cw.Descr()
	if !ok || enc.NumEntries() != 0 || !isDictionaryEncoding(cw.CurrentEncoder().Encoding()) ||
		descr.MaxRepetitionLevel() != 0 || props.DataPageVersion() != parquet.DataPageV1 ||
		props.BloomFilterEnabledFor(descr.Path()) {
		return nil, nil, false
	}
	return w, enc, true
}

func isDictionaryEncoding(e parquet.Encoding) bool {
	return e == parquet.Encodings.PlainDict || e == parquet.Encodings.RLEDict
}

// validity reads a column's nulls straight from its bitmap (an
// arrow.Array's IsNull is a call through an interface per row).
type validity struct {
	bitmap []byte
	offset int
}

func validityOf(a arrow.Array) validity {
	if a.NullN() == 0 {
		return validity{}
	}
	return validity{bitmap: a.NullBitmapBytes(), offset: a.Data().Offset()}
}

func (v validity) null(r int) bool {
	return v.bitmap != nil && !bitutil.BitIsSet(v.bitmap, v.offset+r)
}

// batchSpan is one batch of the writer's loop: rows [lo, hi), its nulls,
// the raw bytes of its values, the dictionary's size at its end, and the
// indices of its least and greatest value (-1 when every row is null).
type batchSpan struct {
	lo, hi, nulls int
	raw           int64
	entries       int
	min, max      int32
}

// cutsBeforeWhole reports whether the writer would cut a page before the
// dictionary of entries values has its final index width: it cuts a page
// after the batch that brings the page's raw bytes to the page size, and
// writes the page's indices as wide as the dictionary is then (written
// from here, the dictionary is whole from the start, so the widths would
// differ).
func cutsBeforeWhole(spans []batchSpan, entries int, pageSize int64) bool {
	raw := int64(0)
	for k, s := range spans {
		if raw += s.raw; raw >= pageSize {
			if k < len(spans)-1 && indexWidth(s.entries) != indexWidth(entries) {
				return true
			}
			raw = 0
		}
	}
	return false
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

// writeIndices seeds enc with dict and writes each batch's indices, after
// counting its nulls and values and, through setMinMax, its least and
// greatest value into the page statistics (as the writer does before it
// checks the page).
func writeIndices(w indexWriter, enc dictionarySeeder, dict arrow.Array, values arrow.Array, indices []int32, spans []batchSpan, defLevels []int16, setMinMax func(min, max int32)) error {
	if err := enc.PutDictionary(dict); err != nil {
		return err
	}
	// The indices, with the values' validity (from bit 0: the values
	// may be a slice).
	n := values.Len()
	var valid *memory.Buffer
	if values.NullN() > 0 {
		bitmap := make([]byte, bitutil.BytesForBits(int64(n)))
		bitutil.CopyBitmap(values.NullBitmapBytes(), values.Data().Offset(), n, bitmap, 0)
		valid = memory.NewBufferBytes(bitmap)
	}
	data := array.NewData(arrow.PrimitiveTypes.Int32, n,
		[]*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(indices))}, nil, values.NullN(), 0)
	defer data.Release()
	all := array.MakeFromData(data)
	defer all.Release()
	stats := w.PageStatistics()
	for _, s := range spans {
		if stats != nil {
			stats.IncNulls(int64(s.nulls))
			stats.IncNumValues(int64(s.hi - s.lo - s.nulls))
			if s.min >= 0 {
				setMinMax(s.min, s.max)
			}
		}
		enc.AddRawSize(s.raw)
		part := array.NewSlice(all, int64(s.lo), int64(s.hi))
		var levels []int16
		if defLevels != nil {
			levels = defLevels[s.lo:s.hi]
		}
		err := w.WriteDictIndices(part, levels, nil)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
