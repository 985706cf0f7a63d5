package kubeclient

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/flowcontrol"

	"github.com/optimus-sched/optimus/executor/kubeopts"
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
// executor and snapshot source shares (package kubeopts: the light binary
// defines them without client-go).
type RateFlags = kubeopts.RateFlags

// DefaultRateFlags are DefaultQPS and DefaultBurst.
func DefaultRateFlags() RateFlags { return kubeopts.DefaultRateFlags() }
