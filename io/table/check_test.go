package table

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/optimus-sched/optimus/io/schema"
)

// randomPlan is a plan table of n rows built as place builds one: every
// kind of column (string, int64, float64, bool), nulls in the nullable ones
// when withNulls, a resource pattern column and a team label.
func randomPlan(n int, withNulls bool, seed uint64) *Table {
	rng := rand.New(rand.NewPCG(seed, 7))
	job, role, node, reason, method, team := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	roleOK, nodeOK, reasonOK, methodOK := make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	index, jps := make([]int64, n), make([]int64, n)
	indexOK := make([]bool, n)
	kept, even := make([]bool, n), make([]bool, n)
	cross, gpu := make([]float64, n), make([]float64, n)
	for r := range n {
		job[r] = fmt.Sprintf("job-%d-é", r/3)
		waiting := withNulls && rng.IntN(5) == 0
		if !waiting {
			role[r], roleOK[r] = []string{"ps", "worker"}[rng.IntN(2)], true
			node[r], nodeOK[r] = fmt.Sprintf("node-%d", rng.IntN(50)), true
			index[r], indexOK[r] = int64(rng.IntN(10)), true
			method[r], methodOK[r] = "even", true
			gpu[r] = float64(rng.IntN(3))
		}
		if withNulls && rng.IntN(3) == 0 {
			reason[r], reasonOK[r] = "no node has gpu", true
		}
		jps[r] = int64(rng.IntN(4))
		kept[r], even[r] = rng.IntN(2) == 0, rng.IntN(3) == 0
		cross[r] = rng.Float64()
		team[r] = []string{"x", "y", "z"}[rng.IntN(3)]
	}
	if !withNulls {
		roleOK, nodeOK, indexOK, reasonOK, methodOK = nil, nil, nil, nil, nil
	}
	t := New(schema.Plan, n)
	t.SetStrings("job", job, nil)
	t.SetStrings("role", role, roleOK)
	t.SetInt64s("index", index, indexOK)
	t.SetStrings("node", node, nodeOK)
	t.SetBools("kept", kept, nil)
	t.SetStrings("reason", reason, reasonOK)
	t.SetInt64s("job_ps", jps, nil)
	t.SetStrings("job_method", method, methodOK)
	t.SetBools("job_even", even, nil)
	t.SetFloat64sNaNAsNull("job_cross_traffic", cross)
	t.SetFloat64s("gpu", gpu, nil)
	t.SetStrings("team", team, nil)
	return t
}

// withoutShortcuts runs f with every column converted and checked by the
// general path.
func withoutShortcuts(f func()) {
	shortcuts = false
	defer func() { shortcuts = true }()
	f()
}

func encodeAll(t *testing.T, tb *Table) map[Format][]byte {
	t.Helper()
	out := map[Format][]byte{}
	for _, f := range []Format{ArrowStream, ArrowFile, Parquet, CSV} {
		var buf bytes.Buffer
		if err := Write(&buf, f, tb); err != nil {
			t.Fatal(err)
		}
		out[f] = buf.Bytes()
	}
	return out
}

