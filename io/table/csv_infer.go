package table

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/optimus-sched/optimus/io/schema"
)

// The CSV reader's values: the type a column no schema declares is
// inferred as, and how a field reads as a number or a bool.

// inferCSVType guesses the type of a column no schema declares. A column is
// numeric when most of its fields are numbers, so that a typo among numbers
// is reported rather than turning the column into text. Fields are read as
// the column parsers read them (spaces around a value do not count).
//
// Only text that could be a number is parsed as one (mightBeNumber), and
// as an integer only when it is digits: a failed parse allocates its
// error, which on a column of names was most of reading it.
func inferCSVType(cells cellColumn) schema.Type {
	typ, _ := inferCSVValues(cells, false)
	return typ
}

// inferCSVValues is inferCSVType and, with keep, the column's values when
// it is a float64 column of which every field parsed as a number (nil
// otherwise): what parseCSVColumn would return for it, so that a column
// inferred as numbers is not parsed twice.
func inferCSVValues(cells cellColumn, keep bool) (schema.Type, *values) {
	var n, ints, floats, bools int
	var kept *values
	for r := range cells.len() {
		raw := cells.cell(r)
		c := trimSpace(raw)
		if c == "" {
			if raw != "" {
				keep = false // spaces: not a null, and not a number
			} else if kept != nil {
				kept.setNull(r)
			}
			continue
		}
		n++
		if !mightBeNumber(c) {
			keep = false
			if _, ok := parseBool(c); ok {
				bools++
			}
			continue
		}
		if isDigits(c) && parsesAsInt(c) {
			ints++
			floats++
			if kept != nil {
				kept.f[r], _ = parseNumber(c) // as a float64 column reads it ("-0" too)
			}
		} else if f, ok := parseNumber(c); ok {
			floats++
			if keep {
				kept = keepFloat(kept, cells, r, f)
			}
		} else {
			keep = false
			if _, ok := parseBool(c); ok {
				bools++
			}
		}
	}
	var typ schema.Type
	switch {
	case n == 0:
		typ = schema.String
	case ints == n:
		typ = schema.Int64
	case floats == n || 2*floats > n:
		typ = schema.Float64
	case bools == n:
		typ = schema.Bool
	default:
		typ = schema.String
	}
	if !keep || typ != schema.Float64 {
		return typ, nil
	}
	return typ, kept
}

// keepFloat sets row r of kept to f. kept is made at the column's first
// number that is not an integer, so that an integer column keeps nothing;
// the fields before it are empty or integers, read again here.
func keepFloat(kept *values, cells cellColumn, r int, f float64) *values {
	if kept == nil {
		kept = newValues(schema.Float64, cells.len())
		for k := range r {
			if c := cells.cell(k); c == "" {
				kept.setNull(k)
			} else {
				kept.f[k], _ = parseNumber(trimSpace(c))
			}
		}
	}
	kept.f[r] = f
	return kept
}

// firstNumber is the first row whose field reads as a number, or -1.
func firstNumber(cells cellColumn) int {
	for r := range cells.len() {
		if c := trimSpace(cells.cell(r)); mightBeNumber(c) {
			if _, ok := parseNumber(c); ok {
				return r
			}
		}
	}
	return -1
}

// mightBeNumber reports whether s could read as a number (parseNumber):
// a number starts with a digit or a point, after at most one sign, or is
// an infinity or NaN (strconv.ParseFloat's words).
func mightBeNumber(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	if b := s[0]; '0' <= b && b <= '9' || b == '.' {
		return true
	}
	return strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity") || strings.EqualFold(s, "nan")
}

func parsesAsInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// isDigits reports whether s is decimal digits after at most one sign:
// the only text strconv.ParseInt reads in base 10.
func isDigits(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
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
	body := s
	for body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
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

// trimSpace is strings.TrimSpace, without the call for a cell that
// starts and ends with a printable ASCII byte (nearly every cell): no
// space, ASCII or Unicode, can then be trimmed.
func trimSpace(s string) string {
	if n := len(s); n > 0 && ' ' < s[0] && s[0] < utf8.RuneSelf && ' ' < s[n-1] && s[n-1] < utf8.RuneSelf {
		return s
	}
	return strings.TrimSpace(s)
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
