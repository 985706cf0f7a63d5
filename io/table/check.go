package table

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/optimus-sched/optimus/io/schema"
)

// Every column of a table remembers the rule it was last checked against
// (Table.checked): conform sets it on every column it returns, and any
// change to a column (the Set methods, SetColumn) clears it. A column whose
// mark equals the rule it is checked against now is taken as it is, without
// looking at its values again: values are validated once, when they enter a
// table (read from a file, or set by a command), and not again when the same
// column is carried into another table with the same rule or written out.
// Arrow arrays are immutable, so a marked column cannot change behind the
// mark's back.

// maxExactInt is 2^53: integers beyond it lose digits as float64, in which
// optimus computes.
const maxExactInt = 1 << 53

// shortcuts enables the marks and fastCheck; tests turn it off to compare
// with the general path.
var shortcuts = true

// ruleKey identifies everything checkColumn and toValues enforce for a
// column: two columns with the same key accept exactly the same values.
func ruleKey(c schema.Column) string {
	min, max := "-", "-"
	if c.Min != nil {
		min = fmt.Sprint(*c.Min)
	}
	if c.Max != nil {
		max = fmt.Sprint(*c.Max)
	}
	return fmt.Sprintf("%s\x00%d\x00%t\x00%q\x00%t\x00%t\x00%q\x00%s\x00%t\x00%s\x00%t",
		c.Name, c.Type, c.Nullable, c.Default, c.Unique, c.NonEmpty, c.Enum, min, c.MinOpen, max, c.AllowNaN)
}

// patternColumn is the rule a column matching a pattern is checked by.
func patternColumn(name string, p schema.Pattern) schema.Column {
	return schema.Column{Name: name, Type: p.Type, Min: p.Min}
}

// naturalKey marks a column no schema declares, of its natural type.
func naturalKey(name string, typ schema.Type) string {
	return ruleKey(schema.Column{Name: name, Type: typ, Nullable: true, AllowNaN: true})
}

