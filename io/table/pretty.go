package table

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/optimus-sched/optimus/io/escape"
)

// PrettyRows is how many rows WritePretty shows before eliding the middle.
const PrettyRows = 40

// WritePretty writes t as an aligned text table for a person at a terminal:
// numbers right-aligned, whole numbers exactly and others with six
// significant digits, nulls shown as "null",
// and for long tables the first and last rows with a count of those left out.
// Names and headers are untrusted: control and bidi characters in them are
// written as escapes (escape.Terminal), so that a name cannot drive the
// terminal or break the table's lines.
func WritePretty(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	rows := make([]int, 0, min(t.rows, PrettyRows))
	elided := 0
	if t.rows <= PrettyRows+PrettyRows/4 {
		for r := 0; r < t.rows; r++ {
			rows = append(rows, r)
		}
	} else {
		head, tail := PrettyRows*3/4, PrettyRows/4
		for r := 0; r < head; r++ {
			rows = append(rows, r)
		}
		for r := t.rows - tail; r < t.rows; r++ {
			rows = append(rows, r)
		}
		elided = t.rows - head - tail
	}
	n := t.NumCols()
	cells := make([][]string, len(rows)+1)
	cells[0] = t.ColumnNames()
	for i, c := range cells[0] {
		cells[0][i] = escape.Terminal(c)
	}
	widths := make([]int, n)
	right := make([]bool, n)
	for i, f := range t.fields {
		right[i] = f.Type.ID() == arrow.INT64 || f.Type.ID() == arrow.FLOAT64
	}
	for k, r := range rows {
		cells[k+1] = make([]string, n)
		for i := range t.cols {
			cells[k+1][i] = escape.Terminal(prettyCell(t.cols[i], r))
		}
	}
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(row []string) {
		for i, c := range row {
			if i > 0 {
				bw.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if right[i] {
				bw.WriteString(pad + c)
			} else if i < n-1 {
				bw.WriteString(c + pad)
			} else {
				bw.WriteString(c)
			}
		}
		bw.WriteString("\n")
	}
	line(cells[0])
	rule := make([]string, n)
	for i := range rule {
		rule[i] = strings.Repeat("-", widths[i])
	}
	line(rule)
	headRows := len(rows)
	if elided > 0 {
		headRows = PrettyRows * 3 / 4
	}
	for k := 0; k < headRows; k++ {
		line(cells[k+1])
	}
	if elided > 0 {
		fmt.Fprintf(bw, "... %d more rows ...\n", elided)
		for k := headRows; k < len(rows); k++ {
			line(cells[k+1])
		}
	}
	kind := t.Name
	if kind == "" {
		kind = "table"
	}
	fmt.Fprintf(bw, "(%s: %d rows, %d columns)\n", escape.Terminal(kind), t.rows, n)
	return bw.Flush()
}

func prettyCell(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return "null"
	}
	if f, ok := a.(*array.Float64); ok {
		v := f.Value(r)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return FormatFloat(v)
		}
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatFloat(v, 'f', 0, 64) // counts exactly: 1026710, not 1.02671e+06
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	return cellText(a, r)
}
