package kubeclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// A held Lease is renewed: 2 s after its duration another holder is still
// refused, told when it expires; taken over by force, the holder learns it
// has lost it (Lost, Err) and its Release leaves the new holder's Lease
// alone. The duration is 5 s, not less: a holder gives its Lease up after
// 2/3 of it without a renewal, and on CI's loaded machine (five suites on
// two cores) the API server has gone over a second without answering.
func TestHeldLeaseIsRenewedAndLossIsSeen(t *testing.T) {
	t.Parallel() // it waits 7 s on purpose: beside the others, not before them
	srv := ktest.Shared(t)
	ns := ktest.Namespace(t, srv.Admin())
	ctx := context.Background()
	c := connect(t, srv, ktest.AdminToken, ns)
	const dur = 5 * time.Second
	o := kubeclient.LeaseOptions{Name: "renewed", Identity: "a", Duration: dur, Wait: -1}
	h, err := c.HoldLease(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(dur + 2*time.Second)
	b := o
	b.Identity = "b"
	_, err = c.AcquireLease(ctx, b)
	var held *kubeclient.HeldError
	if !errors.As(err, &held) || held.Holder != "a" || time.Until(held.Expires) <= 0 || !strings.Contains(err.Error(), "expires at") {
		t.Fatalf("after the duration and 2 s: %v (the holder: %v)", err, h.Err())
	}
	if h.Err() != nil {
		t.Fatalf("lost while renewing: %v", h.Err())
	}

	leases := srv.Admin().CoordinationV1().Leases(ns)
	l, err := leases.Get(ctx, "renewed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	intruder, now := "intruder", metav1.NewMicroTime(time.Now())
	l.Spec.HolderIdentity, l.Spec.RenewTime = &intruder, &now
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.Lost():
	case <-time.After(2 * dur):
		t.Fatal("the loss was not seen")
	}
	var lost *kubeclient.LostError
	if !errors.As(h.Err(), &lost) || !strings.Contains(h.Err().Error(), `it is now held by "intruder"`) {
		t.Errorf("Err: %v", h.Err())
	}
	h.Release()
	if l, err = leases.Get(ctx, "renewed", metav1.GetOptions{}); err != nil || *l.Spec.HolderIdentity != "intruder" {
		t.Errorf("after Release: %v %v", l.Spec.HolderIdentity, err)
	}
}
