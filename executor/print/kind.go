package print

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeopts"
)

func init() {
	executor.Register(&executor.Kind{
		Name:  "print",
		Short: "changes nothing",
		Long: `changes nothing: every action is planned; with --manifests the Kubernetes
objects the kubernetes executor would create go to standard output as YAML
(for kubectl apply -f -), and the actions table only to -o`,
		Order:          1,
		ChangesNothing: true,
		NewConfig:      func() executor.Config { return &Config{} },
	})
}

// Config is the print executor's configuration from optimus apply's flags.
type Config struct {
	// Manifests writes the objects the kubernetes executor would create
	// (kubernetes.WriteManifests, through kubeopts.Manifests) to standard
	// output, in Namespace.
	Manifests    bool
	Namespace    string
	PodTemplates string // the directory of the jobs' pod templates
}

// AddFlags defines --manifests and --namespace (with --manifests only).
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&c.Manifests, "manifests", false, "write the Kubernetes objects the kubernetes executor would create to standard output as YAML")
	fs.StringVar(&c.Namespace, "namespace", "", "the `NAMESPACE` of the pods and Services in the manifests (default: default)")
	_ = fs.SetAnnotation("namespace", executor.Needs, []string{"manifests"})
	kubeopts.AddTemplatesFlag(fs, &c.PodTemplates)
	_ = fs.SetAnnotation("pod-templates", executor.Needs, []string{"manifests"})
}

// Check refuses a namespace Kubernetes cannot have.
func (c *Config) Check() error { return kubeopts.CheckNamespace(c.Namespace) }

// Unlinked names --manifests when this program does not link what writes
// them (executor/kubernetes: the light binary runs optimus-kubernetes).
func (c *Config) Unlinked() string {
	if c.Manifests && kubeopts.Manifests == nil {
		return "print --manifests"
	}
	return ""
}

// WritesStdout: the manifests go to standard output.
func (c *Config) WritesStdout() bool { return c.Manifests }

// New builds the print executor.
func (c *Config) New(_ context.Context, env executor.Env) (executor.Executor, error) {
	o := Options{Current: env.Current, Capacity: env.Capacity}
	if c.Manifests {
		if kubeopts.Manifests == nil {
			return nil, kubeopts.NotLinked("print --manifests")
		}
		m, err := kubeopts.Manifests(c.Namespace, c.PodTemplates)
		if err != nil {
			return nil, err
		}
		o.Manifests, o.Manifest = env.Stdout, m
	}
	return New(o)
}
