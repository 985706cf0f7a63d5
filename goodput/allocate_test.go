package goodput_test

import (
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/goodput"
)

// linear is a speedup proportional to the replicas, halved across nodes.
func linear(nodes, replicas int) float64 {
	if nodes > 1 {
		return float64(replicas) / 2
	}
	return float64(replicas)
}

func cluster(nodes, gpus int) [][]float64 {
	c := make([][]float64, nodes)
	for i := range c {
		c[i] = []float64{float64(gpus)}
	}
	return c
}

// The search respects every node's capacity, every job's MaxReplicas and
// interference avoidance, gives each of 4 jobs on 4 nodes of 4 GPUs a node
// of its own (the fair mean's optimum when crossing nodes halves the
// speedup), and is deterministic.
func TestAllocateFairAndFeasible(t *testing.T) {
	p := &goodput.AllocProblem{Capacity: cluster(4, 4), Seed1: 1, Seed2: 2}
	for range 4 {
		p.Jobs = append(p.Jobs, goodput.AllocJob{Speedup: linear, Demand: []float64{1}, MaxReplicas: 8, RestartFactor: 1})
	}
	res := goodput.Allocate(p)
	for j := range 4 {
		row := res.Best[j*4 : (j+1)*4]
		if slices.Max(row) != 4 || sum(row) != 4 {
			t.Errorf("job %d: %v, want 4 GPUs on one node", j, row)
		}
	}
	again := goodput.Allocate(p)
	if !slices.Equal(res.Best, again.Best) {
		t.Errorf("two runs with one seed differ: %v and %v", res.Best, again.Best)
	}
	// A job limited to 2 replicas, and a second distributed job kept off
	// a node the first spans.
	p = &goodput.AllocProblem{Capacity: cluster(2, 4), Seed1: 3, Seed2: 4, Jobs: []goodput.AllocJob{
		{Speedup: func(n, r int) float64 { return float64(r) }, Demand: []float64{1}, MaxReplicas: 8, RestartFactor: 1},
		{Speedup: func(n, r int) float64 { return float64(r) }, Demand: []float64{1}, MaxReplicas: 2, RestartFactor: 1},
	}}
	res = goodput.Allocate(p)
	if s := sum(res.Best[2:4]); s > 2 || s < 1 {
		t.Errorf("the job limited to 2 replicas got %v", res.Best[2:4])
	}
	for n := range 2 {
		if res.Best[n]+res.Best[2+n] > 4 {
			t.Errorf("node %d holds %d GPUs of 4", n, res.Best[n]+res.Best[2+n])
		}
	}
	if spread(res.Best[0:2]) > 1 && spread(res.Best[2:4]) > 1 {
		t.Errorf("two multi-node jobs share nodes: %v", res.Best)
	}
}

// The restart penalty keeps a running job where it is when moving it buys
// less than the penalty costs.
func TestAllocateRestartPenalty(t *testing.T) {
	p := &goodput.AllocProblem{Capacity: cluster(2, 4), Seed1: 5, Seed2: 6, Jobs: []goodput.AllocJob{
		{Speedup: func(n, r int) float64 { return float64(min(r, 3)) }, Demand: []float64{1}, MaxReplicas: 4,
			Current: []int{2, 0}, RestartFactor: 0.1},
	}}
	res := goodput.Allocate(p)
	if !slices.Equal(res.Best, []int{2, 0}) {
		t.Errorf("job moved from [2 0] to %v despite a restart factor of 0.1", res.Best)
	}
	p.Jobs[0].RestartFactor = 1
	if res = goodput.Allocate(p); sum(res.Best) < 3 {
		t.Errorf("without the penalty the job should grow to 3 GPUs at least: %v", res.Best)
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func spread(xs []int) int {
	n := 0
	for _, x := range xs {
		if x > 0 {
			n++
		}
	}
	return n
}
