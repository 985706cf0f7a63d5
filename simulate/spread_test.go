package simulate

import (
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/layout"
)

// bestPlaced's reused buffer must hold what layout.SpreadEvenly returns.
func TestSpreadEvenlyIntoAsLayout(t *testing.T) {
	buf := make([]int, 16)
	for w := 1; w <= 64; w++ {
		for n := 1; n <= 16; n++ {
			if got, want := spreadEvenlyInto(buf, w, n), layout.SpreadEvenly(w, n); !slices.Equal(got, want) {
				t.Fatalf("w=%d n=%d: %v, layout.SpreadEvenly %v", w, n, got, want)
			}
		}
	}
}
