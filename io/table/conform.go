package table

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/optimus-sched/optimus/io/schema"
)

// conform validates a freshly decoded table against its schema and returns it
// in canonical form: declared columns first, in schema order, with their
// declared types (after lossless conversion), absent optional columns filled
// with their defaults, then the remaining columns in input order.
func conform(raw *Table, want *schema.Table) (*Table, error) {
	s, err := resolveSchema(raw, want)
	if err != nil {
		return nil, err
	}
	return build(raw.Source, s, raw.rows, arrowColumns(raw), nil, raw.Meta)
}

// arrowColumns are the columns of a decoded or in-memory table, with the
// rule each was last checked against.
func arrowColumns(t *Table) []column {
	cols := make([]column, len(t.fields))
	for i, f := range t.fields {
		a := t.cols[i]
		cols[i] = column{name: f.Name, arrowType: f.Type, arr: a, checked: t.checkedAt(i),
			convert: func(typ schema.Type) (*values, *Error) {
				return toValues(t.Source, f.Name, a, typ)
			}}
		if sv, ok := a.(interface{ Value(int) string }); ok {
			cols[i].firstNumber = func() int {
				for r := 0; r < a.Len(); r++ {
					if _, num := parseNumber(strings.TrimSpace(sv.Value(r))); num && a.IsValid(r) {
						return r
					}
				}
				return -1
			}
		}
	}
	return cols
}

// stringAt is row r of a text array, for messages.
func stringAt(a arrow.Array, r int) string {
	if sv, ok := a.(interface{ Value(int) string }); ok && a.IsValid(r) {
		return sv.Value(r)
	}
	return ""
}

// ConformTo checks t against the declaration s, which need not be one of
// the registered tables (eval reads speed measurements keyed by another
// column, say), and returns it in canonical form.
func ConformTo(t *Table, s *schema.Table) (*Table, error) {
	return build(t.Source, s, t.rows, arrowColumns(t), nil, t.Meta)
}

// column is one input column, not yet converted: CSV and Arrow inputs differ
// only in how a column turns into values of a wanted type.
type column struct {
	name string
	// arrowType is the column's type in a binary input; nil for CSV, where
	// natural says what the text holds.
	arrowType arrow.DataType
	natural   schema.Type
	// infer, when set, computes natural (a CSV column's type is only
	// inferred when no schema declares it).
	infer   func() schema.Type
	convert func(schema.Type) (*values, *Error)
	// arr is the column of a binary input or in-memory table (nil for
	// CSV), checked the rule it was last checked against ("" for none).
	arr     arrow.Array
	checked string
	// firstNumber is the first row of a text column whose value reads as
	// a number (-1 for none); nil for other columns.
	firstNumber func() int
}

// take returns the column as it is, without converting or checking it
// again, when it was already checked against rule c or passes fastCheck.
func (in *column) take(c schema.Column, key string) (arrow.Array, bool) {
	if in.arr == nil || !shortcuts {
		return nil, false
	}
	if in.checked == key || fastCheck(c, in.arr) {
		return asBuilt(in.arr, c.Nullable), true
	}
	return nil, false
}

// resolveSchema decides which schema a table is checked against: the one
// named in its metadata, or want, or (for files without metadata, such as
// hand-written CSV) the declared table its columns match best.
func resolveSchema(raw *Table, want *schema.Table) (*schema.Table, error) {
	if raw.Name != "" {
		s := schema.Lookup(raw.Name)
		if s == nil {
			return nil, Errorf(raw.Source, "unknown table kind %q in the file's metadata (known: %s)",
				raw.Name, strings.Join(schema.Names(), ", "))
		}
		if raw.Version < 1 || raw.Version > s.Version {
			return nil, Errorf(raw.Source, "%s table of schema version %d: this optimus reads version %d",
				s.Name, raw.Version, s.Version)
		}
		if want != nil && !want.IsA(s.Name) {
			return nil, Errorf(raw.Source, "is %s table, but %s table is expected here", WithArticle(s.Name), WithArticle(want.Name))
		}
		return s, nil
	}
	names := raw.ColumnNames()
	if s := Recognise(names, want); s != nil {
		return s, nil
	}
	if want != nil {
		return want, nil // the missing columns will be reported
	}
	return nil, nil
}

// Recognise returns the declared table whose columns best match names: all of
// its required columns present, the most declared columns present, and among
// equals the one declaring fewest. Only want and the tables extending it are
// candidates, or all tables when want is nil.
func Recognise(names []string, want *schema.Table) *schema.Table {
	var best *schema.Table
	bestScore, bestSize := -1, 0
	for _, s := range schema.All {
		if want != nil && !want.IsA(s.Name) {
			continue
		}
		score, ok := 0, true
		for _, c := range s.AllColumns() {
			if slices.Contains(names, c.Name) {
				score++
			} else if c.Required {
				ok = false
				break
			}
		}
		size := len(s.AllColumns())
		if ok && (score > bestScore || score == bestScore && size < bestSize) {
			best, bestScore, bestSize = s, score, size
		}
	}
	return best
}

