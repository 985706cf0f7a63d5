package kubeclient

import (
	"testing"

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
