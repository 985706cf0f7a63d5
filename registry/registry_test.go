package registry

import (
	"slices"
	"testing"
)

func TestOrderThenNameWithUnorderedLast(t *testing.T) {
	r := New[int]("thing")
	for _, c := range []struct {
		name  string
		order int
	}{{"zeta", 0}, {"beta", 2}, {"alpha", 0}, {"gamma", 1}, {"delta", 2}} {
		r.Add(c.name, c.order, len(c.name))
	}
	if got, want := r.Names(), []string{"gamma", "beta", "delta", "alpha", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	if got, want := r.List(), []int{5, 4, 5, 5, 4}; !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	if e, ok := r.Lookup("beta"); !ok || e != 4 {
		t.Errorf("lookup beta: %v %v", e, ok)
	}
	if _, ok := r.Lookup("omega"); ok {
		t.Error("lookup of an unknown name found one")
	}
}

func TestDuplicateOrUnnamedPanics(t *testing.T) {
	for _, name := range []string{"twice", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q: no panic", name)
				}
			}()
			r := New[int]("thing")
			r.Add("twice", 0, 1)
			r.Add(name, 0, 2)
		}()
	}
}
