package goodput

import (
	"fmt"
	"testing"
)

// With no jobs Allocate runs no generation: a generation of that search
// leaves its population as it was, so the result is the one the whole
// search would give.
func TestNoJobsNoGenerations(t *testing.T) {
	p := &AllocProblem{Capacity: [][]float64{{4, 16}, {8, 64}}, Seed1: 0, Seed2: 2}
	s := newSearch(p)
	pop := s.initial()
	want := fmt.Sprintf("%+v", pop)
	for g := range DefaultGenerations {
		if pop = s.generation(pop); fmt.Sprintf("%+v", pop) != want {
			t.Fatalf("generation %d changed the population: %+v, want %s", g, pop, want)
		}
	}
	got := Allocate(p)
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", AllocResult{Best: pop[0].x, Fitness: pop[0].fit, Front: s.front(pop)}) {
		t.Errorf("Allocate without jobs: %+v", got)
	}
	if got.Best == nil || len(got.Best) != 0 || len(got.Front) != 1 || got.Fitness != 0 {
		t.Errorf("Allocate without jobs: %#v", got)
	}
}
