package table

import (
	"fmt"
	"slices"
	"testing"
)

// splitPlainCSV cuts a text into the cells, header and lines encoding/csv
// reads from it (splitQuotedCSV), and leaves to encoding/csv every text it
// would read otherwise: blank lines, a short or long row, quotes, carriage
// returns.
func TestSplitPlainCSVReadsAsEncodingCSV(t *testing.T) {
	for _, c := range []struct {
		text  string
		plain bool
	}{
		{"a,b\n1,2\n3,4\n", true},
		{"a,b\n1,2\n3,4", true},
		{"a,b\n,\n ,x y\n", true},
		{"a\nx\ny\n", true},
		{"a\n \n", true},
		{"a,b\n", true},
		{"a,b", true},
		{"job,role,gpu\njob-1,ps,0.0\njob-2,worker,1.5\n", true},
		{"a\nx\n\ny\n", false},
		{"a\nx\ny\n\n", false},
		{"\na,b\n1,2\n", false},
		{"a,b\n1,2\n\n3,4\n", false},
		{"a,b\n1\n", false},
		{"a,b\n1,2,3\n", false},
		{"a,b\n\"1\",2\n", false},
		{"a,b\r\n1,2\r\n", false},
		{"", false},
	} {
		header, cells, lines, ok := splitPlainCSV[uint32]([]byte(c.text))
		if ok != c.plain {
			t.Errorf("%q: read without encoding/csv %v, want %v", c.text, ok, c.plain)
		}
		if !ok {
			continue
		}
		wantHeader, want, wantLines, err := splitQuotedCSV[uint32]([]byte(c.text), "t.csv")
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if !slices.Equal(header, wantHeader) || !slices.Equal(lines, wantLines) {
			t.Errorf("%q: header %q lines %v, encoding/csv %q %v", c.text, header, lines, wantHeader, wantLines)
		}
		if got, want := dump(cells, len(header)), dump(want, len(header)); got != want {
			t.Errorf("%q: cells %s, encoding/csv %s", c.text, got, want)
		}
	}
}

func dump[O cellOffset](cells csvCells[O], cols int) string {
	s := ""
	for c := range cols {
		col := cells.column(c)
		for r := range col.len() {
			s += fmt.Sprintf("[%d,%d]%q ", r, c, col.cell(r))
		}
	}
	return s
}
