// Package kubeopts is the Kubernetes family's registry entries without
// client-go: the kubernetes and pytorchjob executors' and snapshot sources'
// names, help, flags, defaults and checks. Importing it registers them, so
// the light optimus binary (cmd/optimus) shows, completes and validates them
// exactly as the full one does while linking none of client-go, whose 76
// packages' init dominated its start-up (issue 25). What they do lives in
// packages executor/kubernetes and executor/pytorchjob, which set this
// package's hooks from init; in a program without them the configurations
// report Unlinked, and the command runs optimus-kubernetes instead
// (package cli/kubebin).
package kubeopts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
)

// Defaults of the executors' flags (and of kubernetes.Options).
const (
	DefaultTimeout       = 60 * time.Second
	DefaultLeaseWait     = 30 * time.Second
	DefaultLeaseDuration = 30 * time.Second
)

// The client-side rate limit when the flags give none. client-go's own
// default, 5 requests a second, made an apply of 9,534 pods take 35
// minutes (benchmarks/kubernetes-load.md); the API server shares itself
// out fairly among clients (API Priority and Fairness), so a client that
// asks for more than its share is queued there, not served ahead of others.
const (
	DefaultQPS   = 100
	DefaultBurst = 200
)

// Hooks: what the client-go packages do, set from their init. nil in a
// program that does not link them.
var (
	// NewKubernetes builds the kubernetes executor (executor/kubernetes).
	NewKubernetes func(ctx context.Context, c *KubernetesConfig, env executor.Env) (executor.Executor, error)
	// NewPyTorchJob builds the pytorchjob executor (executor/pytorchjob).
	NewPyTorchJob func(ctx context.Context, c *PyTorchJobConfig, env executor.Env) (executor.Executor, error)
	// ReadKubernetes and ReadPyTorchJob read a snapshot.
	ReadKubernetes func(ctx context.Context, c *SnapshotConfig) (*executor.Snapshot, error)
	ReadPyTorchJob func(ctx context.Context, c *PyTorchJobSnapshotConfig) (*executor.Snapshot, error)
	// Manifests returns what writes the objects the kubernetes executor
	// would create in namespace, with the pod templates of dir ("" none):
	// print --manifests (executor/kubernetes).
	Manifests func(namespace, dir string) (func(w io.Writer, changes []executor.Change) error, error)
)

// NotLinked is the error of a configuration used in a program that does not
// link what carries it out (a command must run optimus-kubernetes before).
func NotLinked(what string) error {
	return &ConfigError{Err: fmt.Errorf("%s is not linked into this program: optimus-kubernetes runs it", what)}
}

// RateFlags are the --qps and --burst flags every Kubernetes-family
// executor and snapshot source shares.
type RateFlags struct {
	QPS   float32
	Burst int
}

// DefaultRateFlags are DefaultQPS and DefaultBurst.
func DefaultRateFlags() RateFlags { return RateFlags{QPS: DefaultQPS, Burst: DefaultBurst} }

// AddFlags defines --qps and --burst on fs.
func (r *RateFlags) AddFlags(fs *pflag.FlagSet) {
	fs.Float32Var(&r.QPS, "qps", r.QPS, "client-side limit of API requests a second (`N`; 0: the default; negative: none, the API server's fairness still applies)")
	fs.IntVar(&r.Burst, "burst", r.Burst, "API requests (`N`) sent at once before --qps paces them (0: twice --qps)")
}

// Check refuses a negative burst.
func (r RateFlags) Check() error {
	if r.Burst < 0 {
		return &ConfigError{Err: errors.New("--burst must be 0 (twice --qps) or more")}
	}
	return nil
}

// ConfigError is a kubeconfig (or in-cluster configuration) that cannot be
// used: missing, not YAML, naming no such context, no server. It is the
// user's input, so optimus exits 2 on it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "kubernetes: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// InvalidInput makes the error exit 2 (cmdutil.ExitCode).
func (e *ConfigError) InvalidInput() bool { return true }

// AddTemplatesFlag defines --pod-templates.
func AddTemplatesFlag(fs *pflag.FlagSet, dir *string) {
	fs.StringVar(dir, "pod-templates", *dir, "the `DIR` of pod templates: <job>.yaml, else <model>.yaml, else default.yaml (docs/kubernetes.md)")
}

// CheckNamespace refuses a namespace Kubernetes cannot have ("" is the
// context's).
func CheckNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if errs := dns1123Label(ns); len(errs) > 0 {
		return executor.Usagef("--namespace %q is not a Kubernetes namespace name: %s", ns, strings.Join(errs, "; "))
	}
	return nil
}

// dns1123Label is apimachinery's validation.IsDNS1123Label, its messages
// word for word (TestDNS1123LabelAsApimachinery), without linking
// apimachinery or compiling its regular expressions at start-up.
func dns1123Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !isLabel(v) {
		if isSubdomain(v) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
		}
	}
	return errs
}

// isLabel matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$.
func isLabel(s string) bool {
	if s == "" {
		return false
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	for i := 0; i < len(s); i++ {
		if !alnum(s[i]) && (s[i] != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// isSubdomain matches labels joined by dots.
func isSubdomain(s string) bool {
	for _, l := range strings.Split(s, ".") {
		if !isLabel(l) {
			return false
		}
	}
	return true
}
