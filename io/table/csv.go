package table

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

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
	if len(data) < math.MaxUint32-1 {
		return splitCSV[uint32](data, source, want)
	}
	return splitCSV[uint64](data, source, want)
}

// splitCSV cuts data into cells, at offsets of type O (wide enough for
// data), and builds the table.
func splitCSV[O cellOffset](data []byte, source string, want *schema.Table) (*Table, error) {
	header, cells, lines, ok := splitPlainCSV[O](data)
	if !ok {
		var err error
		if header, cells, lines, err = splitQuotedCSV[O](data, source); err != nil {
			return nil, err
		}
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
	rows := len(lines)
	s, err := resolveSchema(&Table{Source: source, fields: fieldsNamed(header)}, want)
	if err != nil {
		return nil, err
	}
	// Convert is a column's last use of its cells (build converts each
	// column once, after inferring its type): the offsets a column shares
	// with its neighbours are dropped once both are converted, and
	// collected every collectEvery bytes, so that the table's values
	// do not pile up on top of every column's offsets.
	converted := make([]bool, len(header))
	var sinceGC int64
	drop := func(j int) {
		sinceGC += int64(len(cells.starts[j])) * int64(unsafe.Sizeof(O(0)))
		cells.starts[j] = nil
	}
	// A column whose type is inferred as numbers keeps the values the
	// inference parsed, for its conversion.
	inferred := make([]*values, len(header))
	cols := make([]column, len(header))
	for i, name := range header {
		cols[i] = column{name: name, infer: func() schema.Type {
			typ, v := inferCSVValues(cells.column(i), true)
			inferred[i] = v
			return typ
		}, convert: func(typ schema.Type) (*values, *Error) {
			v := inferred[i]
			var e *Error
			if typ != schema.Float64 || v == nil {
				v, e = parseCSVColumn(source, name, cells.column(i), typ)
			}
			inferred[i] = nil
			converted[i] = true
			if i == 0 || converted[i-1] {
				drop(i)
			}
			if i+1 == len(header) || converted[i+1] {
				drop(i + 1)
			}
			if sinceGC > collectEvery {
				sinceGC = 0
				runtime.GC()
			}
			return v, e
		}, firstNumber: func() int { return firstNumber(cells.column(i)) }}
	}
	return build(source, s, rows, cols, lines, nil)
}

// cellOffset is the type of an offset into a CSV text's cells.
type cellOffset interface{ ~uint32 | ~uint64 }

// csvCells are a CSV table's cells, as offsets into one text: row r's
// cell of column c is text[starts[c][r] : starts[c+1][r]-1], the byte
// before the next cell's start being a separator (starts[len-1] is one
// past each row's end).
type csvCells[O cellOffset] struct {
	text   string
	starts [][]O
}

func (t csvCells[O]) column(c int) csvColumn[O] {
	return csvColumn[O]{text: t.text, starts: t.starts[c], ends: t.starts[c+1]}
}

// csvColumn is one column of csvCells.
type csvColumn[O cellOffset] struct {
	text         string
	starts, ends []O
}

func (c csvColumn[O]) len() int          { return len(c.starts) }
func (c csvColumn[O]) cell(r int) string { return c.text[c.starts[r] : c.ends[r]-1] }

// cellColumn is a column of CSV cells: csvColumn, or a slice of strings.
type cellColumn interface {
	len() int
	cell(r int) string
}

// stringCells is a column of cells held as strings.
type stringCells []string

func (s stringCells) len() int          { return len(s) }
func (s stringCells) cell(r int) string { return s[r] }

// splitPlainCSV cuts data into cells where that needs no CSV reader: no
// quotes, no carriage returns, no blank lines and every row as many fields
// as the header, where a field is what lies between commas and line ends,
// as encoding/csv reads it. It reports false for any other text, which
// splitQuotedCSV reads (and whose errors it reports). The cells point
// into data, which is not written while the table is built from them
// (their values are copied into the table's Arrow buffers).
func splitPlainCSV[O cellOffset](data []byte) ([]string, csvCells[O], []int, bool) {
	var cells csvCells[O]
	if len(data) == 0 || data[0] == '\n' || bytes.IndexByte(data, '"') >= 0 || bytes.IndexByte(data, '\r') >= 0 {
		return nil, cells, nil, false
	}
	end := bytes.IndexByte(data, '\n')
	if end < 0 {
		end = len(data)
	}
	header := strings.Split(string(data[:end]), ",")
	from := min(end+1, len(data))
	rows := bytes.Count(data[from:], []byte("\n"))
	if from < len(data) && data[len(data)-1] != '\n' {
		rows++
	}
	ncol := len(header)
	cells.text = unsafe.String(unsafe.SliceData(data), len(data))
	cells.starts = make([][]O, ncol+1)
	for c := range cells.starts {
		cells.starts[c] = make([]O, rows)
	}
	lines := make([]int, rows)
	pos := from
	for r := range rows {
		for c := range ncol {
			cells.starts[c][r] = O(pos)
			i := pos
			for i < len(data) && data[i] != ',' && data[i] != '\n' {
				i++
			}
			last := i == len(data) || data[i] == '\n'
			if last != (c == ncol-1) {
				return nil, cells, nil, false
			}
			if ncol == 1 && i == pos && i < len(data) {
				return nil, cells, nil, false // a blank line, which encoding/csv skips
			}
			pos = i + 1
		}
		cells.starts[ncol][r] = O(pos)
		lines[r] = r + 2
	}
	return header, cells, lines, true
}

// splitQuotedCSV reads data with encoding/csv, and packs its cells into
// one text, each followed by a separator byte.
func splitQuotedCSV[O cellOffset](data []byte, source string) ([]string, csvCells[O], []int, error) {
	var cells csvCells[O]
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, cells, nil, Errorf(source, "empty input: expected a table (Arrow, Parquet or CSV)")
	}
	if err != nil {
		return nil, cells, nil, csvError(source, err)
	}
	header = slices.Clone(header)
	// Sized for a row per line (quoted line ends make fewer): a column
	// grown by doubling would hold twice its cells while it is copied.
	rowsAtMost := bytes.Count(data, []byte("\n")) + 1
	cells.starts = make([][]O, len(header)+1)
	for i := range cells.starts {
		cells.starts[i] = make([]O, 0, rowsAtMost)
	}
	text := make([]byte, 0, len(data)+1)
	lines := make([]int, 0, rowsAtMost)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, cells, nil, csvError(source, err)
		}
		line, _ := r.FieldPos(0)
		lines = append(lines, line)
		for i, c := range rec {
			cells.starts[i] = append(cells.starts[i], O(len(text)))
			text = append(text, c...)
			text = append(text, ',')
		}
		cells.starts[len(rec)] = append(cells.starts[len(rec)], O(len(text)))
	}
	cells.text = unsafe.String(unsafe.SliceData(text), len(text))
	return header, cells, lines, nil
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

