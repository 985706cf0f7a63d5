package kubernetes

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
)

func init() {
	executor.Register(&executor.Kind{
		Name:  "kubernetes",
		Short: "pods on a Kubernetes cluster",
		Long: `pods bound to their planned nodes and a headless Service per job, in
--namespace of the cluster --kubeconfig (or KUBECONFIG, or in-cluster) names`,
		Order:        3,
		ReadsCluster: true,
		NewConfig: func() executor.Config {
			return &Config{Timeout: DefaultTimeout, LeaseWait: DefaultLeaseWait, LeaseDuration: DefaultLeaseDuration, Rate: kubeclient.DefaultRateFlags()}
		},
		FileFlags: []string{"kubeconfig"},
	})
}

// Config is the kubernetes executor's configuration from optimus apply's
// flags: the fields of Options a user sets.
type Config struct {
	Kubeconfig, Context, Namespace    string
	Timeout, LeaseWait, LeaseDuration time.Duration
	// PodTemplates is the directory of the jobs' pod templates
	// (LoadTemplates); "" for none.
	PodTemplates string
	// Rate is --qps and --burst.
	Rate kubeclient.RateFlags
}

// AddFlags defines --kubeconfig, --context, --namespace, --timeout,
// --lease-wait, --lease-duration, --pod-templates, --qps and --burst.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "the kubeconfig `FILE` (default: KUBECONFIG, ~/.kube/config, then in-cluster)")
	fs.StringVar(&c.Context, "context", c.Context, "the kubeconfig `CONTEXT` (default: its current context)")
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "the `NAMESPACE` of the pods and Services (default: the context's, else default)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "how long (`DURATION`) to wait for replaced pods to go, new pods to run, and each API request (negative: do not wait for pods)")
	fs.DurationVar(&c.LeaseWait, "lease-wait", c.LeaseWait, "how long (`DURATION`) to wait for another apply's lease on the namespace (negative: fail at once)")
	fs.DurationVar(&c.LeaseDuration, "lease-duration", c.LeaseDuration, "how long (`DURATION`) the namespace's Lease lasts unrenewed: apply renews it every third of that, a killed apply's lapses after it")
	AddTemplatesFlag(fs, &c.PodTemplates)
	c.Rate.AddFlags(fs)
}

// AddTemplatesFlag defines --pod-templates.
func AddTemplatesFlag(fs *pflag.FlagSet, dir *string) {
	fs.StringVar(dir, "pod-templates", *dir, "the `DIR` of pod templates: <job>.yaml, else <model>.yaml, else default.yaml (docs/kubernetes.md)")
}

// Check refuses a namespace Kubernetes cannot have, and a --qps or --burst
// that cannot be.
func (c *Config) Check() error {
	if err := CheckNamespace(c.Namespace); err != nil {
		return err
	}
	return c.Rate.Check()
}

// New reads the pod templates and connects to the cluster (no API call
// yet).
func (c *Config) New(ctx context.Context, _ executor.Env) (executor.Executor, error) {
	var ts *Templates
	if c.PodTemplates != "" {
		var err error
		if ts, err = LoadTemplates(c.PodTemplates); err != nil {
			return nil, err
		}
	}
	return New(ctx, Options{Kubeconfig: c.Kubeconfig, Context: c.Context, Namespace: c.Namespace, Timeout: c.Timeout, LeaseWait: c.LeaseWait, LeaseDuration: c.LeaseDuration, Templates: ts, QPS: c.Rate.QPS, Burst: c.Rate.Burst})
}
