package kubeclient_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	ktest.StopShared()
	os.Exit(code)
}

func connect(t *testing.T, srv *ktest.Server, token, ns string) *kubeclient.Client {
	t.Helper()
	c, err := kubeclient.Connect(kubeclient.Options{RESTConfig: srv.Config(token), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Without a kubeconfig, KUBECONFIG or a cluster to run in, Connect says
// what to give it.
func TestConnectWithoutCluster(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	if _, err := kubeclient.Connect(kubeclient.Options{}); err == nil || err.Error() != "kubernetes: no cluster configured: give --kubeconfig, set KUBECONFIG, or run inside a cluster" {
		t.Errorf("error %v", err)
	}
}

// A client from a kubeconfig (which sets no rate limit) is not held to
// client-go's default of 5 requests a second, burst 10: at that rate 40
// requests take at least 6 s.
func TestKubeconfigClientIsNotThrottledToClientGoDefault(t *testing.T) {
	t.Parallel()
	srv := ktest.Shared(t)
	ns := ktest.Namespace(t, srv.Admin())
	path, err := srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, ns)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubeclient.Connect(kubeclient.Options{Kubeconfig: path})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < 40; i++ {
		if _, err := c.Services(ns).List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took >= 6*time.Second {
		t.Errorf("40 requests took %s: throttled like client-go's default", took)
	}
}

// One holder at a time: a second holder is refused naming the first, or
// waits until the first lets go.
func TestLeaseOneHolderAtATime(t *testing.T) {
	t.Parallel()
	srv := ktest.Shared(t)
	ns := ktest.Namespace(t, srv.Admin())
	ctx := context.Background()
	c := connect(t, srv, ktest.AdminToken, ns)
	lease := func(id string, wait time.Duration) kubeclient.LeaseOptions {
		return kubeclient.LeaseOptions{Name: "test-lease", Identity: id, Duration: time.Minute, Wait: wait, Labels: map[string]string{"app": "test"}}
	}
	releaseA, err := c.AcquireLease(ctx, lease("a", -1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AcquireLease(ctx, lease("b", -1))
	var held *kubeclient.HeldError
	if !errors.As(err, &held) || held.Holder != "a" || held.Name != "test-lease" || held.Namespace != ns {
		t.Fatalf("second holder: %v", err)
	}
	cfg, seen := ktest.AfterGet(srv.Config(ktest.AdminToken), "/leases/")
	b, err := kubeclient.Connect(kubeclient.Options{RESTConfig: cfg, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-seen; releaseA() }() // once b has found the Lease held
	releaseB, err := b.AcquireLease(ctx, lease("b", 30*time.Second))
	if err != nil {
		t.Fatalf("waiting for the first holder to let go: %v", err)
	}
	l, err := c.Leases(ns).Get(ctx, "test-lease", metav1.GetOptions{})
	if err != nil || *l.Spec.HolderIdentity != "b" || *l.Spec.LeaseDurationSeconds != 60 || l.Labels["app"] != "test" {
		t.Errorf("lease %+v, %v", l, err)
	}
	releaseB()
	if l, err = c.Leases(ns).Get(ctx, "test-lease", metav1.GetOptions{}); err != nil || *l.Spec.HolderIdentity != "" {
		t.Errorf("after release: %+v, %v", l, err)
	}
}

// A user without rights is told every permission missing, by name; a
// request refused is a PermissionError too.
func TestCheckAccessNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	srv := ktest.Shared(t)
	ns := ktest.Namespace(t, srv.Admin())
	ctx := context.Background()
	needed := []kubeclient.Access{{Resource: "pods", Verb: "create"}, {Group: "coordination.k8s.io", Resource: "leases", Verb: "update"}, {Resource: "nodes", Verb: "list", Cluster: true}}
	if err := connect(t, srv, ktest.AdminToken, ns).CheckAccess(ctx, needed); err != nil {
		t.Errorf("admin: %v", err)
	}
	c := connect(t, srv, ktest.OtherToken, ns)
	err := c.CheckAccess(ctx, needed)
	var pe *kubeclient.PermissionError
	if !errors.As(err, &pe) || pe.User != "someone" {
		t.Fatalf("unprivileged: %v", err)
	}
	for _, s := range []string{`user "someone" may not create pods, update leases.coordination.k8s.io, list nodes (cluster-wide) in namespace ` + ns, "deploy/rbac.yaml"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}
	_, err = c.Pods(ns).List(ctx, metav1.ListOptions{})
	if err = c.APIError(err, "list", "pods"); !errors.As(err, &pe) || !strings.Contains(err.Error(), "may not list pods in namespace "+ns) {
		t.Errorf("refused list: %v", err)
	}
}

// Resources of the core group work through the typed calls; a group the
// client was not built with is a programming error, said at once.
func TestResource(t *testing.T) {
	t.Parallel()
	srv := ktest.Shared(t)
	ns := ktest.Namespace(t, srv.Admin())
	ctx := context.Background()
	c := connect(t, srv, ktest.AdminToken, ns)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s1"}, Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Port: 2222}}}}
	created, err := c.Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "s1" {
		t.Fatalf("list %v, %v", list, err)
	}
	if err := c.Services(ns).Delete(ctx, "s1", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("no panic for a group the client lacks")
		}
	}()
	kubeclient.For[corev1.Pod, *corev1.Pod, corev1.PodList, *corev1.PodList](c, schema.GroupVersion{Group: "jobset.x-k8s.io", Version: "v1alpha2"}, ns, "jobsets")
}
