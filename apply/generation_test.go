package apply_test

import (
	"testing"

	"github.com/optimus-sched/optimus/apply"
)

// A plan's generation is a hash of its tasks and nodes: the same for equal
// plans, another when a task moves.
func TestGeneration(t *testing.T) {
	plan, _ := testbed(t)
	if g := apply.Generation(plan); g != apply.Generation(clone(plan)) || len(g) != 13 || apply.Generation(moved(plan, "seq2seq-a-worker-1", "gpu-04")) == g {
		t.Errorf("generation %q: want 13 characters, equal for equal plans, different for a moved task", g)
	}
}
