package kubeopts

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
)

// PyTorchJob is the pytorchjob executor's and snapshot source's name.
const PyTorchJob = "pytorchjob"

func init() {
	executor.Register(&executor.Kind{
		Name:  "kubernetes",
		Short: "pods on a Kubernetes cluster",
		Long: `pods bound to their planned nodes and a headless Service per job, in
--namespace of the cluster --kubeconfig (or KUBECONFIG, or in-cluster) names`,
		Order:        3,
		ReadsCluster: true,
		NewConfig: func() executor.Config {
			return &KubernetesConfig{defaultCluster()}
		},
		FileFlags: []string{"kubeconfig"},
	})
	executor.Register(&executor.Kind{
		Name:  PyTorchJob,
		Short: "Kubeflow PyTorchJobs on a Kubernetes cluster",
		Long: `one Kubeflow training-operator PyTorchJob per all-reduce job (Master and
Worker replicas, node affinity to the planned nodes), resized in place, in
--namespace of the cluster --kubeconfig names; PS jobs are refused`,
		Order:        4,
		ReadsCluster: true,
		NewConfig: func() executor.Config {
			return &PyTorchJobConfig{defaultCluster()}
		},
		FileFlags: []string{"kubeconfig"},
	})
}

// ClusterConfig is what both Kubernetes-family executors (kubernetes,
// pytorchjob) take from optimus apply's flags: the cluster, the namespace,
// the waits, the pod templates and the request rate.
type ClusterConfig struct {
	Kubeconfig, Context, Namespace    string
	Timeout, LeaseWait, LeaseDuration time.Duration
	// PodTemplates is the directory of the jobs' pod templates
	// (kubernetes.LoadTemplates); "" for none.
	PodTemplates string
	// Rate is --qps and --burst.
	Rate RateFlags
}

// defaultCluster is ClusterConfig with apply's defaults.
func defaultCluster() ClusterConfig {
	return ClusterConfig{Timeout: DefaultTimeout, LeaseWait: DefaultLeaseWait, LeaseDuration: DefaultLeaseDuration, Rate: DefaultRateFlags()}
}

// addFlags defines --kubeconfig, --context, --namespace, --timeout,
// --lease-wait, --lease-duration, --pod-templates, --qps and --burst; the
// three help lines given are the ones the executors word differently.
func (c *ClusterConfig) addFlags(fs *pflag.FlagSet, namespaceHelp, timeoutHelp, leaseDurationHelp string) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "the kubeconfig `FILE` (default: KUBECONFIG, ~/.kube/config, then in-cluster)")
	fs.StringVar(&c.Context, "context", c.Context, "the kubeconfig `CONTEXT` (default: its current context)")
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, namespaceHelp)
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, timeoutHelp)
	fs.DurationVar(&c.LeaseWait, "lease-wait", c.LeaseWait, "how long (`DURATION`) to wait for another apply's lease on the namespace (negative: fail at once)")
	fs.DurationVar(&c.LeaseDuration, "lease-duration", c.LeaseDuration, leaseDurationHelp)
	AddTemplatesFlag(fs, &c.PodTemplates)
	c.Rate.AddFlags(fs)
}

// Check refuses a namespace Kubernetes cannot have, and a --qps or --burst
// that cannot be.
func (c *ClusterConfig) Check() error {
	if err := CheckNamespace(c.Namespace); err != nil {
		return err
	}
	return c.Rate.Check()
}

// KubernetesConfig is the kubernetes executor's configuration from optimus
// apply's flags: the fields of kubernetes.Options a user sets.
type KubernetesConfig struct{ ClusterConfig }

// AddFlags defines the cluster's flags (ClusterConfig.addFlags).
func (c *KubernetesConfig) AddFlags(fs *pflag.FlagSet) {
	c.addFlags(fs, "the `NAMESPACE` of the pods and Services (default: the context's, else default)",
		"how long (`DURATION`) to wait for replaced pods to go, new pods to run, and each API request (negative: do not wait for pods)",
		"how long (`DURATION`) the namespace's Lease lasts unrenewed: apply renews it every third of that, a killed apply's lapses after it")
}

// New reads the pod templates and connects to the cluster (no API call
// yet).
func (c *KubernetesConfig) New(ctx context.Context, env executor.Env) (executor.Executor, error) {
	if NewKubernetes == nil {
		return nil, NotLinked("the kubernetes executor")
	}
	return NewKubernetes(ctx, c, env)
}

// Unlinked names the executor when this program does not link it.
func (c *KubernetesConfig) Unlinked() string {
	return unlinked(NewKubernetes == nil, "the kubernetes executor")
}

// PyTorchJobConfig is the pytorchjob executor's configuration from optimus
// apply's flags: the kubernetes executor's, which it shares.
type PyTorchJobConfig struct{ ClusterConfig }

// AddFlags defines the cluster's flags (ClusterConfig.addFlags).
func (c *PyTorchJobConfig) AddFlags(fs *pflag.FlagSet) {
	c.addFlags(fs, "the `NAMESPACE` of the PyTorchJobs (default: the context's, else default)",
		"how long (`DURATION`) each API request may take",
		"how long (`DURATION`) the namespace's Lease lasts unrenewed")
}

// New reads the pod templates and connects to the cluster (no API call
// yet).
func (c *PyTorchJobConfig) New(ctx context.Context, env executor.Env) (executor.Executor, error) {
	if NewPyTorchJob == nil {
		return nil, NotLinked("the pytorchjob executor")
	}
	return NewPyTorchJob(ctx, c, env)
}

// Unlinked names the executor when this program does not link it.
func (c *PyTorchJobConfig) Unlinked() string {
	return unlinked(NewPyTorchJob == nil, "the pytorchjob executor")
}

func unlinked(missing bool, what string) string {
	if missing {
		return what
	}
	return ""
}
