package kubeclient

import (
	"context"
	"fmt"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LeaseOptions name a coordination.k8s.io Lease that one writer at a time
// holds in the client's namespace.
type LeaseOptions struct {
	Name     string
	Identity string // this holder, as the Lease records it
	// Duration is how long the Lease counts as held without renewal: a
	// crashed holder's Lease expires after it. It is kept in whole seconds.
	Duration time.Duration
	// Wait bounds the wait while another holder's Lease has not expired;
	// negative: fail at once.
	Wait time.Duration
	// Labels go on the Lease when it is created.
	Labels map[string]string
}

// leasePoll is how often a waiting holder looks at the Lease again.
const leasePoll = 500 * time.Millisecond

// HeldError says another apply holds the namespace's Lease.
type HeldError struct {
	Namespace, Name, Holder string
	Since                   time.Time
	Waited                  time.Duration
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("kubernetes: another optimus apply holds Lease %s/%s: holder %q since %s; waited %s (--lease-wait); nothing was changed",
		e.Namespace, e.Name, e.Holder, e.Since.UTC().Format(time.RFC3339), e.Waited.Round(time.Millisecond))
}

// AcquireLease takes the Lease, creating it if missing, waiting up to
// o.Wait while another holder's has not expired (then a HeldError).
// release gives it back (clears the holder) if it is still ours; it runs on
// its own short context, so a cancelled apply still gives the Lease back.
func (c *Client) AcquireLease(ctx context.Context, o LeaseOptions) (release func(), err error) {
	leases := c.Leases(c.Namespace)
	start := time.Now()
	dur := int32(o.Duration / time.Second)
	for {
		now := metav1.NewMicroTime(time.Now())
		l, err := leases.Get(ctx, o.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l = &coordv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: c.Namespace, Labels: o.Labels},
				Spec:       coordv1.LeaseSpec{HolderIdentity: &o.Identity, LeaseDurationSeconds: &dur, AcquireTime: &now, RenewTime: &now},
			}
			if _, err := leases.Create(ctx, l, metav1.CreateOptions{}); err == nil {
				return c.releaser(o), nil
			} else if !apierrors.IsAlreadyExists(err) {
				return nil, c.APIError(err, "create", "leases")
			}
			continue // someone created it first: look again
		case err != nil:
			return nil, c.APIError(err, "get", "leases")
		}
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		if holder == "" || expired(l, now.Time) {
			l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.AcquireTime, l.Spec.RenewTime = &o.Identity, &dur, &now, &now
			if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err == nil {
				return c.releaser(o), nil
			} else if !apierrors.IsConflict(err) {
				return nil, c.APIError(err, "update", "leases")
			}
			continue // another holder took it between our get and update
		}
		waited := time.Since(start)
		if o.Wait < 0 || waited >= o.Wait {
			since := time.Time{}
			if l.Spec.AcquireTime != nil {
				since = l.Spec.AcquireTime.Time
			}
			return nil, &HeldError{Namespace: c.Namespace, Name: o.Name, Holder: holder, Since: since, Waited: waited}
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

// releaser clears the holder of the Lease if it is still ours.
func (c *Client) releaser(o LeaseOptions) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		leases := c.Leases(c.Namespace)
		cur, err := leases.Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil || cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != o.Identity {
			return
		}
		empty := ""
		cur.Spec.HolderIdentity = &empty
		_, _ = leases.Update(ctx, cur, metav1.UpdateOptions{}) // an unreleased Lease expires on its own
	}
}
