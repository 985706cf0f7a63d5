package kubernetes

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeopts"
)

// The kind, its flags and checks are package kubeopts' (the light binary
// links them without client-go); this package carries them out.
func init() {
	kubeopts.NewKubernetes = newFromConfig
	kubeopts.ReadKubernetes = readSnapshot
	kubeopts.Manifests = manifests
}

// Config is the kubernetes executor's configuration from optimus apply's
// flags: the fields of Options a user sets.
type Config = kubeopts.KubernetesConfig

// AddTemplatesFlag defines --pod-templates.
func AddTemplatesFlag(fs *pflag.FlagSet, dir *string) { kubeopts.AddTemplatesFlag(fs, dir) }

// newFromConfig reads the pod templates and connects to the cluster (no
// API call yet): Config.New.
func newFromConfig(ctx context.Context, c *Config, _ executor.Env) (executor.Executor, error) {
	var ts *Templates
	if c.PodTemplates != "" {
		var err error
		if ts, err = LoadTemplates(c.PodTemplates); err != nil {
			return nil, err
		}
	}
	return New(ctx, Options{Kubeconfig: c.Kubeconfig, Context: c.Context, Namespace: c.Namespace, Timeout: c.Timeout, LeaseWait: c.LeaseWait, LeaseDuration: c.LeaseDuration, Templates: ts, QPS: c.Rate.QPS, Burst: c.Rate.Burst})
}

// manifests is print --manifests' writer: WriteManifests in namespace with
// the templates of dir ("" none).
func manifests(namespace, dir string) (func(io.Writer, []executor.Change) error, error) {
	mo := ManifestOptions{Namespace: namespace}
	if dir != "" {
		ts, err := LoadTemplates(dir)
		if err != nil {
			return nil, err
		}
		mo.Templates = ts
	}
	return func(w io.Writer, changes []executor.Change) error { return WriteManifests(w, changes, mo) }, nil
}