// TestShortcutsWriteTheSameBytes: a table taken through the marks and
// fastCheck writes, in every format, exactly the bytes it writes when every
// column is converted and checked value by value; for tables built in
// memory, and for tables read back from every format (whose arrays come
// from the decoders, with their own buffer sizes).
func TestShortcutsWriteTheSameBytes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 9, 31, 32, 33, 63, 64, 65, 100, 1000, 4097, 6000} { // 6000: checked side by side (fastCheckAll)
		for _, nulls := range []bool{false, true} {
			t.Run(fmt.Sprintf("rows=%d/nulls=%v", n, nulls), func(t *testing.T) {
				built := randomPlan(n, nulls, uint64(n))
				fast, err := Conform(built)
				if err != nil {
					t.Fatal(err)
				}
				again, err := Conform(fast)
				if err != nil {
					t.Fatal(err)
				}
				var slow *Table
				withoutShortcuts(func() { slow, err = Conform(built) })
				if err != nil {
					t.Fatal(err)
				}
				want := encodeAll(t, slow)
				for name, tb := range map[string]*Table{"conformed": fast, "conformed twice": again} {
					for f, got := range encodeAll(t, tb) {
						if !bytes.Equal(got, want[f]) {
							t.Errorf("%s, %s: %d bytes differ from the general path's %d", name, f, len(got), len(want[f]))
						}
					}
				}
				for f, data := range want {
					if f == CSV && n == 0 {
						continue
					}
					var readFast, readSlow *Table
					readFast, err := Decode(data, f, "plan", schema.Plan)
					if err != nil {
						t.Fatal(err)
					}
					withoutShortcuts(func() { readSlow, err = Decode(data, f, "plan", schema.Plan) })
					if err != nil {
						t.Fatal(err)
					}
					if d := Diff(readFast, readSlow); d != "" {
						t.Errorf("read from %s: %s", f, d)
					}
					wantAgain := encodeAll(t, readSlow)
					for g, got := range encodeAll(t, readFast) {
						if !bytes.Equal(got, wantAgain[g]) {
							t.Errorf("read from %s, written as %s: bytes differ from the general path's", f, g)
						}
					}
				}
			})
		}
	}
}

// TestShortcutsReportTheSameErrors: every kind of bad value is found, with
// the message and count of the general path, whether the column is fresh
// or was marked as checked before being replaced.
func TestShortcutsReportTheSameErrors(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(tb *Table)
		want  string
	}{
		{"negative int", func(tb *Table) { setInt(tb, "job_ps", 5, -1) }, `column "job_ps", row 6: -1 is negative`},
		{"negative float pattern", func(tb *Table) { setFloat(tb, "gpu", 3, -2) }, `column "gpu", row 4: -2 is negative`},
		{"NaN not allowed", func(tb *Table) { setFloat(tb, "gpu", 2, math.NaN()) }, `column "gpu", row 3: NaN is not allowed`},
		{"infinite", func(tb *Table) { setFloat(tb, "job_cross_traffic", 1, math.Inf(1)) }, `row 2: +Inf is not allowed`},
		{"enum", func(tb *Table) { setString(tb, "role", 4, "chief") }, `column "role", row 5: "chief" is not one of ps, worker`},
		{"empty name", func(tb *Table) { setString(tb, "job", 0, " ") }, `column "job", row 1: empty: a name is required`},
		{"invalid UTF-8", func(tb *Table) { setString(tb, "node", 3, "n\xff") }, `column "node", row 4: "n\xff" is not valid UTF-8 text`},
		{"NUL", func(tb *Table) { setString(tb, "team", 7, "a\x00b") }, `column "team", row 8: "a\x00b" contains a NUL character`},
		{"split character", func(tb *Table) {
			// "é" cut in two across rows 1 and 2: the whole buffer is valid
			// UTF-8, each value is not.
			setStrings(tb, "team", []string{"\xc3", "\xa9"})
		}, `column "team", row 1: "\xc3" is not valid UTF-8 text`},
		{"null in a required column", func(tb *Table) { setNull(tb, "job", 2) }, `column "job", row 3: no value: the column requires one`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb, err := Conform(randomPlan(10, false, 1))
			if err != nil {
				t.Fatal(err)
			}
			c.spoil(tb)
			_, fastErr := Conform(tb)
			var slowErr error
			withoutShortcuts(func() { _, slowErr = Conform(tb) })
			if fastErr == nil || slowErr == nil {
				t.Fatalf("errors: %v, general path %v; want %q", fastErr, slowErr, c.want)
			}
			if fastErr.Error() != slowErr.Error() {
				t.Errorf("error\n got %s\nwant %s (the general path's)", fastErr, slowErr)
			}
			if !bytes.Contains([]byte(fastErr.Error()), []byte(c.want)) {
				t.Errorf("error %q does not say %q", fastErr, c.want)
			}
		})
	}
}

