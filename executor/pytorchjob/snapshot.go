package pytorchjob

import (
	"context"
	"fmt"
	"sort"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

func init() {
	executor.RegisterSource(&executor.Source{
		Name:  Name,
		Short: "Read a Kubernetes cluster and its optimus PyTorchJobs into cluster, plan and jobs tables",
		Long: `Snapshot reads a Kubernetes cluster (--kubeconfig, the KUBECONFIG variable, or the
in-cluster service account) and writes into DIR the tables snapshot kubernetes writes, with
the plan running now read from the namespace's optimus-managed PyTorchJobs (label
app.kubernetes.io/managed-by=optimus) rather than from pods: each PyTorchJob's
optimus.dev/tasks annotation, what the last apply --executor pytorchjob planned
(docs/kubernetes.md, "PyTorchJob executor").

  cluster.parquet  the nodes, as snapshot kubernetes writes them (allocatable less what
                   pods optimus does not manage request; cordoned, NotReady and untolerated
                   tainted nodes left out).
  plan.parquet     one row per worker of each PyTorchJob; a task on a node the cluster does
                   not list is left out, with a warning.
  jobs.parquet     with --jobs: the jobs table with ps 0 and workers set to what runs now.`,
		Example:   `  optimus snapshot pytorchjob --jobs jobs.parquet --namespace training -o snap`,
		NewConfig: func() executor.SourceConfig { return &SnapshotConfig{} },
		FileFlags: []string{"kubeconfig"},
	})
}

// SnapshotConfig is the pytorchjob snapshot source's configuration: the
// kubernetes source's.
type SnapshotConfig struct{ k8s.SnapshotConfig }

// Read lists the nodes (as the kubernetes source does) and reads the
// PyTorchJobs' tasks back (Current).
func (c *SnapshotConfig) Read(ctx context.Context) (*executor.Snapshot, error) {
	if err := k8s.CheckNamespace(c.Namespace); err != nil {
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
