package kubernetes

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
)

func init() {
	executor.RegisterSource(&executor.Source{
		Name:  "kubernetes",
		Short: "Read a Kubernetes cluster into cluster, plan and jobs tables",
		Long: `Snapshot reads a Kubernetes cluster (--kubeconfig, the KUBECONFIG variable, or the
in-cluster service account) and writes into DIR:

  cluster.parquet  one row per node that may take tasks, with its allocatable gpu
                   (nvidia.com/gpu), cpu (cores) and memory_gb (GiB), and the resources its
                   optimus.dev/capacity annotation declares, less what pods optimus does not
                   manage (any namespace) request there. Cordoned and NotReady nodes, and
                   nodes with a NoSchedule or NoExecute taint that --pod-templates'
                   default.yaml does not tolerate, are left out, and said so on standard
                   error.
  plan.parquet     the plan running now: one row per optimus-managed pod (label
                   app.kubernetes.io/managed-by=optimus) of the namespace, read back from its
                   labels and its optimus.dev/resources annotation. Give it to
                   place --current and apply. Two pods running one task, or a
                   negative resource, are refused (exit 2, naming the pods); a
                   pod on a node the cluster does not list is left out, with a
                   warning.
  jobs.parquet     with --jobs: the user's jobs table with ps and workers set to what runs
                   now (0 for a job with no pod). A job is matched by name: the pods' label
                   optimus.dev/job equals the jobs table's job column. Running jobs missing
                   from the table are named on standard error.

The jobs' loss and speed tables are the user's own; they are matched by the same job name.`,
		Example: `  optimus snapshot kubernetes --jobs jobs.parquet -o snap
  optimus snapshot kubernetes --namespace training -o snap`,
		NewConfig: func() executor.SourceConfig { return &SnapshotConfig{Rate: kubeclient.DefaultRateFlags()} },
		FileFlags: []string{"kubeconfig"},
	})
}

// SnapshotConfig is the kubernetes snapshot source's configuration.
type SnapshotConfig struct {
	Kubeconfig, Context, Namespace string
	PodTemplates                   string // whose default.yaml's tolerations decide which tainted nodes are kept
	Rate                           kubeclient.RateFlags
}

// AddFlags defines --kubeconfig, --context, --namespace (-n),
// --pod-templates, --qps and --burst.
func (c *SnapshotConfig) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "kubeconfig `FILE` (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	fs.StringVar(&c.Context, "context", "", "kubeconfig `CONTEXT` (default: its current context)")
	fs.StringVarP(&c.Namespace, "namespace", "n", "", "`NAMESPACE` of optimus' pods (default: the context's namespace, else default)")
	AddTemplatesFlag(fs, &c.PodTemplates)
	c.Rate.AddFlags(fs)
}

// Read lists the nodes and the optimus-managed pods of the namespace, and
// checks them (snapshotTasks).
func (c *SnapshotConfig) Read(ctx context.Context) (*executor.Snapshot, error) {
	if err := CheckNamespace(c.Namespace); err != nil {
		return nil, err
	}
	if err := c.Rate.Check(); err != nil {
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
