package kubernetes_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// The cluster comes from --kubeconfig, else KUBECONFIG, and the namespace
// from the context unless given; with no configuration at all New says what
// to do.
func TestKubeconfigSources(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	path, err := e.srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, e.ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir()) // no ~/.kube/config
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		name, env string
		o         k8s.Options
		wantNS    string
	}{
		{"--kubeconfig", "", k8s.Options{Kubeconfig: path}, e.ns},
		{"KUBECONFIG", path, k8s.Options{}, e.ns},
		{"--namespace wins", path, k8s.Options{Namespace: "other"}, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			x, err := k8s.New(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if x.Namespace() != tc.wantNS {
				t.Errorf("namespace %s, want %s", x.Namespace(), tc.wantNS)
			}
			if _, err := x.Nodes(ctx); err != nil {
				t.Errorf("nodes: %v", err)
			}
		})
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	if _, err := k8s.New(ctx, k8s.Options{}); err == nil || !strings.Contains(err.Error(), "no cluster configured: give --kubeconfig, set KUBECONFIG, or run inside a cluster") {
		t.Errorf("no configuration: %v", err)
	}
}
