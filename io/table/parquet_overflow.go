package table

import (
	"hash/maphash"
	"math"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// dictionaryOverflows reports whether the Parquet writer's dictionary for
// the column would outgrow limit bytes in some row group: it then falls
// back to plain encoding mid-chunk and lists the chunk's page encodings
// from a Go map, in random order (arrow-go v18.8.0), so that the same table
// writes different bytes from run to run. Such columns are written plain
// from the start. The sizes are the writer's own (DictEncodedSize): each
// distinct value's bytes, plus 4 for a string's length; the count stops at
// the limit. A row group that could not reach the limit even if every
// value were distinct (its values' bytes, plus 4 a string) is not counted,
// and a value equal to the one before it (the runs of a per-job column) is
// not looked up.
//
// The distinct values are counted in a set of fixed size, open addressing
// over a table sized once for the most values the limit lets in (limit/8
// numbers, limit/4 strings), reused between columns: on a mostly distinct
// column of a large table, a Go map grown to the limit's size one doubling
// at a time cost more than the rest of the write.
func dictionaryOverflows(a arrow.Array, limit int64) bool {
	n := a.Len()
	for lo := 0; lo < n; lo += parquetRowGroup {
		hi := min(n, lo+parquetRowGroup)
		var size int64
		switch a := a.(type) {
		case *array.String:
			offsets := a.ValueOffsets()
			if int64(offsets[hi]-offsets[lo])+4*int64(hi-lo) < limit {
				continue
			}
			size = distinctStrings(a, lo, hi, limit)
		case *array.Int64:
			if 8*int64(hi-lo) < limit {
				continue
			}
			size = distinctWords(a.Int64Values()[lo:hi], validityOf(a), lo, limit, func(v int64) uint64 { return uint64(v) })
		case *array.Float64:
			if 8*int64(hi-lo) < limit {
				continue
			}
			size = distinctWords(a.Float64Values()[lo:hi], validityOf(a), lo, limit, math.Float64bits)
		}
		if size >= limit {
			return true
		}
	}
	return false
}

// distinctWords is 8 bytes per distinct non-null value of vals (rows
// lo.. of a column of validity valid), counted up to limit.
func distinctWords[T any](vals []T, valid validity, lo int, limit int64, key func(T) uint64) int64 {
	set := getWordSet(min(len(vals), int((limit+7)/8)))
	defer putWordSet(set)
	var size int64
	var prev uint64
	havePrev := false
	for i, v := range vals {
		if size >= limit {
			break
		}
		if valid.null(lo + i) {
			continue
		}
		k := key(v)
		if havePrev && k == prev {
			continue
		}
		prev, havePrev = k, true
		if set.add(k) {
			size += 8
		}
	}
	return size
}

// distinctStrings is the dictionary size of rows [lo, hi) of a: each
// distinct non-null value's bytes plus 4, counted up to limit.
func distinctStrings(a *array.String, lo, hi int, limit int64) int64 {
	set := getStringSet(min(hi-lo, int((limit+3)/4)))
	defer putStringSet(set)
	valid := validityOf(a)
	var size int64
	prev, havePrev := "", false
	for r := lo; r < hi && size < limit; r++ {
		if valid.null(r) {
			continue
		}
		v := a.Value(r)
		if havePrev && v == prev {
			continue
		}
		prev, havePrev = v, true
		if set.add(a, r, v) {
			size += int64(len(v)) + 4
		}
	}
	return size
}

// slotsFor is the table size of a set that holds up to n values: a power
// of two at least twice n, so that probes stay short.
func slotsFor(n int) int {
	return 1 << bits.Len(uint(2*max(n, 4)-1))
}

// wordSet is a set of up to a fixed number of 64-bit words, by linear
// probing; the zero word, which marks a free slot, is kept apart.
type wordSet struct {
	slots   []uint64
	shift   uint
	hasZero bool
}

func (s *wordSet) reset(n int) {
	m := slotsFor(n)
	if cap(s.slots) < m {
		s.slots = make([]uint64, m)
	} else {
		s.slots = s.slots[:m]
		clear(s.slots)
	}
	s.shift = uint(64 - bits.Len(uint(m-1)))
	s.hasZero = false
}

// add puts k in the set and reports whether it was new. The set must not
// be full.
func (s *wordSet) add(k uint64) bool {
	if k == 0 {
		had := s.hasZero
		s.hasZero = true
		return !had
	}
	mask := len(s.slots) - 1
	for i := int((k * 0x9e3779b97f4a7c15) >> s.shift); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case 0:
			s.slots[i] = k
			return true
		}
	}
}

// stringSet is a set of up to a fixed number of a string column's values,
// by linear probing: each slot holds a row (plus 1; 0 is free) and its
// value's hash.
type stringSet struct {
	rows   []int32
	hashes []uint32
	shift  uint
	seed   maphash.Seed
}

func (s *stringSet) reset(n int) {
	m := slotsFor(n)
	if cap(s.rows) < m {
		s.rows, s.hashes = make([]int32, m), make([]uint32, m)
	} else {
		s.rows, s.hashes = s.rows[:m], s.hashes[:m]
		clear(s.rows)
	}
	s.shift = uint(64 - bits.Len(uint(m-1)))
}

// add puts row r of a, whose value is v, in the set unless a row of the
// same value is in it, and reports whether it was new.
func (s *stringSet) add(a *array.String, r int, v string) bool {
	h := maphash.String(s.seed, v)
	mask := len(s.rows) - 1
	for i := int(h >> s.shift); ; i = (i + 1) & mask {
		row := s.rows[i]
		if row == 0 {
			s.rows[i], s.hashes[i] = int32(r+1), uint32(h)
			return true
		}
		if s.hashes[i] == uint32(h) && a.Value(int(row-1)) == v {
			return false
		}
	}
}

// The sets are pooled: each column of a table sizes one for the same
// limit, and a fresh table of that size is page faults as much as work.
var wordSets, stringSets sync.Pool

func getWordSet(n int) *wordSet {
	s, _ := wordSets.Get().(*wordSet)
	if s == nil {
		s = &wordSet{}
	}
	s.reset(n)
	return s
}

func putWordSet(s *wordSet) { wordSets.Put(s) }

func getStringSet(n int) *stringSet {
	s, _ := stringSets.Get().(*stringSet)
	if s == nil {
		s = &stringSet{seed: maphash.MakeSeed()}
	}
	s.reset(n)
	return s
}

func putStringSet(s *stringSet) { stringSets.Put(s) }
