package table

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// TestParquetIsDeterministicWhenDictionariesOverflow: columns with more
// distinct values than a dictionary page holds (about 131,000 int64 or
// float64 values, or a megabyte of strings, in a row group) write the same
// bytes every time, and read back; columns below that keep their
// dictionary, as before.
func TestParquetIsDeterministicWhenDictionariesOverflow(t *testing.T) {
	// Enough rows for three columns to overflow (checked below), with a
	// margin: 160,000 int64 (1.28 MB), 144,000 valid float64 (1.15 MB),
	// 160,000 strings of 11 bytes (1.76 MB).
	n := 160000
	ints, floats, strs, few := make([]int64, n), make([]float64, n), make([]string, n), make([]string, n)
	valid := make([]bool, n)
	for i := range n {
		ints[i] = int64(i * 7)
		floats[i] = math.Sqrt(float64(i))
		strs[i] = fmt.Sprintf("job-%07d", i)
		few[i] = fmt.Sprintf("node-%d", i%1000)
		valid[i] = i%10 != 0
	}
	tb := New(nil, n)
	tb.SetInt64s("ints", ints, nil)
	tb.SetFloat64s("floats", floats, valid)
	tb.SetStrings("strings", strs, nil)
	tb.SetStrings("few", few, nil)
	for name, want := range map[string]bool{"ints": true, "floats": true, "strings": true, "few": false} {
		if got := dictionaryOverflows(tb.cols[tb.Index(name)], 1<<20); got != want {
			t.Errorf("%s: overflows %v, want %v", name, got, want)
		}
	}
	var first []byte
	for run := range 6 {
		var buf bytes.Buffer
		if err := Write(&buf, Parquet, tb); err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = buf.Bytes()
			continue
		}
		if !bytes.Equal(buf.Bytes(), first) {
			t.Fatalf("write %d: different bytes", run+1)
		}
	}
	back, err := Decode(first, Parquet, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(back, tb); d != "" {
		t.Error(d)
	}
}

// dictionaryOverflows's shortcuts (row groups too small to overflow, runs
// of one value) decide as counting every row does.
func TestDictionaryOverflowShortcuts(t *testing.T) {
	// counted is dictionaryOverflows without the shortcuts, one row group.
	counted := func(strs []string, valid []bool, limit int64) bool {
		seen := map[string]bool{}
		var size int64
		for i, v := range strs {
			if valid[i] && !seen[v] {
				seen[v] = true
				size += int64(len(v)) + 4
			}
		}
		return size >= limit
	}
	for _, c := range []struct {
		rows, distinct, run int
		limit               int64
	}{
		{1000, 1000, 1, 1 << 20}, {100000, 100000, 1, 1 << 20}, {200000, 200000, 1, 1 << 20}, {200000, 20000, 7, 1 << 20},
		{50000, 50000, 3, 1 << 18}, {50000, 50000, 1, 1 << 18}, {60000, 10, 1000, 100}, {60000, 60000, 2, 1 << 19},
	} {
		strs, valid := make([]string, c.rows), make([]bool, c.rows)
		ints := make([]int64, c.rows)
		for i := range c.rows {
			k := (i / c.run) % c.distinct
			strs[i], valid[i], ints[i] = fmt.Sprintf("job-%09d", k), i%5 != 0, int64(k)
			if !valid[i] {
				strs[i] = ""
			}
		}
		tb := New(nil, c.rows)
		tb.SetStrings("s", strs, valid)
		tb.SetInt64s("i", ints, nil)
		if got, want := dictionaryOverflows(tb.cols[tb.Index("s")], c.limit), counted(strs, valid, c.limit); got != want {
			t.Errorf("%+v: strings overflow %v, counting every row %v", c, got, want)
		}
		distinct := min(c.distinct, (c.rows+c.run-1)/c.run)
		if got, want := dictionaryOverflows(tb.cols[tb.Index("i")], c.limit), int64(8*distinct) >= c.limit; got != want {
			t.Errorf("%+v: int64s overflow %v, want %v", c, got, want)
		}
	}
}

// The fixed-size sets behind dictionaryOverflows count as a map does,
// around the limit, with the zero word, -0, NaNs and strings that share a
// prefix.
func TestDictionaryOverflowSetsCountAsAMap(t *testing.T) {
	for _, c := range []struct {
		rows, distinct int
		limit          int64
	}{{131071, 131071, 1 << 20}, {131072, 131072, 1 << 20}, {131073, 131073, 1 << 20}, {300000, 140000, 1 << 20}, {1000, 13, 100}, {1000, 12, 100}} {
		floats := make([]float64, c.rows)
		strs := make([]string, c.rows)
		for i := range c.rows {
			k := (i * 7919) % c.distinct
			floats[i] = float64(k) * 0.25
			switch k {
			case 1:
				floats[i] = math.Copysign(0, -1)
			case 2:
				floats[i] = math.NaN()
			}
			strs[i] = fmt.Sprintf("n-%d", k)
		}
		seen := map[uint64]bool{}
		seenS := map[string]bool{}
		var size, sizeS int64
		for i := range c.rows {
			if size < c.limit && !seen[math.Float64bits(floats[i])] {
				seen[math.Float64bits(floats[i])] = true
				size += 8
			}
			if sizeS < c.limit && !seenS[strs[i]] {
				seenS[strs[i]] = true
				sizeS += int64(len(strs[i])) + 4
			}
		}
		tb := New(nil, c.rows)
		tb.SetFloat64s("f", floats, nil)
		tb.SetStrings("s", strs, nil)
		if got, want := dictionaryOverflows(tb.cols[tb.Index("f")], c.limit), size >= c.limit; got != want {
			t.Errorf("%+v: floats overflow %v, a map says %v", c, got, want)
		}
		if got, want := dictionaryOverflows(tb.cols[tb.Index("s")], c.limit), sizeS >= c.limit; got != want {
			t.Errorf("%+v: strings overflow %v, a map says %v", c, got, want)
		}
	}
}
