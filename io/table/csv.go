package table

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/optimus-sched/optimus/io/schema"
)

// CSV conventions, chosen so that pandas, DuckDB and spreadsheets read the
// files as optimus does:
//   - the first line is the header;
//   - an empty field is null (so an empty string and a null string are the
//     same thing in CSV);
//   - floats are written in their shortest exact form and always with a
//     decimal point or exponent ("2.0", "1e+06"), so their type survives a
//     round trip; NaN and infinities are written NaN, Inf and -Inf;
//   - bools are true and false.
//
// CSV carries no metadata: a CSV file's table kind is recognised from its
// header (see Recognise), and declared columns take their declared types.

func decodeCSV(data []byte, source string, want *schema.Table) (*Table, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkText(textHead(data), source); err != nil {
		return nil, err
	}
	// The text, its cells as strings (a header each, and their bytes) and
	// as values: about four times the text.
	if err := checkBudget(source, 4*int64(len(data))); err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err == io.EOF {
		return nil, Errorf(source, "empty input: expected a table (Arrow, Parquet or CSV)")
	}
	if err != nil {
		return nil, csvError(source, err)
	}
	for i, h := range header {
		header[i] = strings.TrimSpace(h)
		if header[i] == "" {
			return nil, &Error{Source: source, Line: 1, Msg: fmt.Sprintf("column %d of the header has no name", i+1)}
		}
	}
	if err := checkNames(source, header); err != nil {
		return nil, err
	}
	// Sized for a row per line (quoted line ends make fewer): a column
	// grown by doubling would hold twice its cells while it is copied.
	rowsAtMost := bytes.Count(data, []byte("\n")) + 1
	cells := make([][]string, len(header))
	for i := range cells {
		cells[i] = make([]string, 0, rowsAtMost)
	}
	lines := make([]int, 0, rowsAtMost)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(source, err)
		}
		line, _ := r.FieldPos(0)
		lines = append(lines, line)
		for i, c := range rec {
			cells[i] = append(cells[i], c)
		}
	}
	rows := len(lines)
	s, err := resolveSchema(&Table{Source: source, fields: fieldsNamed(header)}, want)
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(header))
	for i, name := range header {
		cs := cells[i]
		if cs == nil {
			cs = make([]string, 0)
		}
		cols[i] = column{name: name, natural: inferCSVType(cs), convert: func(typ schema.Type) (*values, *Error) {
			return parseCSVColumn(source, name, cs, typ)
		}, firstNumber: func() int { return firstNumber(cs) }}
	}
	return build(source, s, rows, cols, lines, nil)
}

// utf8BOM is a spreadsheet's byte-order mark.
var utf8BOM = []byte("\xef\xbb\xbf")

// textHeadBytes is how much of the start of an input tells text from
// binary.
const textHeadBytes = 4096

// checkText refuses a CSV input whose head (its first textHeadBytes, after
// a byte-order mark) is binary or text not in UTF-8.
func checkText(head []byte, source string) error {
	head = textHead(head)
	if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head) && !mostlyText(head) {
		return Errorf(source, "unrecognised input: not Arrow, Parquet or CSV text")
	}
	if !utf8.Valid(head) {
		// Text in another encoding (Latin-1, say): where, so that it can
		// be found and saved as UTF-8. Past the head each value is
		// checked, and located, on its own.
		at := invalidUTF8At(head)
		line := 1 + bytes.Count(head[:at], []byte("\n"))
		return &Error{Source: source, Line: line,
			Msg: fmt.Sprintf("line %d: not valid UTF-8 text (byte %d): save the file as UTF-8", line, at+1)}
	}
	return nil
}

// invalidUTF8At is the offset of data's first byte that is not valid UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// mostlyText reports whether head, not valid UTF-8, is still text in
// another encoding (Latin-1, say) rather than binary: printable bytes and
// line ends, no control characters.
func mostlyText(head []byte) bool {
	for _, b := range head {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' {
			return false
		}
	}
	return true
}

// textHead is the start of data that tells text from binary: its first
// 4 kB, less a character the cut splits.
func textHead(data []byte) []byte {
	if len(data) <= textHeadBytes {
		return data
	}
	head := data[:textHeadBytes]
	i := len(head) - 1
	for i > 0 && len(head)-i < utf8.UTFMax && !utf8.RuneStart(head[i]) {
		i--
	}
	if !utf8.FullRune(head[i:]) {
		head = head[:i]
	}
	return head
}

