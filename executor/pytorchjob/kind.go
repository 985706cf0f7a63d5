package pytorchjob

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

func init() {
	executor.Register(&executor.Kind{
		Name:  Name,
		Short: "Kubeflow PyTorchJobs on a Kubernetes cluster",
		Long: `one Kubeflow training-operator PyTorchJob per all-reduce job (Master and
Worker replicas, node affinity to the planned nodes), resized in place, in
--namespace of the cluster --kubeconfig names; PS jobs are refused`,
		Order:        4,
		ReadsCluster: true,
		NewConfig: func() executor.Config {
			return &Config{Timeout: k8s.DefaultTimeout, LeaseWait: k8s.DefaultLeaseWait, LeaseDuration: k8s.DefaultLeaseDuration, Rate: kubeclient.DefaultRateFlags()}
		},
		FileFlags: []string{"kubeconfig"},
	})
}

// Config is the pytorchjob executor's configuration from optimus apply's
// flags: the kubernetes executor's, which it shares.
type Config struct {
	Kubeconfig, Context, Namespace    string
	Timeout, LeaseWait, LeaseDuration time.Duration
	PodTemplates                      string
	// Rate is --qps and --burst, as for the kubernetes executor.
	Rate kubeclient.RateFlags
}

// AddFlags defines --kubeconfig, --context, --namespace, --timeout,
// --lease-wait, --lease-duration, --qps, --burst and --pod-templates.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "the kubeconfig `FILE` (default: KUBECONFIG, ~/.kube/config, then in-cluster)")
	fs.StringVar(&c.Context, "context", c.Context, "the kubeconfig `CONTEXT` (default: its current context)")
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "the `NAMESPACE` of the PyTorchJobs (default: the context's, else default)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "how long (`DURATION`) each API request may take")
	fs.DurationVar(&c.LeaseWait, "lease-wait", c.LeaseWait, "how long (`DURATION`) to wait for another apply's lease on the namespace (negative: fail at once)")
	fs.DurationVar(&c.LeaseDuration, "lease-duration", c.LeaseDuration, "how long (`DURATION`) the namespace's Lease lasts unrenewed")
	c.Rate.AddFlags(fs)
	k8s.AddTemplatesFlag(fs, &c.PodTemplates)
}

// Check refuses a namespace Kubernetes cannot have, and a --qps or --burst
// that cannot be.
func (c *Config) Check() error {
	if err := k8s.CheckNamespace(c.Namespace); err != nil {
		return err
	}
	return c.Rate.Check()
}

// New reads the pod templates and connects to the cluster (no API call
// yet).
func (c *Config) New(ctx context.Context, _ executor.Env) (executor.Executor, error) {
	var ts *k8s.Templates
	if c.PodTemplates != "" {
		var err error
		if ts, err = k8s.LoadTemplates(c.PodTemplates); err != nil {
			return nil, err
		}
	}
	return New(ctx, k8s.Options{Kubeconfig: c.Kubeconfig, Context: c.Context, Namespace: c.Namespace, Timeout: c.Timeout,
		LeaseWait: c.LeaseWait, LeaseDuration: c.LeaseDuration, Templates: ts, QPS: c.Rate.QPS, Burst: c.Rate.Burst})
}