// TestTakeKeepsChecksOnlyForDistinctRows: a unique column stays checked
// when rows are taken at most once each, and is checked again (and its
// duplicate found) when a row is taken twice.
func TestTakeKeepsChecksOnlyForDistinctRows(t *testing.T) {
	cluster := New(schema.Cluster, 3)
	cluster.SetStrings("node", []string{"a", "b", "c"}, nil)
	cluster.SetFloat64s("gpu", []float64{1, 2, 3}, nil)
	c, err := Conform(cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]int{{0, 1, 2}, {2, 0}, {1}} {
		if _, err := Conform(c.Take(rows)); err != nil {
			t.Errorf("Take(%v): %v", rows, err)
		}
	}
	_, err = Conform(c.Take([]int{0, 1, 0}))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`duplicate node "a" (first at row 1)`)) {
		t.Errorf("Take with a row twice: got %v, want the duplicate reported", err)
	}
}

func setInt(tb *Table, col string, r int, v int64) {
	vals := tb.Int64s(col)
	vals[r] = v
	tb.SetInt64s(col, vals, tb.Valid(col))
}

func setFloat(tb *Table, col string, r int, v float64) {
	vals := tb.Float64s(col)
	vals[r] = v
	tb.SetFloat64s(col, vals, tb.Valid(col))
}

func setString(tb *Table, col string, r int, v string) {
	vals := tb.Strings(col)
	vals[r] = v
	tb.SetStrings(col, vals, tb.Valid(col))
}

func setStrings(tb *Table, col string, head []string) {
	vals := tb.Strings(col)
	copy(vals, head)
	tb.SetStrings(col, vals, tb.Valid(col))
}

func setNull(tb *Table, col string, r int) {
	valid := tb.Valid(col)
	valid[r] = false
	vals := tb.Strings(col)
	vals[r] = ""
	tb.SetStrings(col, vals, valid)
}

// TestBuiltBitmapLengths pins builtValidityLen and the boolean value
// bitmap's length to what arrow-go's builders make, which asBuilt copies.
func TestBuiltBitmapLengths(t *testing.T) {
	for n := 1; n <= 1<<12+1; n += 1 + n/16 {
		ib := array.NewInt64Builder(mem)
		ib.AppendValues(make([]int64, n), nil)
		fb := array.NewFloat64Builder(mem)
		fb.AppendValues(make([]float64, n), nil)
		bb := array.NewBooleanBuilder(mem)
		bb.AppendValues(make([]bool, n), nil)
		sb := array.NewStringBuilder(mem)
		sb.AppendValues(make([]string, n), nil)
		for _, a := range []arrow.Array{ib.NewArray(), fb.NewArray(), bb.NewArray(), sb.NewArray()} {
			id := a.DataType().ID()
			if got, want := builtValidityLen(id, n), a.Data().Buffers()[0].Len(); got != want {
				t.Errorf("%s, %d rows: builtValidityLen %d, the builder made %d", id, n, got, want)
			}
			if id == arrow.BOOL {
				if got, want := int(bitutil.BytesForBits(int64(n))), a.Data().Buffers()[1].Len(); got != want {
					t.Errorf("bool values, %d rows: %d bytes, the builder made %d", n, got, want)
				}
			}
		}
	}
}

// TestLargeTableBadValueNamed: in a table large enough for its columns to
// be checked side by side, a bad value is still reported by column and row.
func TestLargeTableBadValueNamed(t *testing.T) {
	tb := randomPlan(6000, true, 3)
	index := make([]int64, 6000)
	index[4321] = -5
	tb.SetInt64s("index", index, nil)
	_, err := Conform(tb)
	if err == nil || !strings.Contains(err.Error(), "index") || !strings.Contains(err.Error(), "row 4322") {
		t.Fatalf("error %v, want one naming column index, row 4322", err)
	}
}
