package kubernetes

import (
	"context"

	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// LeaseName is the coordination.k8s.io Lease an apply holds on its
// namespace while it writes: one apply at a time per namespace.
const LeaseName = "optimus-apply"

// Acquire takes the namespace's Lease, waiting up to LeaseWait while another
// holder's has not expired (a kubeclient.HeldError), and renews it every
// third of LeaseDuration until release gives it back.
func (e *Executor) Acquire(ctx context.Context) (release func(), err error) {
	h, err := e.hold(ctx)
	if err != nil {
		return nil, err
	}
	return h.Release, nil
}

func (e *Executor) hold(ctx context.Context) (*kubeclient.Hold, error) {
	return e.client.HoldLease(ctx, kubeclient.LeaseOptions{
		Name: LeaseName, Identity: e.identity, Duration: e.opts.LeaseDuration, Wait: e.opts.LeaseWait,
		Labels: map[string]string{LabelManagedBy: ManagedByValue},
	})
}
