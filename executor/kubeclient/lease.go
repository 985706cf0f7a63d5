package kubeclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	// Renew is how often the holder renews the Lease; 0 is Duration/3. A
	// holder that has not renewed it for 2/3 of Duration (failed renewals
	// retried meanwhile) counts it as lost, before another holder may take
	// it.
	Renew time.Duration
}

// leasePoll is how often a waiting holder looks at the Lease again.
const leasePoll = 500 * time.Millisecond

// HeldError says another apply holds the namespace's Lease.
type HeldError struct {
	Namespace, Name, Holder string
	Since                   time.Time
	// Expires is when the Lease expires unless its holder renews it: a
	// holder that crashed holds it until then.
	Expires time.Time
	Waited  time.Duration
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("kubernetes: another optimus apply holds Lease %s/%s: holder %q since %s; it expires at %s unless renewed (a live apply renews it; a killed one's lapses then); waited %s (--lease-wait); nothing was changed",
		e.Namespace, e.Name, e.Holder, e.Since.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339), e.Waited.Round(time.Millisecond))
}

// LostError says a held Lease was lost while its holder worked: taken by
// another holder, or not renewed in time.
type LostError struct {
	Namespace, Name, Why string
}

func (e *LostError) Error() string {
	return fmt.Sprintf("kubernetes: lost Lease %s/%s: %s", e.Namespace, e.Name, e.Why)
}

// Hold is a held Lease, renewed in the background until Release.
type Hold struct {
	c       *Client
	o       LeaseOptions
	lost    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	err     error
	renewed time.Time
}

// Lost is closed when the Lease is lost (Err says why): the holder must
// stop writing.
func (h *Hold) Lost() <-chan struct{} { return h.lost }

// Err is nil while the Lease is held, else a *LostError.
func (h *Hold) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// Release stops the renewals and gives the Lease back (clears the holder)
// if it is still ours; it runs on its own short context, so a cancelled
// holder still gives the Lease back.
func (h *Hold) Release() {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
		h.c.releaser(h.o)()
	})
}

// Abandon stops the renewals and leaves the Lease to lapse, as a killed
// holder would.
func (h *Hold) Abandon() {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
	})
}

func (h *Hold) lose(why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil {
		h.err = &LostError{Namespace: h.c.Namespace, Name: h.o.Name, Why: why}
		close(h.lost)
	}
}

// renew renews the Lease every o.Renew, retrying a failed renewal every
// leasePoll, until Release or until it is lost: another holder's, or not
// renewed for 2/3 of its duration. Both clocks run from the renew time
// written into the Lease, the instant other holders count from, so slow
// requests do not push the renewals apart.
func (h *Hold) renew() {
	defer close(h.done)
	every := h.o.Renew
	if every <= 0 {
		every = h.o.Duration / 3
	}
	deadline := h.o.Duration * 2 / 3
	wait := max(every-time.Since(h.renewed), 0)
	for {
		select {
		case <-h.stop:
			return
		case <-time.After(wait):
		}
		// A renewal may take until the Lease would count as lost.
		ctx, cancel := context.WithTimeout(context.Background(), max(deadline-time.Since(h.renewed), leasePoll))
		written, err := h.renewOnce(ctx)
		cancel()
		var lost *LostError
		switch {
		case errors.As(err, &lost):
			h.lose(lost.Why)
			return
		case err == nil:
			h.renewed = written
			wait = max(every-time.Since(written), 0)
		case time.Since(h.renewed) >= deadline:
			h.lose(fmt.Sprintf("not renewed for %s (last error: %v)", time.Since(h.renewed).Round(time.Millisecond), err))
			return
		default:
			wait = leasePoll
		}
	}
}

// renewOnce writes a new renew time into the Lease if it is still ours,
// and returns that time.
func (h *Hold) renewOnce(ctx context.Context) (time.Time, error) {
	leases := h.c.Leases(h.c.Namespace)
	l, err := leases.Get(ctx, h.o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return time.Time{}, &LostError{Why: "it was deleted"}
	}
	if err != nil {
		return time.Time{}, err
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != h.o.Identity {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		return time.Time{}, &LostError{Why: fmt.Sprintf("it is now held by %q", holder)}
	}
	now := metav1.NewMicroTime(time.Now())
	l.Spec.RenewTime = &now
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{}) // a conflict: look again at the next try
	return now.Time, err
}

// AcquireLease is HoldLease for a holder that does not watch for the
// Lease's loss: release is Hold.Release.
func (c *Client) AcquireLease(ctx context.Context, o LeaseOptions) (release func(), err error) {
	h, err := c.HoldLease(ctx, o)
	if err != nil {
		return nil, err
	}
	return h.Release, nil
}

// HoldLease takes the Lease, creating it if missing, waiting up to o.Wait
// while another holder's has not expired (then a HeldError), and renews it
// in the background until Hold.Release.
func (c *Client) HoldLease(ctx context.Context, o LeaseOptions) (*Hold, error) {
	if o.Duration < time.Second {
		o.Duration = time.Second
	}
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
				return c.hold(o, now.Time), nil
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
				return c.hold(o, now.Time), nil
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
			return nil, &HeldError{Namespace: c.Namespace, Name: o.Name, Holder: holder, Since: since, Expires: expiry(l), Waited: waited}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(leasePoll):
		}
	}
}

// hold starts renewing a Lease taken with the given renew time.
func (c *Client) hold(o LeaseOptions, renewed time.Time) *Hold {
	h := &Hold{c: c, o: o, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), renewed: renewed}
	go h.renew()
	return h
}

func expired(l *coordv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return now.After(expiry(l))
}

// expiry is when the Lease lapses unless renewed: its renew time plus its
// duration.
func expiry(l *coordv1.Lease) time.Time {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
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

// HaltReason says why an apply stopped writing, for the actions table: its
// Lease lost to another apply, an interrupt (SIGINT or SIGTERM), a deadline,
// or the error itself. Every Kubernetes-family executor words it the same.
func HaltReason(err error) string {
	var lost *LostError
	switch {
	case errors.As(err, &lost):
		return "stopped: " + err.Error() + "; another apply may be writing"
	case errors.Is(err, context.Canceled):
		return "interrupted (SIGINT or SIGTERM)"
	case errors.Is(err, context.DeadlineExceeded):
		return "interrupted: deadline exceeded"
	}
	return "stopped: " + err.Error()
}
