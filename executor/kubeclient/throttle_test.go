package kubeclient

import (
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

// --qps and --burst reach the client's limiter: given, they win over the
// configuration's; 0 keeps the configuration's, else the defaults;
// negative is no client-side limit.
func TestRateLimitFromOptions(t *testing.T) {
	cfg := func(qps float32) *rest.Config { return &rest.Config{Host: "https://127.0.0.1:1", QPS: qps, Burst: 7} }
	for _, tc := range []struct {
		name     string
		cfg      *rest.Config
		qps      float32
		burst    int
		wantQPS  float32 // 0: no limiter
		wantNone bool
	}{
		{"given", cfg(500), 10, 20, 10, false},
		{"given, burst twice", cfg(0), 30, 0, 30, false},
		{"the configuration's", cfg(500), 0, 0, 500, false},
		{"the default", cfg(0), 0, 0, DefaultQPS, false},
		{"none", cfg(500), -1, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Connect(Options{RESTConfig: tc.cfg, QPS: tc.qps, Burst: tc.burst})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantNone && c.limiter != nil:
				t.Fatalf("a limiter of %g QPS, want none", c.limiter.QPS())
			case tc.wantNone:
			case c.limiter == nil:
				t.Fatalf("no limiter, want %g QPS", tc.wantQPS)
			case c.limiter.QPS() != tc.wantQPS:
				t.Fatalf("limiter of %g QPS, want %g", c.limiter.QPS(), tc.wantQPS)
			}
			if th := c.Throttled(); th.Waited != 0 || th.Requests != 0 {
				t.Errorf("throttled %+v before any request", th)
			}
		})
	}
	if err := (RateFlags{QPS: 10, Burst: -1}).Check(); err == nil {
		t.Error("a negative --burst was accepted")
	}
}

// The Leases' requests have a bucket of their own, of the client's QPS:
// with the writes' bucket empty, a renewal still goes at once (it once
// waited behind them past the point where its Lease counted as lost).
func TestLeaseRequestsDoNotWaitBehindWrites(t *testing.T) {
	c, err := Connect(Options{RESTConfig: &rest.Config{Host: "https://127.0.0.1:1"}, QPS: 0.001, Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	writes := c.rest[corev1.SchemeGroupVersion].GetRateLimiter()
	leases := c.rest[coordv1.SchemeGroupVersion].GetRateLimiter()
	if writes == nil || leases == nil {
		t.Fatalf("limiters: pods %v, leases %v", writes, leases)
	}
	if !writes.TryAccept() {
		t.Fatal("a fresh bucket of burst 1 refused its first request")
	}
	if writes.TryAccept() {
		t.Fatal("the pods' bucket was not emptied by one request at burst 1")
	}
	if !leases.TryAccept() {
		t.Error("a Lease request waits for the pods' bucket")
	}
	if leases.QPS() != writes.QPS() {
		t.Errorf("the Leases' bucket has %g QPS, the rest %g", leases.QPS(), writes.QPS())
	}
	if got := c.rest[authzv1.SchemeGroupVersion].GetRateLimiter(); got != writes {
		t.Error("the access reviews do not share the writes' bucket")
	}
}
