package table

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/optimus-sched/optimus/io/schema"
)

// values is one column as Go slices, the form in which readers check and
// fill columns before building the Arrow array.
type values struct {
	typ   schema.Type
	s     []string
	i     []int64
	f     []float64
	b     []bool
	valid []bool // nil when no value is null
}

func newValues(typ schema.Type, n int) *values {
	v := &values{typ: typ}
	switch typ {
	case schema.String:
		v.s = make([]string, n)
	case schema.Int64:
		v.i = make([]int64, n)
	case schema.Float64:
		v.f = make([]float64, n)
	case schema.Bool:
		v.b = make([]bool, n)
	}
	return v
}

func (v *values) len() int {
	switch v.typ {
	case schema.String:
		return len(v.s)
	case schema.Int64:
		return len(v.i)
	case schema.Float64:
		return len(v.f)
	}
	return len(v.b)
}

func (v *values) isNull(r int) bool { return v.valid != nil && !v.valid[r] }

func (v *values) setNull(r int) {
	if v.valid == nil {
		v.valid = make([]bool, v.len())
		for i := range v.valid {
			v.valid[i] = true
		}
	}
	v.valid[r] = false
}

func (v *values) setValid(r int) {
	if v.valid != nil {
		v.valid[r] = true
	}
}

// array builds the Arrow array. A number column's array adopts its
// values (adopted: the array a builder makes, without the copy), so v
// must not change afterwards.
func (v *values) array() arrow.Array {
	switch v.typ {
	case schema.String:
		b := array.NewStringBuilder(mem)
		b.AppendValues(v.s, v.valid)
		return b.NewArray()
	case schema.Int64:
		return adopted(arrow.PrimitiveTypes.Int64, v.i, v.valid)
	case schema.Float64:
		return adopted(arrow.PrimitiveTypes.Float64, v.f, v.valid)
	}
	b := array.NewBooleanBuilder(mem)
	b.AppendValues(v.b, v.valid)
	return b.NewArray()
}

// textProblem says what makes s unfit as a column name or a string value,
// or "": text must be valid UTF-8 (as Arrow, Parquet and every reader of
// them assume) without NUL characters (which no CSV reader takes for text).
func textProblem(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8 text"
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "contains a NUL character"
	}
	return ""
}

// clip shortens a long value quoted in a message.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:50] + "..."
}

// checkNames rejects column names that are empty or not text (see
// textProblem).
func checkNames(source string, names []string) error {
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return Errorf(source, "column %d has no name", i+1)
		}
		if why := textProblem(n); why != "" {
			return Errorf(source, "the name of column %d, %q, %s", i+1, clip(n), why)
		}
	}
	return nil
}

// checkMeta rejects metadata whose keys or values are not text (see
// textProblem): Parquet writers drop such entries.
func checkMeta(source string, meta map[string]string) error {
	keys := slices.Sorted(maps.Keys(meta))
	for _, k := range keys {
		if why := textProblem(k); why != "" {
			return Errorf(source, "the metadata key %q %s", clip(k), why)
		}
		if why := textProblem(meta[k]); why != "" {
			return Errorf(source, "the metadata value of %q %s", clip(k), why)
		}
	}
	return nil
}

// typeName says what a schema type holds, for error messages.
func typeName(t schema.Type) string {
	switch t {
	case schema.String:
		return "string"
	case schema.Int64:
		return "int64 (whole numbers)"
	case schema.Float64:
		return "float64 (numbers)"
	}
	return "bool (true/false)"
}

// naturalType is the schema type an Arrow type converts to without loss, for
// columns no schema declares.
func naturalType(dt arrow.DataType) (schema.Type, bool) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType
	}
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return schema.String, true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return schema.Int64, true
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return schema.Float64, true
	case arrow.BOOL:
		return schema.Bool, true
	case arrow.NULL:
		return schema.String, true
	}
	return 0, false
}

// isNumeric reports whether an Arrow type holds numbers.
func isNumeric(dt arrow.DataType) bool {
	t, ok := naturalType(dt)
	return ok && (t == schema.Int64 || t == schema.Float64)
}

