package place

import (
	"slices"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// The plan table's job_method takes its values from the registry: Place's
// own methods and every policy's, and no other column lists placement
// methods of its own.
func TestSchemaEnumIsTheRegistry(t *testing.T) {
	want := slices.Clone(coreMethods)
	for _, e := range PolicyEntries() {
		for _, m := range e.Methods {
			if !slices.Contains(want, m) {
				want = append(want, m)
			}
		}
	}
	if got := schema.PlaceMethods.Values(); !slices.Equal(got, want) {
		t.Errorf("schema.PlaceMethods = %v, the registry %v", got, want)
	}
	bound := false
	for _, tab := range schema.All {
		for _, c := range tab.AllColumns() {
			if c.Values == schema.PlaceMethods {
				bound = bound || tab.Name+"."+c.Name == "plan.job_method"
				if !slices.Equal(c.Enum, want) {
					t.Errorf("%s.%s: enum %v, the registry %v", tab.Name, c.Name, c.Enum, want)
				}
				continue
			}
			named := 0
			for _, v := range c.Enum {
				if slices.Contains(want, v) {
					named++
				}
			}
			if named > 1 {
				t.Errorf("%s.%s: a closed enum %v names placement methods: refer to schema.PlaceMethods", tab.Name, c.Name, c.Enum)
			}
		}
	}
	if !bound {
		t.Error("plan.job_method does not take its values from the registry")
	}
}

// The registry lists the default first; every policy places a problem
// within the nodes' capacities and writes only the methods it declares.
func TestRegistry(t *testing.T) {
	if want := []Policy{Optimus, Spread, Pack}; !slices.Equal(Policies[:len(want)], want) {
		t.Errorf("Policies = %v, want the built-in ones first in the order %v", Policies, want)
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	for _, o := range []Options{{Policy: "random", Candidates: 1}, {Policy: Pack}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: valid", o)
		}
	}
	if _, err := ParsePolicy("random"); err == nil || !strings.Contains(err.Error(), "optimus, spread, pack") {
		t.Errorf("ParsePolicy(random): %v", err)
	}
	names, caps := uniformNodes(4, 4, 16)
	p := &Problem{Resources: res2, Nodes: names, Capacity: caps,
		Jobs: []Job{job("a", 2, 4, 2, 2), job("b", 1, 2, 3, 1), job("c", 1, 1, 1, 1)}}
	for _, e := range PolicyEntries() {
		res := mustPlace(t, p, Options{Policy: e.Name})
		if res.Policy != e.Name {
			t.Errorf("%s: result of policy %s", e.Name, res.Policy)
		}
		for j, jp := range res.Jobs {
			if jp.Status != Running || !slices.Contains(e.Methods, jp.Method) {
				t.Errorf("%s: job %s %s by method %q, not one of %v", e.Name, p.Jobs[j].Name, jp.Status, jp.Method, e.Methods)
			}
		}
	}
}
