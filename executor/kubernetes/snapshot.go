package kubernetes

import (
	"context"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeopts"
)

// SnapshotConfig is the kubernetes snapshot source's configuration
// (package kubeopts registers the source).
type SnapshotConfig = kubeopts.SnapshotConfig

// readSnapshot lists the nodes and the optimus-managed pods of the
// namespace, and checks them (snapshotTasks): SnapshotConfig.Read.
func readSnapshot(ctx context.Context, c *SnapshotConfig) (*executor.Snapshot, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	var ts *Templates
	if c.PodTemplates != "" {
		var err error
		if ts, err = LoadTemplates(c.PodTemplates); err != nil {
			return nil, err
		}
	}
	x, err := New(ctx, Options{Kubeconfig: c.Kubeconfig, Context: c.Context, Namespace: c.Namespace, QPS: c.Rate.QPS, Burst: c.Rate.Burst})
	if err != nil {
		return nil, err
	}
	nodes, note, err := x.SnapshotNodes(ctx, ts) // foreign.go: namespace, foreign pods, taints
	if err != nil {
		return nil, err
	}
	pods, err := x.managedPods(ctx)
	if err != nil {
		return nil, err
	}
	tasks, warnings, err := snapshotTasks(pods, nodes, x.Namespace())
	if err != nil {
		return nil, err
	}
	where := "namespace " + x.Namespace()
	if note != "" {
		where += " (" + note + ")"
	}
	return &executor.Snapshot{Nodes: nodes, Tasks: tasks, Where: where, Warnings: warnings}, nil
}
