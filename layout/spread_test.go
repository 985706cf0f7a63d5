package layout

import (
	"slices"
	"testing"
)

func TestSpreadEvenly(t *testing.T) {
	cases := []struct {
		w, n int
		want []int
	}{
		{8, 2, []int{4, 4}},
		{7, 3, []int{3, 2, 2}},
		{2, 4, []int{1, 1}}, // never a node without a task
		{5, 0, []int{5}},    // at least one node
		{0, 3, []int{0}},
	}
	for _, c := range cases {
		if got := SpreadEvenly(c.w, c.n); !slices.Equal(got, c.want) {
			t.Errorf("SpreadEvenly(%d, %d) = %v, want %v", c.w, c.n, got, c.want)
		}
	}
}
