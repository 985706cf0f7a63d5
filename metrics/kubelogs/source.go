package kubelogs

import (
	"time"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/metrics"
	"github.com/optimus-sched/optimus/metrics/kubelogsopts"
)

// The source, its help and options are package kubelogsopts' (the light
// binary links them without client-go); this package fetches the logs.
func init() { kubelogsopts.NewCollector = newCollector }

// Option is a metrics source option.
type Option = metrics.Option

func newCollector(s *kubelogsopts.Settings) metrics.Collector {
	return &Collector{Conn: kubeclient.Options{Kubeconfig: s.Kubeconfig, Context: s.Context, Namespace: s.Namespace},
		Roles: s.Roles, Index: s.Index, LimitBytes: s.LimitBytes, Timeout: s.Timeout}
}

// LockWait is how long a run waits for another collecting into the same
// root: as long as this one gives the cluster.
func (c *Collector) LockWait() (time.Duration, string) { return c.Timeout, "--kubernetes-timeout" }