// toValues converts an Arrow array to values of type want, accepting the
// conversions that lose nothing (int32 to int64, ints to float64, floats
// holding whole numbers to int64, dictionary-encoded or large strings to
// strings). A conversion that would lose information is an error naming the
// row; a type that cannot convert at all is an error naming the column.
func toValues(source, col string, a arrow.Array, want schema.Type) (*values, *Error) {
	if d, ok := a.(*array.Dictionary); ok {
		a = decodeDictionary(d)
	}
	n := a.Len()
	v := newValues(want, n)
	typeErr := func() (*values, *Error) {
		return nil, &Error{Source: source, Column: col,
			Msg: fmt.Sprintf("has type %s, expected %s", a.DataType(), typeName(want))}
	}
	for r := 0; r < n; r++ {
		if a.IsNull(r) {
			v.setNull(r)
		}
	}
	if a.DataType().ID() == arrow.NULL {
		return v, nil // a column of only nulls fits any type
	}
	switch want {
	case schema.String:
		s, ok := a.(interface{ Value(int) string })
		if !ok {
			return typeErr()
		}
		for r := 0; r < n; r++ {
			if a.IsValid(r) {
				v.s[r] = s.Value(r)
				if why := textProblem(v.s[r]); why != "" {
					return nil, &Error{Source: source, Column: col, Row: r + 1, Msg: fmt.Sprintf("%q %s", clip(v.s[r]), why)}
				}
			}
		}
	case schema.Bool:
		b, ok := a.(*array.Boolean)
		if !ok {
			return typeErr()
		}
		for r := 0; r < n; r++ {
			v.b[r] = b.IsValid(r) && b.Value(r)
		}
	case schema.Float64:
		if !isNumeric(a.DataType()) {
			return typeErr()
		}
		integers := !isFloat(a.DataType())
		for r := 0; r < n; r++ {
			if a.IsValid(r) {
				v.f[r] = numberAt(a, r)
				if integers && !exactInt(a, r) {
					return nil, &Error{Source: source, Column: col, Row: r + 1,
						Msg: fmt.Sprintf("%s is beyond ±2^53: it has no exact float64 value (the column holds float64)", integerText(a, r))}
				}
			}
		}
	case schema.Int64:
		switch a.DataType().ID() {
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			for r := 0; r < n; r++ {
				if a.IsNull(r) {
					continue
				}
				f := numberAt(a, r)
				if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
					return nil, &Error{Source: source, Column: col, Row: r + 1,
						Msg: fmt.Sprintf("%v is not a whole number (the column holds int64)", f)}
				}
				v.i[r] = int64(f)
			}
		case arrow.UINT64:
			u := a.(*array.Uint64)
			for r := 0; r < n; r++ {
				if a.IsValid(r) {
					if u.Value(r) > math.MaxInt64 {
						return nil, &Error{Source: source, Column: col, Row: r + 1, Msg: "value too large for int64"}
					}
					v.i[r] = int64(u.Value(r))
				}
			}
		default:
			if !isNumeric(a.DataType()) {
				return typeErr()
			}
			for r := 0; r < n; r++ {
				if a.IsValid(r) {
					v.i[r] = intAt(a, r)
				}
			}
		}
	}
	return v, nil
}

func decodeDictionary(d *array.Dictionary) arrow.Array {
	dict := d.Dictionary()
	s, ok := dict.(interface{ Value(int) string })
	if !ok {
		return d // not a string dictionary: the caller reports the type
	}
	b := array.NewStringBuilder(mem)
	for r := 0; r < d.Len(); r++ {
		if d.IsNull(r) {
			b.AppendNull()
		} else {
			b.Append(s.Value(d.GetValueIndex(r)))
		}
	}
	return b.NewArray()
}

// isFloat reports whether an Arrow type holds floating-point numbers.
func isFloat(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// exactInt reports whether row r of an integer array is within ±2^53,
// where float64 holds every integer exactly.
func exactInt(a arrow.Array, r int) bool {
	if u, ok := a.(*array.Uint64); ok {
		return u.Value(r) <= maxExactInt
	}
	i := intAt(a, r)
	return i <= maxExactInt && i >= -maxExactInt
}

// integerText is an integer array's value as written, for messages.
func integerText(a arrow.Array, r int) string {
	if u, ok := a.(*array.Uint64); ok {
		return fmt.Sprint(u.Value(r))
	}
	return fmt.Sprint(intAt(a, r))
}

func numberAt(a arrow.Array, r int) float64 {
	switch a := a.(type) {
	case *array.Uint64:
		return float64(a.Value(r)) // not through int64, where it would wrap
	case *array.Float64:
		return a.Value(r)
	case *array.Float32:
		return float64(a.Value(r))
	case *array.Float16:
		return float64(a.Value(r).Float32())
	}
	return float64(intAt(a, r))
}

func intAt(a arrow.Array, r int) int64 {
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(r)
	case *array.Int32:
		return int64(a.Value(r))
	case *array.Int16:
		return int64(a.Value(r))
	case *array.Int8:
		return int64(a.Value(r))
	case *array.Uint64:
		return int64(a.Value(r))
	case *array.Uint32:
		return int64(a.Value(r))
	case *array.Uint16:
		return int64(a.Value(r))
	case *array.Uint8:
		return int64(a.Value(r))
	}
	panic(fmt.Sprintf("table: %s is not an integer type", a.DataType()))
}
