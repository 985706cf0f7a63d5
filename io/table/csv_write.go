package table

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// writeCSV writes t as CSV (see the conventions above), in the bytes
// encoding/csv's Writer writes (csvField quotes as it does), each row
// appended into one buffer: numbers are formatted in place, without a
// string per cell.
func writeCSV(w io.Writer, t *Table) error {
	return NewCSVWriter(w).Write(t)
}

// CSVWriter writes one table's CSV in parts: the header and rows of the
// first part, then the rows of each next part, which has the same columns
// (batches of ReadParquetBatches). The parts' bytes, one after the other,
// are those writeCSV writes for the table they make together.
type CSVWriter struct {
	w      io.Writer
	header bool
	line   []byte
}

// NewCSVWriter returns a CSVWriter writing to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{w: w} }

// Write writes t's rows, after its header when t is the first part.
func (c *CSVWriter) Write(t *Table) error {
	line := c.line[:0]
	if !c.header {
		c.header = true
		for i, name := range t.ColumnNames() {
			if i > 0 {
				line = append(line, ',')
			}
			line = appendCSVField(line, name)
		}
		line = append(line, '\n')
	}
	for r := 0; r < t.rows; r++ {
		if len(line) >= 1<<16 {
			if _, err := c.w.Write(line); err != nil {
				return err
			}
			line = line[:0]
		}
		start := len(line)
		for i, a := range t.cols {
			if i > 0 {
				line = append(line, ',')
			}
			line = appendCell(line, a, r)
		}
		if len(t.cols) == 1 && len(line) == start {
			// A blank line is no row to CSV readers: write the null of a
			// one-column table as an empty quoted field.
			line = append(line, '"', '"')
		}
		line = append(line, '\n')
	}
	c.line = line
	_, err := c.w.Write(line)
	return err
}

// appendCell appends row r of a as CSV writes it (cellText's text); a
// null is an empty field.
func appendCell(line []byte, a arrow.Array, r int) []byte {
	if a.IsNull(r) {
		return line
	}
	switch a := a.(type) {
	case *array.String:
		return appendCSVField(line, a.Value(r))
	case *array.Int64:
		return strconv.AppendInt(line, a.Value(r), 10)
	case *array.Float64:
		return appendFloat(line, a.Value(r))
	case *array.Boolean:
		return strconv.AppendBool(line, a.Value(r))
	}
	return appendCSVField(line, a.ValueStr(r))
}

// appendCSVField appends a field as encoding/csv's Writer writes it:
// quoted, with its quotes doubled, when it holds a comma, a quote or a
// line end, starts with a space, or is \. (a line that ends a PostgreSQL
// COPY); as it is otherwise.
func appendCSVField(line []byte, field string) []byte {
	if !csvFieldNeedsQuotes(field) {
		return append(line, field...)
	}
	line = append(line, '"')
	for {
		i := strings.IndexByte(field, '"')
		if i < 0 {
			break
		}
		line = append(line, field[:i+1]...)
		line = append(line, '"')
		field = field[i+1:]
	}
	line = append(line, field...)
	return append(line, '"')
}

// csvFieldNeedsQuotes is encoding/csv's Writer.fieldNeedsQuotes for a
// comma separator.
func csvFieldNeedsQuotes(field string) bool {
	if field == "" {
		return false
	}
	if field == `\.` {
		return true
	}
	for i := 0; i < len(field); i++ {
		if c := field[i]; c == '\n' || c == '\r' || c == '"' || c == ',' {
			return true
		}
	}
	r1, _ := utf8.DecodeRuneInString(field)
	return unicode.IsSpace(r1)
}

// appendFloat appends FormatFloat(f).
func appendFloat(line []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(line, "NaN"...)
	case math.IsInf(f, 1):
		return append(line, "Inf"...)
	case math.IsInf(f, -1):
		return append(line, "-Inf"...)
	}
	start := len(line)
	line = strconv.AppendFloat(line, f, 'g', -1, 64)
	if bytes.IndexAny(line[start:], ".e") < 0 {
		line = append(line, ".0"...)
	}
	return line
}

// FormatFloat writes a float in its shortest exact form, always with a
// decimal point or an exponent so that it reads back as a float.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
