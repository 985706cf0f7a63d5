package kubernetes

import (
	"context"
	"time"

	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// LeaseName is the coordination.k8s.io Lease an apply holds on its
// namespace while it writes: one apply at a time per namespace.
const LeaseName = "optimus-apply"

// leaseDuration is how long a held Lease counts as held without renewal: an
// apply waits at most Timeout for old pods to go and Timeout for new ones
// to run, and a crashed apply's Lease expires after that.
func (e *Executor) leaseDuration() time.Duration {
	t := e.opts.Timeout
	if t < 0 {
		t = 0
	}
	return (2*t + time.Minute) / time.Second * time.Second
}

// Acquire takes the namespace's Lease, waiting up to LeaseWait while another
// holder's has not expired (a kubeclient.HeldError). release gives it back.
func (e *Executor) Acquire(ctx context.Context) (release func(), err error) {
	return e.client.AcquireLease(ctx, kubeclient.LeaseOptions{
		Name: LeaseName, Identity: e.identity, Duration: e.leaseDuration(), Wait: e.opts.LeaseWait,
		Labels: map[string]string{LabelManagedBy: ManagedByValue},
	})
}
