package table

import (
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// The adopting setters make the column the copying ones make: the same
// values, validity bits and nulls, and the same bytes in every format.
func TestAdoptedColumnsEqualCopied(t *testing.T) {
	ints := []int64{4, -5, 6, 7, 1 << 40, 0, 3, 2, 9}
	floats := []float64{0.5, 1, 2, 3, 1e300, -0.25, 7, 8, 9}
	valid := []bool{true, true, false, true, true, false, true, true, true}
	n := len(ints)
	for _, v := range [][]bool{nil, valid} {
		ad, cp := New(schema.Plan, n), New(schema.Plan, n)
		ad.AdoptInt64s("index", append([]int64(nil), ints...), v)
		ad.AdoptFloat64s("job_cross_traffic", append([]float64(nil), floats...), v)
		cp.SetInt64s("index", ints, v)
		cp.SetFloat64s("job_cross_traffic", floats, v)
		if d := Diff(ad, cp); d != "" {
			t.Fatal(d)
		}
		for _, c := range []string{"index", "job_cross_traffic"} {
			a, b := ad.cols[ad.Index(c)], cp.cols[cp.Index(c)]
			if a.NullN() != b.NullN() || string(a.NullBitmapBytes()[:n/8]) != string(b.NullBitmapBytes()[:n/8]) {
				t.Errorf("%s (valid %v): nulls %d, bitmap %x; copied %d, %x", c, v, a.NullN(), a.NullBitmapBytes(), b.NullN(), b.NullBitmapBytes())
			}
		}
		ea, eb := encodeAll(t, ad), encodeAll(t, cp)
		for f := range ea {
			if string(ea[f]) != string(eb[f]) {
				t.Errorf("valid %v: %s: adopted and copied columns write different bytes", v, f)
			}
		}
	}
}
