package kubeopts

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
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
		NewConfig: func() executor.SourceConfig { return &SnapshotConfig{Rate: DefaultRateFlags()} },
		FileFlags: []string{"kubeconfig"},
	})
	executor.RegisterSource(&executor.Source{
		Name:  PyTorchJob,
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
		NewConfig: func() executor.SourceConfig { return &PyTorchJobSnapshotConfig{} },
		FileFlags: []string{"kubeconfig"},
	})
}

// SnapshotConfig is the kubernetes snapshot source's configuration.
type SnapshotConfig struct {
	Kubeconfig, Context, Namespace string
	PodTemplates                   string // whose default.yaml's tolerations decide which tainted nodes are kept
	Rate                           RateFlags
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

// Check refuses a namespace Kubernetes cannot have, and a --qps or --burst
// that cannot be.
func (c *SnapshotConfig) Check() error {
	if err := CheckNamespace(c.Namespace); err != nil {
		return err
	}
	return c.Rate.Check()
}

// Read lists the nodes and the optimus-managed pods of the namespace, and
// checks them (executor/kubernetes).
func (c *SnapshotConfig) Read(ctx context.Context) (*executor.Snapshot, error) {
	if ReadKubernetes == nil {
		return nil, NotLinked("the kubernetes snapshot source")
	}
	return ReadKubernetes(ctx, c)
}

// Unlinked names the source when this program does not link it.
func (c *SnapshotConfig) Unlinked() string {
	return unlinked(ReadKubernetes == nil, "the kubernetes snapshot source")
}

// PyTorchJobSnapshotConfig is the pytorchjob snapshot source's
// configuration: the kubernetes source's.
type PyTorchJobSnapshotConfig struct{ SnapshotConfig }

// Check refuses a namespace Kubernetes cannot have.
func (c *PyTorchJobSnapshotConfig) Check() error { return CheckNamespace(c.Namespace) }

// Read lists the nodes (as the kubernetes source does) and reads the
// PyTorchJobs' tasks back (executor/pytorchjob).
func (c *PyTorchJobSnapshotConfig) Read(ctx context.Context) (*executor.Snapshot, error) {
	if ReadPyTorchJob == nil {
		return nil, NotLinked("the pytorchjob snapshot source")
	}
	return ReadPyTorchJob(ctx, c)
}

// Unlinked names the source when this program does not link it.
func (c *PyTorchJobSnapshotConfig) Unlinked() string {
	return unlinked(ReadPyTorchJob == nil, "the pytorchjob snapshot source")
}
