package schema

import (
	"fmt"
	"slices"
)

// A ValueSet is an open enumeration: the values of a column whose names
// belong to an extension point (the allocation policies of package solve,
// the placement methods of package place). The package that owns the
// extension point sets them from its registry, so the schema, the
// bottom layer, lists none of them and imports nothing above it, and a new
// entry needs no edit here.
//
// A column refers to the set (Column.Values) and its Enum is the set's
// values: Set keeps the Enum of every declared column that refers to the
// set up to date, so every reader, writer and document that checks or shows
// Enum sees the registered values. Until values are set, Enum holds only
// Unregistered(set), which no real value equals: a program that reads or
// writes such a column without linking the owner fails the check loudly
// instead of accepting anything.
type ValueSet struct {
	Name  string // what the values are: "allocation policy"
	Owner string // the package whose registry sets them: "solve"
	// values in the owner's order.
	values []string
}

// AllocPolicies are the allocation policies, set by package solve's
// registry.
var AllocPolicies = &ValueSet{Name: "allocation policy", Owner: "solve"}

// PlaceMethods are the ways package place places a job's tasks
// (JobPlacement.Method), set by its registry of placement policies.
var PlaceMethods = &ValueSet{Name: "placement method", Owner: "place"}

// Sets lists the open enumerations.
var Sets = []*ValueSet{AllocPolicies, PlaceMethods}

// noAllocPolicy and noPlaceMethod are the Enum of the sets' columns until
// their owner sets values: Unregistered(set) written out, so that the
// tables are laid out by the linker rather than fixed up by code at every
// start of the binary (TestUnsetValueSetAcceptsNothing checks that they
// are Unregistered's text).
var (
	noAllocPolicy = []string{"(no allocation policy registered: the program does not link package solve)"}
	noPlaceMethod = []string{"(no placement method registered: the program does not link package place)"}
)

// Set makes vs the set's values, in their order (the owner's registry calls
// it from init as each entry registers, before any table is read or
// written).
func (s *ValueSet) Set(vs ...string) {
	for i, v := range vs {
		if v == "" || slices.Contains(vs[:i], v) {
			panic(fmt.Sprintf("schema: %s %q empty or given twice", s.Name, v))
		}
	}
	s.values = slices.Clone(vs)
	s.sync()
}

// Values lists the values in the owner's order.
func (s *ValueSet) Values() []string { return slices.Clone(s.values) }

// Unregistered is the Enum of a column of set s while s has no value.
func Unregistered(s *ValueSet) string {
	return fmt.Sprintf("(no %s registered: the program does not link package %s)", s.Name, s.Owner)
}

// sync sets the Enum of every declared column that refers to s.
func (s *ValueSet) sync() {
	enum := []string{Unregistered(s)}
	if len(s.values) > 0 {
		enum = slices.Clip(slices.Clone(s.values))
	}
	for _, t := range All {
		for i := range t.Columns {
			if t.Columns[i].Values == s {
				t.Columns[i].Enum = enum
			}
		}
	}
}