// build converts and checks every column against s (nil: no schema) and
// assembles the table. lines maps data rows to CSV lines for messages.
func build(source string, s *schema.Table, rows int, cols []column, lines []int, meta map[string]string) (*Table, error) {
	out := &Table{Source: source, Meta: meta, rows: rows, lines: lines}
	var p problems
	loc := func(col string, r int, format string, args ...any) {
		e := &Error{Source: source, Column: col, Row: r + 1, Msg: fmt.Sprintf(format, args...)}
		if lines != nil {
			e.Line = lines[r]
		}
		p.add(e)
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c.name] {
			return nil, &Error{Source: source, Column: c.name, Msg: "appears twice in the header"}
		}
		seen[c.name] = true
	}
	find := func(name string) *column {
		for i := range cols {
			if cols[i].name == name {
				return &cols[i]
			}
		}
		return nil
	}
	// Each column is added once (the header's names are distinct), so
	// without a search for it by name.
	add := func(name string, a arrow.Array, nullable bool, key string) {
		out.appendChecked(arrow.Field{Name: name, Type: a.DataType(), Nullable: nullable}, a, key)
	}

	if s != nil {
		out.Name, out.Version = s.Name, s.Version
		declared := s.AllColumns()
		var missing []string
		for _, c := range declared {
			if c.Required && find(c.Name) == nil {
				missing = append(missing, strconv.Quote(c.Name))
			}
		}
		if len(missing) > 0 {
			noun := "column"
			if len(missing) > 1 {
				noun = "columns"
			}
			return nil, Errorf(source, "missing required %s %s of the %s table", noun, strings.Join(missing, ", "), s.Name)
		}
		for _, c := range declared {
			in := find(c.Name)
			key := ruleKey(c)
			var v *values
			if in == nil {
				v = filled(c, rows)
			} else {
				if a, ok := in.take(c, key); ok {
					add(c.Name, a, c.Nullable, key)
					continue
				}
				var e *Error
				if v, e = in.convert(c.Type); e != nil {
					if lines != nil && e.Row > 0 {
						e.Line = lines[e.Row-1]
					}
					p.add(e)
					continue
				}
				checkColumn(c, v, loc)
			}
			add(c.Name, v.array(), c.Nullable, key)
		}
	}
	patterns := 0
	for _, in := range cols {
		if s != nil {
			if _, declared := s.Column(in.name); declared {
				continue
			}
		}
		typ := in.natural
		if in.infer != nil {
			typ = in.infer()
		}
		if in.arrowType != nil {
			var ok bool
			if typ, ok = naturalType(in.arrowType); !ok {
				p.add(&Error{Source: source, Column: in.name,
					Msg: fmt.Sprintf("has type %v, which optimus tables do not use (string, int64, float64 or bool)", in.arrowType)})
				continue
			}
		}
		nullable := true
		holdsNumber := false
		if s != nil {
			pat, ok := s.MatchPattern(in.name)
			// A text column where a catch-all pattern expects numbers (a
			// cluster's resources) is a label only when it holds no number:
			// one that does is a resource with a bad value, or stored as
			// text, not a label that makes the resource vanish.
			// A known resource name (gpu) is a resource whatever it
			// holds; so is any column of a table without rows, whose
			// type its values cannot show.
			known := ok && pat.Prefix == "" && slices.Contains(pat.Known, in.name)
			if ok && pat.Prefix == "" && typ == schema.String && (in.firstNumber != nil || known) {
				r := -1
				if in.firstNumber != nil {
					r = in.firstNumber()
				}
				holdsNumber = r >= 0
				if known && r < 0 && rows > 0 {
					r = 0
				}
				switch {
				case r >= 0 && in.arrowType != nil:
					loc(in.name, r, "%s is text (the column has type %s): a %s column holds numbers (%s); a label column holds no number",
						strconv.Quote(clip(stringAt(in.arr, r))), in.arrowType, patternNoun(s), pat.Type)
					continue
				case r >= 0 || rows == 0 && in.arrowType == nil:
					typ = pat.Type
				}
			}
			if ok && (pat.Prefix != "" || typ == schema.Int64 || typ == schema.Float64) {
				typ, nullable = pat.Type, false
				patterns++
				c := patternColumn(in.name, pat)
				key := ruleKey(c)
				if a, ok := in.take(c, key); ok {
					add(in.name, a, false, key)
					continue
				}
				v, e := in.convert(typ)
				if e != nil {
					if lines != nil && e.Row > 0 {
						e.Line = lines[e.Row-1]
					}
					switch {
					case known && !holdsNumber && e.Row > 0:
						e.Msg += fmt.Sprintf(": %s is a %s column, which holds numbers", in.name, patternNoun(s))
					case pat.Prefix == "" && e.Row > 0:
						e.Msg += fmt.Sprintf(": the column holds numbers, so it is a %s column (a label column holds no number)", patternNoun(s))
					}
					p.add(e)
					continue
				}
				checkColumn(c, v, loc)
				add(in.name, v.array(), false, key)
				continue
			}
		}
		key := naturalKey(in.name, typ)
		if a, ok := in.take(schema.Column{Name: in.name, Type: typ, Nullable: true, AllowNaN: true}, key); ok {
			add(in.name, a, nullable, key)
			continue
		}
		v, e := in.convert(typ)
		if e != nil {
			p.add(e)
			continue
		}
		add(in.name, v.array(), nullable, key)
	}
	if s != nil && patterns < s.MinPatternColumns {
		e := Errorf(source, "no %s columns: %s table needs at least one (%s)", patternNoun(s), WithArticle(s.Name), s.Patterns[0].Doc)
		var labels []string
		for _, in := range cols {
			if _, declared := s.Column(in.name); !declared {
				labels = append(labels, strconv.Quote(in.name))
			}
		}
		if len(labels) > 0 {
			e.Msg += fmt.Sprintf("; %s hold text, read as labels", strings.Join(labels, ", "))
		}
		p.add(e)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// WithArticle is a table kind's name with its indefinite article, for
// messages: "a jobs", "an allocation".
func WithArticle(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

func patternNoun(s *schema.Table) string {
	if s.Name == "cluster" {
		return "resource"
	}
	return "numeric"
}

// filled is the column an absent optional column reads as: its default, or
// nulls.
func filled(c schema.Column, rows int) *values {
	v := newValues(c.Type, rows)
	if c.Default == "" {
		for r := 0; r < rows; r++ {
			v.setNull(r)
		}
		return v
	}
	for r := 0; r < rows; r++ {
		setDefault(c, v, r)
	}
	return v
}

func setDefault(c schema.Column, v *values, r int) {
	switch c.Type {
	case schema.String:
		v.s[r] = c.Default
	case schema.Int64:
		v.i[r], _ = strconv.ParseInt(c.Default, 10, 64)
	case schema.Float64:
		v.f[r], _ = strconv.ParseFloat(c.Default, 64)
	case schema.Bool:
		v.b[r] = c.Default == "true"
	}
	v.setValid(r)
}

// checkColumn applies a column's rules to every value, filling nulls in
// columns that have a default, and reports each violation through loc.
func checkColumn(c schema.Column, v *values, loc func(col string, r int, format string, args ...any)) {
	n := v.len()
	var first map[string]int
	if c.Unique {
		first = make(map[string]int, n)
	}
	for r := 0; r < n; r++ {
		if v.isNull(r) {
			switch {
			case c.Nullable:
			case c.Default != "":
				setDefault(c, v, r)
			default:
				loc(c.Name, r, "no value: the column requires one")
			}
			continue
		}
		switch c.Type {
		case schema.String:
			s := v.s[r]
			if c.NonEmpty && strings.TrimSpace(s) == "" {
				loc(c.Name, r, "empty: a name is required")
			}
			if len(c.Enum) > 0 && !slices.Contains(c.Enum, s) {
				loc(c.Name, r, "%q is not one of %s", s, strings.Join(c.Enum, ", "))
			}
			if c.Unique {
				if f, dup := first[s]; dup {
					loc(c.Name, r, "duplicate %s %q (first at row %d)", c.Name, s, f+1)
				} else {
					first[s] = r
				}
			}
		case schema.Int64:
			if i := v.i[r]; i > maxExactInt || i < -maxExactInt {
				loc(c.Name, r, "%d is beyond ±2^53 (%d): optimus computes in float64, which holds no larger integer exactly", i, int64(maxExactInt))
				continue
			}
			checkMin(c, float64(v.i[r]), r, loc)
		case schema.Float64:
			f := v.f[r]
			if math.IsNaN(f) || math.IsInf(f, 0) {
				if !c.AllowNaN {
					loc(c.Name, r, "%v is not allowed: a finite number is required", f)
				}
				continue
			}
			checkMin(c, f, r, loc)
		}
	}
}

func checkMin(c schema.Column, f float64, r int, loc func(col string, r int, format string, args ...any)) {
	if c.Max != nil && f > *c.Max {
		loc(c.Name, r, "%v is more than %v, the most the column takes", f, *c.Max)
	}
	if c.Min == nil {
		return
	}
	if c.MinOpen && f <= *c.Min {
		loc(c.Name, r, "%v must be greater than %v", f, *c.Min)
	} else if !c.MinOpen && f < *c.Min {
		if *c.Min == 0 {
			loc(c.Name, r, "%v is negative", f)
		} else {
			loc(c.Name, r, "%v must be at least %v", f, *c.Min)
		}
	}
}

// Conform checks a table built in memory against its own schema and returns
// it in canonical form (declared columns in schema order, absent optional
// ones filled), exactly as a reader would return the written file. Commands
// pass their output through it, so that what they write is valid and reads
// back unchanged.
func Conform(t *Table) (*Table, error) {
	s := schema.Lookup(t.Name)
	if s == nil {
		return t, nil
	}
	src := t.Source
	if src == "" {
		src = "output " + t.Name + " table"
	}
	raw := *t
	raw.Source = src
	out, err := conform(&raw, s)
	if err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	out.Source = t.Source
	return out, nil
}
