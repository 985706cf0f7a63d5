package kubeclient

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/util/flowcontrol"
)

// meteredLimiter is the client's rate limiter, counting how long requests
// waited in it: the client-side throttle, which depends on the QPS and
// burst only, not on how busy the API server or the machine is.
type meteredLimiter struct {
	flowcontrol.RateLimiter
	waited  atomic.Int64 // nanoseconds, summed over requests
	delayed atomic.Int64 // requests that waited at all (over a millisecond)
}

func (m *meteredLimiter) Wait(ctx context.Context) error {
	start := time.Now()
	err := m.RateLimiter.Wait(ctx)
	m.note(time.Since(start))
	return err
}

func (m *meteredLimiter) Accept() {
	start := time.Now()
	m.RateLimiter.Accept()
	m.note(time.Since(start))
}

func (m *meteredLimiter) note(d time.Duration) {
	if d > time.Millisecond {
		m.waited.Add(int64(d))
		m.delayed.Add(1)
	}
}

// Throttle is how long the client's requests waited for the client-side
// rate limit so far, summed over requests (requests sent at once each
// count their own wait), and how many waited.
type Throttle struct {
	Waited   time.Duration
	Requests int64
}

// Throttled is the client-side throttle so far; zero without a limit.
func (c *Client) Throttled() Throttle {
	if c.limiter == nil {
		return Throttle{}
	}
	return Throttle{Waited: time.Duration(c.limiter.waited.Load()), Requests: c.limiter.delayed.Load()}
}

// RateFlags are the --qps and --burst flags every Kubernetes-family
// executor and snapshot source shares.
type RateFlags struct {
	QPS   float32
	Burst int
}

// DefaultRateFlags are DefaultQPS and DefaultBurst.
func DefaultRateFlags() RateFlags { return RateFlags{QPS: DefaultQPS, Burst: DefaultBurst} }

// AddFlags defines --qps and --burst on fs.
func (r *RateFlags) AddFlags(fs *pflag.FlagSet) {
	fs.Float32Var(&r.QPS, "qps", r.QPS, "client-side limit of API requests a second (`N`; 0: the default; negative: none, the API server's fairness still applies)")
	fs.IntVar(&r.Burst, "burst", r.Burst, "API requests (`N`) sent at once before --qps paces them (0: twice --qps)")
}

// Check refuses a negative burst.
func (r RateFlags) Check() error {
	if r.Burst < 0 {
		return &ConfigError{Err: errFlag("--burst must be 0 (twice --qps) or more")}
	}
	return nil
}

type errFlag string

func (e errFlag) Error() string { return string(e) }