// fastCheck reports whether a already is what the general path (toValues,
// checkColumn, values.array) would make of it under rule c: exactly c's
// Arrow type, no offset, every value passing c's checks, no null to fill
// with a default or to report, and null slots holding the zero value the
// general path writes there. Then a can be used as it is. When fastCheck
// says false the column takes the general path, which converts, fills and
// reports each problem exactly; fastCheck never reports anything itself.
// The loops run over the typed buffers, without per-value interface calls.
func fastCheck(c schema.Column, a arrow.Array) bool {
	if a.Data().Offset() != 0 {
		return false
	}
	n := a.Len()
	nulls := a.NullN()
	if n == 0 || nulls > 0 && !c.Nullable {
		return false
	}
	var bits []byte
	if nulls > 0 {
		bits = a.NullBitmapBytes()
	}
	valid := func(r int) bool { return bits == nil || bitutil.BitIsSet(bits, r) }
	switch c.Type {
	case schema.String:
		s, ok := a.(*array.String)
		return ok && stringsPass(c, s, n, bits)
	case schema.Int64:
		x, ok := a.(*array.Int64)
		if !ok {
			return false
		}
		vals := x.Int64Values()
		if bits != nil {
			for r, v := range vals {
				if !valid(r) && v != 0 {
					return false
				}
			}
		}
		lo, hi := -math.MaxFloat64, math.MaxFloat64
		if c.Min != nil {
			lo = *c.Min
		}
		if c.Max != nil {
			hi = *c.Max
		}
		for r, v := range vals {
			f := float64(v)
			if (v > maxExactInt || v < -maxExactInt || c.MinOpen && f <= lo || f < lo || f > hi) && valid(r) {
				return false
			}
		}
		return true
	case schema.Float64:
		x, ok := a.(*array.Float64)
		if !ok {
			return false
		}
		vals := x.Float64Values()
		if bits != nil {
			for r, v := range vals {
				if !valid(r) && math.Float64bits(v) != 0 {
					return false
				}
			}
		}
		lo, hi := -math.MaxFloat64, math.MaxFloat64
		if c.Min != nil {
			lo = *c.Min
		}
		if c.Max != nil {
			hi = *c.Max
		}
		for r, v := range vals {
			if v-v != 0 { // NaN or ±Inf
				if !c.AllowNaN && valid(r) {
					return false
				}
				continue
			}
			if (c.MinOpen && v <= lo || v < lo || v > hi) && valid(r) {
				return false
			}
		}
		return true
	case schema.Bool:
		x, ok := a.(*array.Boolean)
		if !ok {
			return false
		}
		if bits != nil {
			for r := 0; r < n; r++ {
				if !valid(r) && x.Value(r) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// stringsPass is fastCheck for a string column: the text checks on the
// whole value buffer at once, then the column's own rules.
func stringsPass(c schema.Column, s *array.String, n int, bits []byte) bool {
	if n == 0 {
		return true
	}
	offs := s.ValueOffsets()
	if len(offs) < n+1 || offs[0] != 0 {
		return false
	}
	data := s.ValueBytes()
	// Each value is valid UTF-8 without NUL when the whole buffer is and
	// every value starts at the start of a character.
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return false
	}
	for r := 1; r < n; r++ {
		if o := offs[r]; int(o) < len(data) && !utf8.RuneStart(data[o]) {
			return false
		}
	}
	valid := func(r int) bool { return bits == nil || bitutil.BitIsSet(bits, r) }
	if bits != nil {
		for r := 0; r < n; r++ {
			if !valid(r) && offs[r+1] != offs[r] {
				return false
			}
		}
	}
	if c.NonEmpty {
		for r := 0; r < n; r++ {
			lo, hi := offs[r], offs[r+1]
			if !valid(r) {
				continue
			}
			if hi == lo {
				return false
			}
			if b := data[lo]; (b <= ' ' || b >= utf8.RuneSelf) && strings.TrimSpace(string(data[lo:hi])) == "" {
				return false
			}
		}
	}
	if len(c.Enum) > 0 {
		for r := 0; r < n; r++ {
			if valid(r) && !inEnum(c.Enum, data[offs[r]:offs[r+1]]) {
				return false
			}
		}
	}
	if c.Unique {
		seen := make(map[string]struct{}, n)
		for r := 0; r < n; r++ {
			if !valid(r) {
				continue
			}
			v := s.Value(r)
			if _, dup := seen[v]; dup {
				return false
			}
			seen[v] = struct{}{}
		}
	}
	return true
}

func inEnum(enum []string, v []byte) bool {
	for _, e := range enum {
		if len(e) == len(v) && e == string(v) {
			return true
		}
	}
	return false
}

// asBuilt returns a, or a copy sharing its value buffers, whose bitmaps
// the writers write exactly as those of the array a builder makes in one
// go, as the general path builds arrays: the Arrow IPC writer records a
// bitmap's length as the smaller of its buffer's length and the rows'
// bytes padded to 64, and copies the bits past the last row as they are;
// the Parquet writer encodes a nullable column differently when it has no
// validity bitmap. Arrays read from an Arrow file optimus wrote need no
// copy; Parquet's decoder sizes bitmaps otherwise. Only bitmaps are copied
// (a bit per row), never values.
func asBuilt(a arrow.Array, nullable bool) arrow.Array {
	d := a.Data()
	n := d.Len()
	bufs := d.Buffers()
	if n == 0 {
		a.Retain()
		return a
	}
	id := d.DataType().ID()
	var fixed []*memory.Buffer
	fix := func(i, length int, allSet bool) {
		if fixed == nil {
			fixed = slices.Clone(bufs)
		}
		b := memory.NewResizableBuffer(mem)
		b.Resize(length)
		out := b.Bytes()
		clear(out)
		if allSet {
			bitutil.SetBitsTo(out, 0, int64(n), true)
		} else {
			bitutil.CopyBitmap(bufs[i].Bytes(), 0, n, out, 0)
		}
		fixed[i] = b
	}
	if nullable || d.NullN() > 0 {
		built := builtValidityLen(id, n)
		if bufs[0] == nil || !bitmapAsBuilt(bufs[0], n, built) {
			fix(0, built, d.NullN() == 0)
		}
	}
	if id == arrow.STRING && (bufs[2] == nil || bufs[2].Bytes() == nil) {
		// No text at all (every value empty): the Parquet writer records
		// no min and max for a nil value buffer, as the IPC reader leaves
		// it, but does for a builder's empty one.
		if fixed == nil {
			fixed = slices.Clone(bufs)
		}
		fixed[2] = memory.NewBufferBytes(make([]byte, 0))
	}
	if id == arrow.BOOL {
		built := int(bitutil.BytesForBits(int64(n)))
		if bufs[1] == nil || !bitmapAsBuilt(bufs[1], n, built) {
			fix(1, built, false)
		}
	}
	if fixed == nil {
		a.Retain()
		return a
	}
	nd := array.NewData(d.DataType(), n, fixed, d.Children(), d.NullN(), 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}

// builtValidityLen is the length of the validity bitmap a builder of type
// id makes for n values appended at once: sized for the next power of two
// above n, at least 32 except for strings. TestBuiltBitmapLengths pins
// this to arrow-go's builders.
func builtValidityLen(id arrow.Type, n int) int {
	c := bitutil.NextPowerOf2(n)
	if id != arrow.STRING {
		c = max(c, 32)
	}
	return int(bitutil.CeilByte(c) / 8)
}

// bitmapAsBuilt reports whether the writers treat buf, a bitmap of n bits,
// as one a builder made with built bytes: the same recorded length, and no
// bit set past the last row.
func bitmapAsBuilt(buf *memory.Buffer, n, built int) bool {
	bits := buf.Bytes()
	if int64(len(bits)) < bitutil.BytesForBits(int64(n)) {
		return false
	}
	if n%8 != 0 && bits[n/8]>>(n%8) != 0 {
		return false
	}
	padded := int((bitutil.BytesForBits(int64(n)) + 63) &^ 63)
	return min(len(bits), padded) == min(built, padded)
}
