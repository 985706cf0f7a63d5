package table

import (
	"fmt"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

func TestGroupBy(t *testing.T) {
	cases := []struct {
		name string
		jobs []string
		want map[string][]int
		keys []string
	}{
		{"empty", nil, map[string][]int{}, nil},
		{"contiguous", []string{"a", "a", "b", "c", "c", "c"}, map[string][]int{"a": {0, 1}, "b": {2}, "c": {3, 4, 5}}, []string{"a", "b", "c"}},
		{"interleaved", []string{"a", "b", "a", "c", "b", "a"}, map[string][]int{"a": {0, 2, 5}, "b": {1, 4}, "c": {3}}, []string{"a", "b", "c"}},
		{"back at the end", []string{"x", "x", "y", "y", "x"}, map[string][]int{"x": {0, 1, 4}, "y": {2, 3}}, []string{"x", "y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := New(schema.Loss, len(c.jobs))
			tb.SetStrings("job", c.jobs, nil)
			g := tb.GroupBy("job")
			if !slices.Equal(g.Keys(), c.keys) {
				t.Errorf("keys %v, want %v", g.Keys(), c.keys)
			}
			var buf []int
			for i := range g.Len() {
				buf = g.Rows(i, buf)
				if want := c.want[g.Key(i)]; !slices.Equal(buf, want) || g.Size(i) != len(want) {
					t.Errorf("group %q: rows %v (size %d), want %v", g.Key(i), buf, g.Size(i), want)
				}
			}
		})
	}
}

func TestTypedViewsShareTheColumn(t *testing.T) {
	tb := New(schema.Loss, 3)
	tb.SetStrings("job", []string{"a", "b", "c"}, nil)
	tb.SetInt64s("step", []int64{1, 2, 3}, []bool{true, false, true})
	tb.SetFloat64s("value", []float64{0.5, 1.5, 2.5}, nil)
	tb.SetBools("higher_is_better", []bool{true, false, true}, nil)
	if got := tb.Int64Values("step"); got[0] != 1 || got[2] != 3 {
		t.Errorf("Int64Values %v", got)
	}
	if v := tb.Validity("step"); !v.IsValid(0) || v.IsValid(1) || tb.NullCount("step") != 1 {
		t.Errorf("validity of step wrong")
	}
	if v := tb.Validity("value"); !v.IsValid(1) {
		t.Errorf("a column without nulls has a null")
	}
	if got := tb.Float64Values("value"); &got[0] != &tb.Float64Values("value")[0] {
		t.Errorf("Float64Values copies")
	}
	if s := tb.StringValues("job"); s.Len() != 3 || s.Value(1) != "b" {
		t.Errorf("StringValues")
	}
	if b := tb.BoolValues("higher_is_better"); !b.Value(0) || b.Value(1) {
		t.Errorf("BoolValues")
	}
}

// TestRepeatedColumnsEqualExpanded: a column of repeated values is the
// column of the expanded values, nulls included, and writes the same bytes.
func TestRepeatedColumnsEqualExpanded(t *testing.T) {
	runs := []int{3, 0, 1, 2}
	jobs := []string{"a", "b", "c", "d"}
	valid := []bool{true, true, false, true}
	ints := []int64{4, 5, 6, 7}
	floats := []float64{0.5, 1, 2, 3}
	bools := []bool{true, false, true, true}
	expand := func(i int) []int {
		var out []int
		for j, r := range runs {
			for range r {
				out = append(out, j)
			}
		}
		return out
	}(0)
	rep, exp := New(schema.Plan, len(expand)), New(schema.Plan, len(expand))
	rep.SetStringsRepeated("job", jobs, nil, runs)
	rep.SetStringsRepeated("reason", jobs, valid, runs)
	rep.SetInt64sRepeated("job_ps", ints, nil, runs)
	rep.SetFloat64sRepeated("job_cross_traffic", floats, valid, runs)
	rep.SetBoolsRepeated("job_even", bools, nil, runs)
	js, vs, is, fs, bs, ok := []string{}, []string{}, []int64{}, []float64{}, []bool{}, []bool{}
	for _, j := range expand {
		js = append(js, jobs[j])
		v := ""
		if valid[j] {
			v = jobs[j]
		}
		vs, is, fs, bs, ok = append(vs, v), append(is, ints[j]), append(fs, floats[j]), append(bs, bools[j]), append(ok, valid[j])
	}
	exp.SetStrings("job", js, nil)
	exp.SetStrings("reason", vs, ok)
	exp.SetInt64s("job_ps", is, nil)
	exp.SetFloat64s("job_cross_traffic", fs, ok)
	exp.SetBools("job_even", bs, nil)
	if d := Diff(rep, exp); d != "" {
		t.Fatal(d)
	}
	a, err := Conform(rep)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Conform(exp)
	if err != nil {
		t.Fatal(err)
	}
	ea, eb := encodeAll(t, a), encodeAll(t, b)
	for f := range ea {
		if string(ea[f]) != string(eb[f]) {
			t.Errorf("%s: repeated and expanded columns write different bytes", f)
		}
	}
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) == "" {
			t.Errorf("runs not adding up to the rows: no panic")
		}
	}()
	rep.SetInt64sRepeated("job_ps", ints, nil, []int{1, 1, 1, 1})
}
