package simulate

import (
	"fmt"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// Pollux's placement: a running job of an unchanged count keeps its GPUs;
// the others, fewest workers first, take GPUs from the node with the most
// free (the first on a tie), as many as they can.
func TestPolluxPlace(t *testing.T) {
	c := &pipeline.Cluster{Resources: []string{"gpu"}, Nodes: []string{"n0", "n1", "n2"}, Capacity: [][]float64{{4}, {4}, {4}}}
	job := func(name string, run pipeline.Running) *jobRun {
		return &jobRun{job: &Job{Name: name, Mode: "allreduce", Worker: []float64{1}}, run: run}
	}
	kept := pipeline.Running{Workers: 2, Tasks: []place.Task{{Role: place.Worker, Index: 0, Node: 0}, {Role: place.Worker, Index: 1, Node: 0}}}
	active := []*jobRun{
		job("a", kept),               // keeps n0, n0
		job("b", pipeline.Running{}), // 3 new workers
		job("c", pipeline.Running{}), // 1 new worker, placed before b
		job("d", pipeline.Running{}), // waits
		job("e", pipeline.Running{Workers: 1, Tasks: []place.Task{{Role: place.Worker, Node: 2}}}), // grows to 5: moves
	}
	res := &solve.Result{Decisions: []solve.Decision{{Workers: 2}, {Workers: 3}, {Workers: 1}, {Workers: 0, Reason: "no GPU left"}, {Workers: 4}}}
	state, status, reason, err := polluxPlace(c, active, res, solve.Options{Policy: solve.Optimus})
	if err != nil {
		t.Fatal(err)
	}
	nodes := func(name string) string {
		var out []string
		for _, tk := range state[name].Tasks {
			out = append(out, c.Nodes[tk.Node])
		}
		return fmt.Sprint(out)
	}
	// Free after a keeps n0 twice: n0 2, n1 4, n2 4. c (1) takes n1 (the
	// first of two with 4); b (3) n2 (4 free, n1 3); e (4) n1's 3, then
	// one of n0 (2 free, n2 1).
	want := map[string]string{"a": "[n0 n0]", "c": "[n1]", "b": "[n2 n2 n2]", "e": "[n1 n1 n1 n0]"}
	for name, w := range want {
		if got := nodes(name); got != w {
			t.Errorf("%s on %s, want %s", name, got, w)
		}
	}
	if _, ok := state["d"]; ok || status[3] != string(place.Waiting) || reason[3] != "no GPU left" {
		t.Errorf("d: state %v, status %q, reason %q", state["d"], status[3], reason[3])
	}
	if !slices.Equal(status, []string{"running", "running", "running", "waiting", "running"}) {
		t.Errorf("statuses %v", status)
	}
	active[1].job.Worker = []float64{2}
	if _, _, _, err := polluxPlace(c, active, res, solve.Options{Policy: solve.Optimus}); err == nil {
		t.Error("a job of 2 GPUs a worker was placed")
	}
}
