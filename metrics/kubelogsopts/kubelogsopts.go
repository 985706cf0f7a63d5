// Package kubelogsopts is the kubernetes metrics source's registry entry
// without client-go: its name, help and options, checked as the full
// source checks them. Importing it registers the source, so the light
// optimus binary (cmd/optimus) lists and validates it as the full one does;
// package metrics/kubelogs, which fetches the pods' logs, sets
// NewCollector from init. In a program without it the source's reader is a
// stub whose Unlinked says so, and metrics runs optimus-kubernetes instead
// (package cli/kubebin).
package kubelogsopts

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/optimus-sched/optimus/metrics"
)

func init() {
	metrics.Register(&metrics.Source{
		Name:  "kubernetes",
		Short: "the optimus-managed pods' logs, through the Kubernetes API (pods/log)",
		Long: `Lists the pods the kubernetes executor made (label app.kubernetes.io/managed-by=optimus)
in --kubernetes-namespace, and fetches the log of each container of the chosen pods (by
default each job's worker 0) through the API server's pods/log, with the kubelet's
timestamps, from the last line it kept (sinceTime). It appends what is new to
ROOT/JOB/gen-GENERATION/CONFIG/POD.CONTAINER.podlog (CONFIG: ps2-w4, or w8 without
parameter servers, counted from the generation's pods), which the text sources then read
with the rest of ROOT: a line's kubelet time is its time when the line has none. After a
container restarted in its pod (restartCount above the last run's), its previous
instance's log (previous=true) is read first; the kubelet keeps only the last ended
instance's, so a container restarted twice between runs loses lines (a warning counts
them). These files, and a hidden .POD.CONTAINER.restarts beside each restarted
container's (the restart count seen), are the only state kept between runs.`,
		Files:    "*" + metrics.PodLogSuffix,
		Explicit: true,
		Collects: true,
		Options: []metrics.Option{
			{Name: "namespace", Doc: "`NAMESPACE` of the jobs' pods (default: the kubeconfig context's)"},
			{Name: "kubeconfig", Doc: "kubeconfig `FILE` (default: KUBECONFIG, ~/.kube/config, then in-cluster)"},
			{Name: "context", Doc: "kubeconfig `CONTEXT` (default: its current one)"},
			{Name: "roles", Doc: "`ROLES` of the pods whose logs are read (comma-separated: worker, ps, scheduler; all)", Default: "worker"},
			{Name: "index", Doc: "`INDEX` of the pods of each role whose logs are read (all: every one)", Default: "0"},
			{Name: "limit-bytes", Doc: "most bytes (`N`) fetched of one container's logs (previous and current) per run (the rest next run)", Default: strconv.Itoa(64 << 20)},
			{Name: "timeout", Doc: "`DURATION` after which it gives up on the cluster", Default: "1m"},
		},
		New: newReader,
	})
}

// Settings are the source's options, checked.
type Settings struct {
	Kubeconfig, Context, Namespace string
	// Roles are the roles whose pods are read (nil: all); Index the task
	// index read of each role (-1: all).
	Roles      map[string]bool
	Index      int
	LimitBytes int64
	Timeout    time.Duration
}

// NewCollector makes the collector of the settings (package
// metrics/kubelogs); nil in a program that does not link it.
var NewCollector func(s *Settings) metrics.Collector

// stub is the source's reader in a program without package
// metrics/kubelogs.
type stub struct{}

func (stub) Unlinked() string { return "the kubernetes metrics source" }

func (stub) Collect(context.Context, string, metrics.Warn) error {
	return fmt.Errorf("the kubernetes metrics source is not linked into this program: optimus-kubernetes runs it")
}

// newReader checks the options and returns the collector: the one package
// kubelogs makes, or in a program without it a stub whose Unlinked says so.
func newReader(opts map[string]string) (any, error) {
	c, err := parse(opts)
	if err != nil {
		return nil, err
	}
	if NewCollector == nil {
		return stub{}, nil
	}
	return NewCollector(c), nil
}

// parse reads the options (every one present, defaults filled in).
func parse(opts map[string]string) (*Settings, error) {
	c := &Settings{Kubeconfig: opts["kubeconfig"], Context: opts["context"], Namespace: opts["namespace"], Index: -1}
	if r := opts["roles"]; r != "all" {
		c.Roles = map[string]bool{}
		for _, s := range strings.Split(r, ",") {
			if s = strings.TrimSpace(s); s == "" {
				return nil, fmt.Errorf("--kubernetes-roles %q: name roles (worker, ps, scheduler) or say all", r)
			}
			c.Roles[s] = true
		}
	}
	if i := opts["index"]; i != "all" {
		n, err := strconv.Atoi(i)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--kubernetes-index %q: give a task index of at least 0, or all", i)
		}
		c.Index = n
	}
	n, err := strconv.ParseInt(opts["limit-bytes"], 10, 64)
	if err != nil || n < 2*metrics.MaxLine {
		return nil, fmt.Errorf("--kubernetes-limit-bytes %q: give a number of bytes of at least %d (two of the longest lines read)", opts["limit-bytes"], 2*metrics.MaxLine)
	}
	c.LimitBytes = n
	d, err := time.ParseDuration(opts["timeout"])
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("--kubernetes-timeout %q: give a duration above 0, such as 1m", opts["timeout"])
	}
	c.Timeout = d
	return c, nil
}
