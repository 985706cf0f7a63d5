// Package schema declares every table that optimus reads or writes: its
// columns, their types, units and meaning, and the rules a valid table obeys.
//
// The declarations here are the single source of truth: readers validate
// against them, writers stamp their name and version into each file's
// metadata, and docs/tables.md is generated from them (optimus schema
// --markdown).
package schema

import (
	"fmt"
	"strings"
)

// Metadata keys stamped into every table optimus writes (Arrow schema
// metadata, carried into Parquet key-value metadata).
const (
	MetaName    = "optimus.schema"
	MetaVersion = "optimus.schema_version"
	// The provenance of a written table: the optimus version, the command
	// line (inputs named by content) and a run id derived from it.
	MetaOptimus = "optimus.version"
	MetaCommand = "optimus.command"
	MetaRunID   = "optimus.run_id"
)

// Type is the logical type of a column. optimus tables use only these four,
// so that pandas, DuckDB and Arrow JS read them without surprises.
type Type int

const (
	String Type = iota
	Int64
	Float64
	Bool
)

func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Int64:
		return "int64"
	case Float64:
		return "float64"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Column declares one column of a table.
type Column struct {
	Name string
	Type Type
	Unit string // e.g. "s", "steps", "GB"; empty when unitless
	Doc  string

	// Required columns must be present. An optional column that is absent
	// reads as Default (or as null when Default is empty).
	Required bool
	Default  string

	// Nullable columns may hold nulls. A null in a non-nullable column is an
	// error.
	Nullable bool

	// Checks on present, non-null values.
	Unique   bool     // no two rows share a value
	NonEmpty bool     // strings: not ""
	Enum     []string // strings: one of these
	// Values, when not nil, is the open enumeration whose values Enum
	// holds (see ValueSet): the column names entries of a registry.
	Values  *ValueSet
	Min     *float64 // numbers: value >= *Min (or > when MinOpen)
	MinOpen bool
	Max     *float64 // numbers: value <= *Max (keeps arithmetic on them finite)
	// AllowNaN lets a float column hold NaN and ±Inf (e.g. a diverged loss
	// that the fitter drops and counts). Otherwise non-finite values are
	// rejected.
	AllowNaN bool
}

// Pattern declares a family of columns whose names are not fixed: the
// resource capacities of a cluster, or a job's per-task demands. A column
// matches when its name has the prefix and its type is numeric; its
// remainder (the name without the prefix) names the resource.
type Pattern struct {
	Prefix string // "" matches any otherwise undeclared numeric column
	Type   Type
	Unit   string
	Doc    string
	Min    *float64
	// Known are the usual names of a catch-all pattern's columns: a
	// column of one of these names belongs to the pattern whatever it
	// holds (text in it is an error, never a label).
	Known []string
}

// Table declares one table.
type Table struct {
	Name    string
	Version int
	Doc     string
	// Key is the column that identifies a row (unique), or "" when rows are
	// not keyed by one column.
	Key string
	// Extends names the table whose columns this one carries through: a
	// predictions table is a jobs table with more columns, so a command that
	// reads jobs accepts predictions too.
	Extends  string
	Columns  []Column
	Patterns []Pattern
	// MinPatternColumns is how many pattern columns must be present (the
	// cluster needs at least one resource).
	MinPatternColumns int
}

// Column returns the declared column called name, including those inherited
// from the tables this one extends (which come first, as in AllColumns). It
// walks the declarations in place rather than through AllColumns, whose copy
// of every column made each lookup an allocation: tables are checked one
// lookup per column.
func (t *Table) Column(name string) (Column, bool) {
	if t.Extends != "" {
		if c, ok := Lookup(t.Extends).Column(name); ok {
			return c, true
		}
	}
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return t.Columns[i], true
		}
	}
	return Column{}, false
}

// AllColumns lists the declared columns, inherited ones first.
func (t *Table) AllColumns() []Column {
	var cols []Column
	if t.Extends != "" {
		cols = append(cols, Lookup(t.Extends).AllColumns()...)
	}
	return append(cols, t.Columns...)
}

// AllPatterns lists the column patterns, inherited ones first.
func (t *Table) AllPatterns() []Pattern {
	var ps []Pattern
	if t.Extends != "" {
		ps = append(ps, Lookup(t.Extends).AllPatterns()...)
	}
	return append(ps, t.Patterns...)
}

// MatchPattern reports which pattern, if any, a column name belongs to. The
// longest matching prefix wins, so "worker_gpu" matches "worker_" rather
// than the catch-all "".
func (t *Table) MatchPattern(name string) (Pattern, bool) {
	var best *Pattern
	t.matchPattern(name, &best)
	if best == nil {
		return Pattern{}, false
	}
	return *best, true
}

// matchPattern is MatchPattern over the declarations in place (inherited
// ones first, so that of equal prefixes the inherited pattern wins, as in
// AllPatterns order), without copying them.
func (t *Table) matchPattern(name string, best **Pattern) {
	if t.Extends != "" {
		Lookup(t.Extends).matchPattern(name, best)
	}
	for i := range t.Patterns {
		p := &t.Patterns[i]
		if strings.HasPrefix(name, p.Prefix) && len(name) > len(p.Prefix) {
			if *best == nil || len(p.Prefix) > len((*best).Prefix) {
				*best = p
			}
		}
	}
}

// IsA reports whether a table named name is t or extends t, so that it can be
// read where t is expected.
func (t *Table) IsA(name string) bool {
	for n := name; n != ""; {
		if n == t.Name {
			return true
		}
		s := Lookup(n)
		if s == nil {
			return false
		}
		n = s.Extends
	}
	return false
}

// Lookup returns the table declared under name, or nil.
func Lookup(name string) *Table {
	for _, t := range All {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Names lists the declared tables in documentation order.
func Names() []string {
	names := make([]string, len(All))
	for i, t := range All {
		names[i] = t.Name
	}
	return names
}

// zero and one are the usual lower bounds, million and unit two upper
// ones. They point at package variables, not at the results of a function,
// so that the tables that use them are laid out by the linker instead of
// being built by code at every start of the binary.
var (
	zeroV, oneV, millionV float64 = 0, 1, 1e6

	zero    = &zeroV
	one     = &oneV
	million = &millionV
)

// IsProvenance reports whether a metadata key is one of the provenance keys,
// which say what made a table, not what it holds.
func IsProvenance(key string) bool {
	return key == MetaOptimus || key == MetaCommand || key == MetaRunID
}
