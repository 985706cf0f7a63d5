package schema

import (
	"slices"
	"testing"
)

// This test binary links neither solve nor place: the columns of their
// value sets accept no value, and say why, rather than any value.
func TestUnsetValueSetAcceptsNothing(t *testing.T) {
	for _, c := range []struct {
		t    *Table
		col  string
		want *ValueSet
	}{{Allocation, "alloc_policy", AllocPolicies}, {SimSummary, "policy", AllocPolicies}, {Plan, "job_method", PlaceMethods}} {
		col, ok := c.t.Column(c.col)
		if !ok || col.Values != c.want {
			t.Fatalf("%s.%s: no column of set %s", c.t.Name, c.col, c.want.Name)
		}
		if want := []string{Unregistered(c.want)}; !slices.Equal(col.Enum, want) {
			t.Errorf("%s.%s: enum %q, want %q", c.t.Name, c.col, col.Enum, want)
		}
	}
	// Every column of a set starts with the set's Unregistered text (the
	// tables write it out as a literal).
	n := 0
	for _, tab := range All {
		for _, col := range tab.Columns {
			if col.Values == nil {
				continue
			}
			n++
			if want := []string{Unregistered(col.Values)}; !slices.Equal(col.Enum, want) {
				t.Errorf("%s.%s: enum %q, want %q", tab.Name, col.Name, col.Enum, want)
			}
		}
	}
	if n < 7 {
		t.Errorf("%d columns of a value set, want allocation's, plan's and the 5 sim tables'", n)
	}
}

// Set gives every column of the set, in every table, the values in order.
func TestSetUpdatesEveryColumn(t *testing.T) {
	saved := AllocPolicies.Values()
	defer func() {
		AllocPolicies.values = saved
		AllocPolicies.sync()
	}()
	AllocPolicies.Set("b", "a")
	n := 0
	for _, tab := range All {
		for _, c := range tab.Columns {
			if c.Values == AllocPolicies {
				n++
				if !slices.Equal(c.Enum, []string{"b", "a"}) {
					t.Errorf("%s.%s: %v", tab.Name, c.Name, c.Enum)
				}
			}
		}
	}
	if n < 6 {
		t.Errorf("%d columns of the set, want allocation's and the 5 sim tables'", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("a value given twice was accepted")
		}
	}()
	AllocPolicies.Set("a", "a")
}
