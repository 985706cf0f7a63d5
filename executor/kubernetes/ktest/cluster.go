package ktest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// insecureTLS is used only to poll /readyz before the server's
// self-signed certificate has been read.
func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } //nolint:gosec // loopback test server

// NodeSpec is a node to create: its name and capacity in the plan's units
// (gpu, cpu, memory_gb; others go to the optimus.dev/capacity annotation).
type NodeSpec struct {
	Name     string
	Capacity map[string]float64
}

// AddNodes creates (or replaces) Ready nodes with the given allocatable.
// A node is created with its status (the API server keeps a Node's status
// on create, as a kubelet registering its node relies on), and deleted
// first only when one of that name exists: one request a new node instead
// of three (a delete answered 404, the create, a status update).
func AddNodes(t testing.TB, c kubernetes.Interface, nodes []NodeSpec) {
	t.Helper()
	ctx := context.Background()
	for _, n := range nodes {
		node := NodeObject(n)
		_, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			if err = c.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err == nil || IsGone(err) {
				_, err = c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
			}
		}
		if err != nil {
			t.Fatalf("ktest: creating node %s: %v", n.Name, err)
		}
	}
}

// NodeObject is the Node of a spec: Ready, with capacity = allocatable.
func NodeObject(n NodeSpec) *corev1.Node {
	list := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}
	extra := map[string]float64{}
	for r, v := range n.Capacity {
		switch r {
		case "cpu":
			list[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(v*1000), resource.DecimalSI)
		case "memory_gb":
			list[corev1.ResourceMemory] = *resource.NewQuantity(int64(v*(1<<30)), resource.BinarySI)
		case "gpu":
			list["nvidia.com/gpu"] = *resource.NewQuantity(int64(v), resource.DecimalSI)
		default:
			extra[r] = v
		}
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{"kubernetes.io/hostname": n.Name}},
		Status: corev1.NodeStatus{
			Capacity: list, Allocatable: list.DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
		},
	}
	if len(extra) > 0 {
		b, _ := json.Marshal(extra)
		node.Annotations = map[string]string{"optimus.dev/capacity": string(b)}
	}
	return node
}

// Namespace creates a fresh namespace named after the test.
func Namespace(t testing.TB, c kubernetes.Interface) string {
	t.Helper()
	name := strings.ToLower(t.Name())
	name = strings.NewReplacer("/", "-", "_", "-").Replace(name)
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.Trim(name, "-") + fmt.Sprintf("-%d", time.Now().UnixNano()%100000)
	if _, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("ktest: namespace %s: %v", name, err)
	}
	// The test's pods go with it: they would otherwise count, in the
	// tests after it on a shared server, as pods optimus does not manage.
	t.Cleanup(func() {
		zero := int64(0)
		_ = c.CoreV1().Pods(name).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	})
	return name
}

// Counter counts the write requests (POST, PUT, PATCH, DELETE) a client made.
type Counter struct {
	mu     sync.Mutex
	writes []string
}

// Wrap returns a copy of cfg whose requests are counted.
func (c *Counter) Wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			switch r.Method {
			case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
				c.mu.Lock()
				c.writes = append(c.writes, r.Method+" "+r.URL.Path)
				c.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return cfg
}

// AfterGet returns a copy of cfg and a channel closed once a GET whose
// path contains part has been answered: a test acts when the client has
// seen a state (a Lease held, say) instead of after a fixed sleep.
func AfterGet(cfg *rest.Config, part string) (*rest.Config, <-chan struct{}) {
	cfg = rest.CopyConfig(cfg)
	seen := make(chan struct{})
	var once sync.Once
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && r.Method == http.MethodGet && strings.Contains(r.URL.Path, part) {
				once.Do(func() { close(seen) })
			}
			return resp, err
		})
	})
	return cfg, seen
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Writes are the writes so far ("METHOD path"), in order.
func (c *Counter) Writes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes...)
}

// Reset forgets the writes so far.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.writes = nil
	c.mu.Unlock()
}

// Summary counts writes per method and resource kind: "POST pods: 60, ...".
func Summary(writes []string) string {
	n := map[string]int{}
	for _, w := range writes {
		method, path, _ := strings.Cut(w, " ")
		parts := strings.Split(strings.Trim(path, "/"), "/")
		kind := path
		for _, part := range parts {
			switch part {
			case "pods", "services", "leases", "selfsubjectaccessreviews", "selfsubjectreviews":
				kind = part
			}
		}
		n[method+" "+kind]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %d", k, n[k]))
	}
	return strings.Join(out, ", ")
}

// IsGone reports a NotFound error.
func IsGone(err error) bool { return apierrors.IsNotFound(err) }

// WaitAllowed waits until the API server's authorizer lets user do verb on
// resource (group "" for core; namespace "" for cluster-wide). The RBAC
// authorizer sees a new Role or RoleBinding through its informers, a moment
// after the create returns, so a test that grants rights and at once uses
// them races it.
func WaitAllowed(t testing.TB, admin kubernetes.Interface, user, namespace, group, resource, verb string) {
	t.Helper()
	ra := &authzv1.ResourceAttributes{Namespace: namespace, Group: group, Resource: resource, Verb: verb}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := admin.AuthorizationV1().SubjectAccessReviews().Create(context.Background(),
			&authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: ra}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("access review for %s %s %s: %v", user, verb, resource, err)
		}
		if r.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("user %q still may not %s %s in %q after 30 s: %s", user, verb, resource, namespace, r.Status.Reason)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Exclusive is the binary's shared server (Shared) for a test that needs
// the cluster-wide objects to itself, as snapshot kubernetes does (it reads
// every node): the test must not run in parallel with another on the
// server; it gets a namespace of its own (Namespace), and every node is
// deleted when it ends, so that the next such test starts from a cluster
// without nodes. A test that can run beside others uses Shared with nodes
// of its own names instead.
func Exclusive(t *testing.T) (s *Server, admin kubernetes.Interface, ns string) {
	t.Helper()
	s = Shared(t)
	admin = s.Admin()
	// Registered before Namespace's cleanup, so run after it: the pods
	// go first, then the nodes they were bound to.
	t.Cleanup(func() {
		_ = admin.CoreV1().Nodes().DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	})
	if nodes, err := admin.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("ktest: listing nodes: %v", err)
	} else if len(nodes.Items) > 0 {
		t.Fatalf("ktest: Exclusive: the shared server has %d nodes left by another test (the first %s)", len(nodes.Items), nodes.Items[0].Name)
	}
	return s, admin, Namespace(t, admin)
}
