package kubeclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/optimus-sched/optimus/io/table"
)

// MaxResponse is the default cap on one API response: a sixteenth of the
// memory budget (table.MemoryBudget: --max-memory, GOMEMLIMIT or 4 GB),
// 256 MB by default. client-go reads a response whole and decodes it into
// objects several times its size, so a list beyond the cap (a node list of
// hundreds of megabytes from a broken or hostile server) would exhaust the
// memory before optimus could say anything.
func MaxResponse() int64 { return table.MemoryBudget() / 16 }

// ResponseTooLargeError is an API response longer than the cap.
type ResponseTooLargeError struct {
	Method, URL string
	Limit       int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("kubernetes: %s %s: the API server's response passed %s (a sixteenth of the memory budget); raise --max-memory",
		e.Method, e.URL, table.FormatBytes(e.Limit))
}

// capResponses makes every response of cfg's clients fail once it passes
// limit bytes: at once when its Content-Length says so, else as soon as
// reading it passes the limit.
func capResponses(cfg *rest.Config, limit int64) {
	wrap := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if wrap != nil {
			rt = wrap(rt)
		}
		return &cappedTransport{next: rt, limit: limit}
	}
}

type cappedTransport struct {
	next  http.RoundTripper
	limit int64
}

// WrappedRoundTripper lets client-go reach the transport below (to cancel
// a request that timed out).
func (t *cappedTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

func (t *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	u := *req.URL
	u.RawQuery, u.User = "", nil
	tooLarge := &ResponseTooLargeError{Method: req.Method, URL: u.String(), Limit: t.limit}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, tooLarge
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.limit, err: tooLarge}
	return resp, nil
}

type cappedBody struct {
	io.ReadCloser
	left int64
	err  error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, b.err
	}
	return n, err
}

// plainError turns the errors of a request that hit a limit into one
// sentence: the cap's own error, or, for a request that ran out of time,
// what did not answer; nil for any other error.
func (c *Client) plainError(err error) error {
	var tooLarge *ResponseTooLargeError
	if errors.As(err, &tooLarge) {
		return tooLarge
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		// The bound is the request's (Options.RequestTimeout) or the
		// caller's context, whichever came first: both are --timeout.
		return fmt.Errorf("kubernetes: the API server %s did not answer in time (--timeout; raise it if the server is only slow): %w", c.Host, err)
	}
	return nil
}

// quiet keeps client-go from logging to standard error on its own (it logs
// a response cut by the cap before returning the error optimus reports):
// every failure reaches the caller as an error.
func quiet(ctx context.Context) context.Context { return klog.NewContext(ctx, klog.Logger{}) }
