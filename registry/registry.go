// Package registry is the one mechanism behind optimus' extension points:
// allocation policies (package solve), placement policies (place), snapshot
// sources (executor) and metric sources (metrics). Each entry is one file
// that adds itself from init; lists, help, completion and schema
// enumerations are derived from the registry, so they cannot disagree.
//
// Entries are listed by their order (ascending; those without one, 0, last)
// and then by name, so a list is the same whatever the files' init order.
package registry

import (
	"cmp"
	"fmt"
	"slices"
)

// Registry holds the entries of one extension point by name.
type Registry[E any] struct {
	what    string // what an entry is, for messages: "allocation policy"
	entries map[string]entry[E]
}

type entry[E any] struct {
	name  string
	order int
	e     E
}

// New returns an empty registry of entries that are a what.
func New[E any](what string) *Registry[E] {
	return &Registry[E]{what: what, entries: map[string]entry[E]{}}
}

// Add adds e as name at order. A second entry of one name, or one without
// a name, is a bug in the program and panics at start-up.
func (r *Registry[E]) Add(name string, order int, e E) {
	if _, dup := r.entries[name]; dup || name == "" {
		panic(fmt.Sprintf("registry: %s %q registered twice or without a name", r.what, name))
	}
	r.entries[name] = entry[E]{name: name, order: order, e: e}
}

// Lookup returns the entry called name, and whether there is one.
func (r *Registry[E]) Lookup(name string) (E, bool) {
	en, ok := r.entries[name]
	return en.e, ok
}

// List returns the entries in the registry's order.
func (r *Registry[E]) List() []E {
	sorted := r.sorted()
	out := make([]E, len(sorted))
	for i, en := range sorted {
		out[i] = en.e
	}
	return out
}

// Names returns the entries' names in the registry's order.
func (r *Registry[E]) Names() []string {
	sorted := r.sorted()
	out := make([]string, len(sorted))
	for i, en := range sorted {
		out[i] = en.name
	}
	return out
}

func (r *Registry[E]) sorted() []entry[E] {
	out := make([]entry[E], 0, len(r.entries))
	for _, en := range r.entries {
		out = append(out, en)
	}
	slices.SortFunc(out, func(a, b entry[E]) int {
		if (a.order == 0) != (b.order == 0) {
			if a.order == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.name, b.name))
	})
	return out
}
