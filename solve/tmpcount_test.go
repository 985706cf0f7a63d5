package solve_test

import (
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/adapt"
	"github.com/optimus-sched/optimus/solve"
)

func TestTmpCount(t *testing.T) {
	cluster, pred, _ := datasets.Workload(datasets.WorkloadConfig{Seed: 1, Tasks: 100000, Nodes: 16000, Running: 0.3})
	_, prob, _ := adapt.SolveProblem(pred, cluster, "p50")
	solve.Solve(prob, solve.DefaultOptions())
}