func csvError(source string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "wrong number of fields: every row needs one field per header column"
		}
		return &Error{Source: source, Line: pe.Line, Msg: fmt.Sprintf("line %d: %s", pe.Line, msg)}
	}
	return fmt.Errorf("%s: %w", source, err)
}

// inferCSVType guesses the type of a column no schema declares. A column is
// numeric when most of its fields are numbers, so that a typo among numbers
// is reported rather than turning the column into text. Fields are read as
// the column parsers read them (spaces around a value do not count).
func inferCSVType(cells []string) schema.Type {
	var n, ints, floats, bools int
	for _, c := range cells {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		n++
		if _, err := strconv.ParseInt(c, 10, 64); err == nil {
			ints++
			floats++
		} else if _, ok := parseNumber(c); ok {
			floats++
		} else if _, ok := parseBool(c); ok {
			bools++
		}
	}
	switch {
	case n == 0:
		return schema.String
	case ints == n:
		return schema.Int64
	case floats == n || 2*floats > n:
		return schema.Float64
	case bools == n:
		return schema.Bool
	}
	return schema.String
}

// firstNumber is the first row whose field reads as a number, or -1.
func firstNumber(cells []string) int {
	for r, c := range cells {
		if _, ok := parseNumber(strings.TrimSpace(c)); ok {
			return r
		}
	}
	return -1
}

// parseNumber reads a number as a person writes one in a table: decimal,
// with an optional exponent, or NaN and Inf/Infinity with an optional sign
// in any case. Go's own syntax beyond that (1_000, hex floats like 0x1p4)
// is not a number a spreadsheet user means. A value beyond float64's range
// reads as an infinity (ok), which the column's rules then judge.
func parseNumber(s string) (float64, bool) {
	if s == "" || strings.IndexByte(s, '_') >= 0 {
		return 0, false
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		return 0, false
	}
	if strings.EqualFold(body, "nan") {
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "t", "yes", "1":
		return true, true
	case "false", "f", "no", "0":
		return false, true
	}
	return false, false
}

func parseCSVColumn(source, col string, cells []string, typ schema.Type) (*values, *Error) {
	v := newValues(typ, len(cells))
	bad := func(r int, format string, args ...any) (*values, *Error) {
		return nil, &Error{Source: source, Column: col, Row: r + 1, Msg: fmt.Sprintf(format, args...)}
	}
	for r, c := range cells {
		if c == "" {
			v.setNull(r)
			continue
		}
		switch typ {
		case schema.String:
			if why := textProblem(c); why != "" {
				return bad(r, "%q %s", clip(c), why)
			}
			v.s[r] = c
		case schema.Int64:
			t := strings.TrimSpace(c)
			i, err := strconv.ParseInt(t, 10, 64)
			if errors.Is(err, strconv.ErrRange) {
				return bad(r, "%q is beyond the range of int64", c)
			}
			if err != nil {
				f, ok := parseNumber(t)
				if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
					return bad(r, "%q is not a whole number", c)
				}
				i = int64(f)
			}
			v.i[r] = i
		case schema.Float64:
			f, ok := parseNumber(strings.TrimSpace(c))
			if !ok {
				return bad(r, "%q is not a number", c)
			}
			v.f[r] = f
		case schema.Bool:
			b, ok := parseBool(strings.TrimSpace(c))
			if !ok {
				return bad(r, "%q is not true or false", c)
			}
			v.b[r] = b
		}
	}
	return v, nil
}

// writeCSV writes t as CSV (see the conventions above).
func writeCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.ColumnNames()); err != nil {
		return err
	}
	rec := make([]string, t.NumCols())
	for r := 0; r < t.rows; r++ {
		for i := range t.cols {
			rec[i] = cellText(t.cols[i], r)
		}
		if len(rec) == 1 && rec[0] == "" {
			// A blank line is no row to CSV readers: write the null of a
			// one-column table as an empty quoted field.
			cw.Flush()
			if _, err := io.WriteString(w, "\"\"\n"); err != nil {
				return err
			}
			continue
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
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

func fieldsNamed(names []string) []arrow.Field {
	fs := make([]arrow.Field, len(names))
	for i, n := range names {
		fs[i].Name = n
	}
	return fs
}
