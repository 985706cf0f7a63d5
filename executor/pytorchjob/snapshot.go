package pytorchjob

import (
	"context"
	"fmt"
	"sort"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeopts"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

// SnapshotConfig is the pytorchjob snapshot source's configuration: the
// kubernetes source's (package kubeopts registers the source).
type SnapshotConfig = kubeopts.PyTorchJobSnapshotConfig

// readSnapshot lists the nodes (as the kubernetes source does) and reads
// the PyTorchJobs' tasks back (Current): SnapshotConfig.Read.
func readSnapshot(ctx context.Context, c *SnapshotConfig) (*executor.Snapshot, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	var ts *k8s.Templates
	if c.PodTemplates != "" {
		var err error
		if ts, err = k8s.LoadTemplates(c.PodTemplates); err != nil {
			return nil, err
		}
	}
	x, err := New(ctx, k8s.Options{Kubeconfig: c.Kubeconfig, Context: c.Context, Namespace: c.Namespace})
	if err != nil {
		return nil, err
	}
	nodes, note, err := x.pods.SnapshotNodes(ctx, ts)
	if err != nil {
		return nil, err
	}
	running, err := x.Current(ctx)
	if err != nil {
		return nil, err
	}
	listed := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		listed[n.Name] = true
	}
	var tasks []executor.Task
	var warnings []string
	for _, t := range running {
		if !listed[t.Node] {
			warnings = append(warnings, fmt.Sprintf("PyTorchJob %s (task %s) is planned on node %s, which the cluster does not list: left out of the plan", t.Job, t.Name(), t.Node))
			continue
		}
		tasks = append(tasks, t)
	}
	sort.Strings(warnings)
	where := "namespace " + x.Namespace() + " (PyTorchJobs)"
	if note != "" {
		where += " (" + note + ")"
	}
	return &executor.Snapshot{Nodes: nodes, Tasks: tasks, Where: where, Warnings: warnings}, nil
}
