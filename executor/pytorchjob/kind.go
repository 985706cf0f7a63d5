package pytorchjob

import (
	"context"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeopts"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

// The kind and source, their flags and checks are package kubeopts' (the
// light binary links them without client-go); this package carries them
// out.
func init() {
	kubeopts.NewPyTorchJob = newFromConfig
	kubeopts.ReadPyTorchJob = readSnapshot
}

// Config is the pytorchjob executor's configuration from optimus apply's
// flags: the kubernetes executor's, which it shares.
type Config = kubeopts.PyTorchJobConfig

// newFromConfig reads the pod templates and connects to the cluster (no
// API call yet): Config.New.
func newFromConfig(ctx context.Context, c *Config, _ executor.Env) (executor.Executor, error) {
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
