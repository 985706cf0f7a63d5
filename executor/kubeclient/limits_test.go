package kubeclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// A server that accepts the connection and never answers: every request
// gives up after RequestTimeout, with a message saying so.
func TestRequestTimeoutOnASilentServer(t *testing.T) {
	addr, _ := ktest.SilentServer(t)
	c, err := kubeclient.Connect(kubeclient.Options{RESTConfig: &rest.Config{Host: "http://" + addr}, Namespace: "training", RequestTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Nodes().List(context.Background(), metav1.ListOptions{})
	took := time.Since(start)
	if err == nil {
		t.Fatal("listing nodes on a silent server succeeded")
	}
	err = c.APIError(err, "list", "nodes")
	want := "kubernetes: the API server http://" + addr + " did not answer in time (--timeout; raise it if the server is only slow): "
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(list nodes in namespace training)") {
		t.Errorf("error %q, want it to start %q", err, want)
	}
	if took > 10*time.Second {
		t.Errorf("gave up after %s, the bound is 300ms", took)
	}
}

// A response beyond the cap is refused: at once when its Content-Length
// says so, and while it is read when it comes in chunks (a node list of
// hundreds of megabytes), before client-go holds it all.
func TestResponseCap(t *testing.T) {
	const limit = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("labelSelector") == "declared" {
			w.Header().Set("Content-Length", strconv.Itoa(300<<20))
			w.WriteHeader(http.StatusOK)
			return
		}
		fmt.Fprint(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[`)
		for i := range 300 << 20 / 100 { // 300 MB of nodes
			if _, err := fmt.Fprintf(w, `{"metadata":{"name":"node-%08d","labels":{"a":"%060d"}}},`, i, i); err != nil {
				return // the client stopped reading
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, err := kubeclient.Connect(kubeclient.Options{RESTConfig: &rest.Config{Host: srv.URL}, RequestTimeout: time.Minute, MaxResponse: limit})
	if err != nil {
		t.Fatal(err)
	}
	for _, selector := range []string{"declared", "chunked"} {
		_, err := c.Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: selector})
		var tooLarge *kubeclient.ResponseTooLargeError
		if !errors.As(err, &tooLarge) {
			t.Fatalf("%s: error %v, want a ResponseTooLargeError", selector, err)
		}
		err = c.APIError(err, "list", "nodes")
		want := "kubernetes: GET " + srv.URL + "/api/v1/nodes: the API server's response passed 1 MB (a sixteenth of the memory budget); raise --max-memory (list nodes in namespace default)"
		if err.Error() != want {
			t.Errorf("%s: error\n%s\nwant\n%s", selector, err, want)
		}
	}
}
