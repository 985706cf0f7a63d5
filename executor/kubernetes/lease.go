package kubernetes

import (
	"context"
	"fmt"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LeaseName is the coordination.k8s.io Lease an apply holds on its
// namespace while it writes: one apply at a time per namespace.
const LeaseName = "optimus-apply"

// leasePoll is how often a waiting apply looks at the Lease again.
const leasePoll = 500 * time.Millisecond

// HeldError says another apply holds the namespace's Lease.
type HeldError struct {
	Namespace, Holder string
	Since             time.Time
	Waited            time.Duration
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("kubernetes: another optimus apply holds Lease %s/%s: holder %q since %s; waited %s (--lease-wait); nothing was changed",
		e.Namespace, LeaseName, e.Holder, e.Since.UTC().Format(time.RFC3339), e.Waited.Round(time.Millisecond))
}

// leaseDuration is how long a held Lease counts as held without renewal: an
// apply waits at most Timeout for old pods to go and Timeout for new ones
// to run, and a crashed apply's Lease expires after that.
func (e *Executor) leaseDuration() int32 {
	t := e.opts.Timeout
	if t < 0 {
		t = 0
	}
	return int32((2*t + time.Minute) / time.Second)
}

// Acquire takes the namespace's Lease, waiting up to LeaseWait while another
// holder's has not expired. release gives it back (clears the holder).
func (e *Executor) Acquire(ctx context.Context) (release func(), err error) {
	leases := e.client.leases(e.namespace)
	start := time.Now()
	for {
		now := metav1.NewMicroTime(time.Now())
		dur := e.leaseDuration()
		l, err := leases.Get(ctx, LeaseName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l = &coordv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: LeaseName, Namespace: e.namespace,
					Labels: map[string]string{LabelManagedBy: ManagedByValue}},
				Spec: coordv1.LeaseSpec{HolderIdentity: &e.identity, LeaseDurationSeconds: &dur, AcquireTime: &now, RenewTime: &now},
			}
			created, err := leases.Create(ctx, l, metav1.CreateOptions{})
			if err == nil {
				return e.releaser(created), nil
			}
			if !apierrors.IsAlreadyExists(err) {
				return nil, e.apiError(err, "create", "leases")
			}
			continue // someone created it first: look again
		case err != nil:
			return nil, e.apiError(err, "get", "leases")
		}
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		if holder == "" || expired(l, now.Time) {
			l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.AcquireTime, l.Spec.RenewTime = &e.identity, &dur, &now, &now
			updated, err := leases.Update(ctx, l, metav1.UpdateOptions{})
			if err == nil {
				return e.releaser(updated), nil
			}
			if !apierrors.IsConflict(err) {
				return nil, e.apiError(err, "update", "leases")
			}
			continue // another apply took it between our get and update
		}
		waited := time.Since(start)
		if e.opts.LeaseWait < 0 || waited >= e.opts.LeaseWait {
			since := time.Time{}
			if l.Spec.AcquireTime != nil {
				since = l.Spec.AcquireTime.Time
			}
			return nil, &HeldError{Namespace: e.namespace, Holder: holder, Since: since, Waited: waited}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(leasePoll):
		}
	}
}

func expired(l *coordv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return now.After(l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second))
}

// releaser clears the holder of the Lease if it is still ours. It runs on
// its own short context so a cancelled apply still gives the Lease back.
func (e *Executor) releaser(l *coordv1.Lease) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		leases := e.client.leases(e.namespace)
		cur, err := leases.Get(ctx, LeaseName, metav1.GetOptions{})
		if err != nil || cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != e.identity {
			return
		}
		empty := ""
		cur.Spec.HolderIdentity = &empty
		_, _ = leases.Update(ctx, cur, metav1.UpdateOptions{}) // an unreleased Lease expires on its own
	}
}
