package ktest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FakeLister is an API server that answers only what optimus snapshot
// reads: the namespace (any name exists), the nodes, and the pods of any
// namespace or of all (the given pods, for the foreign-pod count too), with
// the objects given, whatever they hold (a hostile or broken cluster: a
// node listed twice, two pods claiming one task); everything else is 404. It returns a
// kubeconfig file for it (namespace "training"). No binaries needed.
func FakeLister(t testing.TB, nodes []corev1.Node, pods []corev1.Pod) (kubeconfig string) {
	t.Helper()
	nodeList, err := json.Marshal(corev1.NodeList{Items: nodes})
	if err != nil {
		t.Fatal(err)
	}
	podList, err := json.Marshal(corev1.PodList{Items: pods})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		switch {
		case r.Method != http.MethodGet:
		case r.URL.Path == "/api/v1/pods":
			body = append([]byte(`{"kind":"PodList","apiVersion":"v1",`), podList[1:]...)
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/") && !strings.Contains(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/"), "/"):
			name, _ := json.Marshal(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/"))
			body = []byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":` + string(name) + `}}`)
		case r.URL.Path == "/api/v1/nodes":
			body = append([]byte(`{"kind":"NodeList","apiVersion":"v1",`), nodeList[1:]...)
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/") && strings.HasSuffix(r.URL.Path, "/pods"):
			body = append([]byte(`{"kind":"PodList","apiVersion":"v1",`), podList[1:]...)
		}
		if body == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: "` + srv.URL + `"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: fake, context: {cluster: fake, user: u, namespace: training}}]
current-context: fake
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}
