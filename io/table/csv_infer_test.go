package table

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// TestInferredFloatsAreTheParsedOnes checks that the values the type
// inference keeps for a float64 column (inferCSVValues) are exactly what
// parsing the column as float64 gives, null for null and bit for bit, and
// that keeping them does not change the inferred type: every column of up
// to four fields drawn from numbers, signs, spaces, words and the texts
// that strconv reads but a table does not.
func TestInferredFloatsAreTheParsedOnes(t *testing.T) {
	vocabulary := []string{"", " ", "1", "+1", "-0", " 2.5 ", "1e400", "-1e-400", "NaN", "-inf", "Infinity",
		"1_000", "0x10", "9007199254740993", "true", "abc", ".5", "5.", "1e", "--1"}
	kept := 0
	var cells []string
	var walk func(depth int)
	walk = func(depth int) {
		if len(cells) > 0 {
			col := stringCells(cells)
			typ, v := inferCSVValues(col, true)
			if want := inferCSVType(col); typ != want {
				t.Fatalf("%q: inferCSVValues says %v, inferCSVType %v", cells, typ, want)
			}
			if v != nil {
				kept++
				if typ != schema.Float64 {
					t.Fatalf("%q: values kept for a %v column", cells, typ)
				}
				want, err := parseCSVColumn("s", "c", col, schema.Float64)
				if err != nil {
					t.Fatalf("%q: values kept, but parsing fails: %v", cells, err)
				}
				for r := range cells {
					gotNull, wantNull := v.valid != nil && !v.valid[r], want.valid != nil && !want.valid[r]
					if gotNull != wantNull || !gotNull && math.Float64bits(v.f[r]) != math.Float64bits(want.f[r]) {
						t.Fatalf("%q row %d: kept %v (null %v), parsed %v (null %v)", cells, r, v.f[r], gotNull, want.f[r], wantNull)
					}
				}
			}
		}
		if depth == 4 {
			return
		}
		for _, c := range vocabulary {
			cells = append(cells, c)
			walk(depth + 1)
			cells = cells[:len(cells)-1]
		}
	}
	walk(0)
	if kept == 0 {
		t.Fatal("no column kept its values")
	}
	t.Logf("%d columns kept their values", kept)
}
