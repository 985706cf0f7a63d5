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
	n := 300000
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
