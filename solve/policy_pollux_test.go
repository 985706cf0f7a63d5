package solve

import (
	"strings"
	"testing"
)

// Pollux's search in solve: on 4 nodes of 4 GPUs, three all-reduce jobs of
// the ring model all run within every node's capacity, no node holds two
// of them that span nodes, a PS job waits with the reason, and the same
// problem gives the same plan.
func TestPolluxPlansAllReduceJobs(t *testing.T) {
	nodes := [][]float64{{4, 16}, {4, 16}, {4, 16}, {4, 16}}
	p := &Problem{Resources: resources, Nodes: nodes,
		Jobs: []Job{ringJob("a", 0, 10), ringJob("b", 1, 10), ringJob("c", 2, 10), balancedJob("d", 3, 10)}}
	res := mustSolve(t, p, Options{Policy: Pollux})
	gpus := 0
	for i, d := range res.Decisions[:3] {
		if d.Status != Running || d.PS != 0 || d.Workers < 1 {
			t.Errorf("%s: %s with %d PS + %d workers: %s", p.Jobs[i].Name, d.Status, d.PS, d.Workers, d.Reason)
		}
		gpus += d.Workers
	}
	if gpus > 16 {
		t.Errorf("%d GPUs allocated of 16", gpus)
	}
	if d := res.Decisions[3]; d.Status != Waiting || !strings.Contains(d.Reason, "all-reduce jobs only") {
		t.Errorf("the PS job: %s, %q", d.Status, d.Reason)
	}
	again := mustSolve(t, p, Options{Policy: Pollux})
	for i := range res.Decisions {
		if res.Decisions[i].Workers != again.Decisions[i].Workers {
			t.Errorf("%s: %d workers, then %d: not deterministic", p.Jobs[i].Name, res.Decisions[i].Workers, again.Decisions[i].Workers)
		}
	}
}