// parseCSVColumn reads a column's cells as values of type typ, or
// reports the first cell that is not one. The cells of a CSV text are read
// straight from their offsets, without a call through cellColumn per cell.
func parseCSVColumn(source, col string, cells cellColumn, typ schema.Type) (*values, *Error) {
	v := newValues(typ, cells.len())
	var e *Error
	switch c := cells.(type) {
	case csvColumn[uint32]:
		e = parseCSVCells(v, source, col, c, typ)
	case csvColumn[uint64]:
		e = parseCSVCells(v, source, col, c, typ)
	default:
		for r := range cells.len() {
			if e = parseCSVCell(v, r, source, col, cells.cell(r), typ); e != nil {
				break
			}
		}
	}
	if e != nil {
		return nil, e
	}
	return v, nil
}

func parseCSVCells[O cellOffset](v *values, source, col string, c csvColumn[O], typ schema.Type) *Error {
	text, ends := c.text, c.ends[:len(c.starts)]
	for r, start := range c.starts {
		if e := parseCSVCell(v, r, source, col, text[start:ends[r]-1], typ); e != nil {
			return e
		}
	}
	return nil
}

// parseCSVCell sets row r of v to cell c read as a value of type typ.
func parseCSVCell(v *values, r int, source, col, c string, typ schema.Type) *Error {
	if c == "" {
		v.setNull(r)
		return nil
	}
	switch typ {
	case schema.String:
		if why := textProblem(c); why != "" {
			return cellError(source, col, r, "%q %s", clip(c), why)
		}
		v.s[r] = c
	case schema.Int64:
		t := trimSpace(c)
		i, err := strconv.ParseInt(t, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return cellError(source, col, r, "%q is beyond the range of int64", c)
		}
		if err != nil {
			f, ok := parseNumber(t)
			if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return cellError(source, col, r, "%q is not a whole number", c)
			}
			i = int64(f)
		}
		v.i[r] = i
	case schema.Float64:
		f, ok := parseNumber(trimSpace(c))
		if !ok {
			return cellError(source, col, r, "%q is not a number", c)
		}
		v.f[r] = f
	case schema.Bool:
		b, ok := parseBool(trimSpace(c))
		if !ok {
			return cellError(source, col, r, "%q is not true or false", c)
		}
		v.b[r] = b
	}
	return nil
}

// cellError is the error for row r's cell of column col.
func cellError(source, col string, r int, format string, args ...any) *Error {
	return &Error{Source: source, Column: col, Row: r + 1, Msg: fmt.Sprintf(format, args...)}
}

func fieldsNamed(names []string) []arrow.Field {
	fs := make([]arrow.Field, len(names))
	for i, n := range names {
		fs[i].Name = n
	}
	return fs
}
