package root

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/cli/metricscmd"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/internal/filelock"
)

// The kubernetes source's bad input, through the command: a pod without
// a log yet is a warning (exit 0), a state file that is not the source's
// an error naming the file and line (exit 2, nothing written), a user
// without the right to read pods an error (exit 1), a bad option a usage
// error (exit 2); the same logs read twice give the same rows. (On the
// binary's shared server, which cli/metricscmd's test binary, where it
// was, started for it alone.)
func TestKubernetesSourceBadInput(t *testing.T) {
	srv, admin, ns := ktest.Exclusive(t)
	ctx := context.Background()
	ktest.AddNodes(t, admin, []ktest.NodeSpec{{Name: "node-1", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64}}})
	kl := srv.StartLogKubelet(t)
	kl.Register(t, admin, "node-1")
	for _, job := range []string{"mlp", "cnn"} {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: job + "-worker-0", Namespace: ns, Labels: map[string]string{
				k8s.LabelManagedBy: k8s.ManagedByValue, k8s.LabelJob: job, k8s.LabelRole: "worker", k8s.LabelIndex: "0", k8s.LabelGeneration: "g1"}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "task", Image: "example.com/train"}}},
		}
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		kl.Log(t, ns, "mlp-worker-0", "task", t0.Add(time.Duration(i)*10*time.Second), `{"step": `+strconv.Itoa(100*i)+`, "loss": 0.`+strconv.Itoa(9-i)+`}`)
	}
	kl.Log(t, ns, "mlp-worker-0", "task", t0.Add(60*time.Second), `{"step": 600, "loss": }`)
	kubeconfig, err := srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, ns)
	if err != nil {
		t.Fatal(err)
	}
	logs, out := t.TempDir(), t.TempDir()
	args := []string{"metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", kubeconfig, "--format", "csv", "-o", out}
	code, _, stderr := Run(nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"pod " + ns + "/cnn-worker-0 container task: no log yet: container \"task\" in pod \"cnn-worker-0\" is waiting to start",
		filepath.Join(logs, "mlp", "gen-g1", "w1", "mlp-worker-0.task.podlog") + ": line 6:",
		"metrics: 1 pod logs or lines not fetched this time (named above)",
		"skipped 1 records or lines in 1 files",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	loss, err := os.ReadFile(filepath.Join(out, "loss.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "job,step,value,higher_is_better\nmlp,100,0.8,false\nmlp,200,0.7,false\nmlp,300,0.6,false\nmlp,400,0.5,false\nmlp,500,0.4,false\n"; string(loss) != want {
		t.Errorf("loss.csv from the pod log:\n%s\nwant\n%s", loss, want)
	}
	// Again, nothing new: the same rows.
	if code, _, stderr := Run(nil, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "loss.csv")); string(again) != string(loss) {
		t.Errorf("the second run read\n%s\nnot\n%s", again, loss)
	}

	// A state file that is not the source's.
	state := filepath.Join(logs, "mlp", "gen-g1", "w1", "mlp-worker-0.task.podlog")
	if err := os.WriteFile(state, []byte("step 100 loss 0.8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := t.TempDir()
	code, _, stderr = Run(nil, "metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", kubeconfig, "-o", out2)
	if code != 2 || !strings.Contains(stderr, state+": line 1: the line does not start with an RFC 3339 time") {
		t.Errorf("corrupt state file: exit %d, stderr %s", code, stderr)
	}
	if entries, _ := os.ReadDir(out2); len(entries) != 0 {
		t.Errorf("corrupt state file: %d files written", len(entries))
	}
	os.Remove(state)

	// A user the Role has not been granted.
	userConfig, err := srv.WriteKubeconfig(t.TempDir(), ktest.UserToken, ns)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = Run(nil, "metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", userConfig, "-o", out2)
	if code != 1 || !strings.Contains(stderr, "listing the optimus pods of namespace "+ns) || !strings.Contains(stderr, "forbidden") {
		t.Errorf("no rights: exit %d, stderr %s", code, stderr)
	}
	// deploy/rbac.yaml's Role lets that user read them.
	data, err := os.ReadFile("../../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	granted := false
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind != "Role" {
			continue
		}
		var r rbacv1.Role
		if err := yaml.UnmarshalStrict(doc, &r); err != nil {
			t.Fatal(err)
		}
		r.Namespace = ns
		if _, err := admin.RbacV1().Roles(ns).Create(ctx, &r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: r.Name, Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: r.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: ktest.UserName}}}
		if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		granted = true
	}
	if !granted {
		t.Fatal("deploy/rbac.yaml has no Role")
	}
	ktest.WaitAllowed(t, admin, ktest.UserName, ns, "", "pods", "list") // one Role: its pods/log rule with it
	out3 := t.TempDir()
	code, _, stderr = Run(nil, "metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", userConfig, "--format", "csv", "-o", out3)
	if code != 0 {
		t.Errorf("with deploy/rbac.yaml's Role: exit %d, stderr %s", code, stderr)
	} else if got, _ := os.ReadFile(filepath.Join(out3, "loss.csv")); string(got) != string(loss) {
		t.Errorf("with deploy/rbac.yaml's Role read\n%s\nnot\n%s", got, loss)
	}

	// One run at a time fetches into a root: with its lock held by another
	// (ROOT/.optimus-metrics.lock), a run waits
	// --kubernetes-timeout, then fetches, reads and writes nothing.
	kl.Log(t, ns, "mlp-worker-0", "task", t0.Add(70*time.Second), `{"step": 700, "loss": 0.15}`)
	before := treeBytes(t, logs)
	unlock, err := filelock.Lock(ctx, metricscmd.RootLock(logs+"/"), 0)
	if err != nil {
		t.Fatal(err)
	}
	out4 := filepath.Join(t.TempDir(), "out")
	code, _, stderr = Run(nil, "metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", kubeconfig, "--kubernetes-timeout", "300ms", "-o", out4)
	unlock()
	if code != 1 || !strings.Contains(stderr, "metrics: "+logs+": another optimus metrics run collects into it") || !strings.Contains(stderr, "(--kubernetes-timeout); nothing was fetched") {
		t.Errorf("with the root's lock held: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out4); err == nil {
		t.Error("with the root's lock held, -o was written")
	}
	if after := treeBytes(t, logs); after != before {
		t.Error("with the root's lock held, the logs under the root changed")
	}
	if code, _, stderr = Run(nil, "metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", kubeconfig, "-o", out4); code != 0 {
		t.Errorf("after the lock was given back: exit %d, %s", code, stderr)
	}
	if after := treeBytes(t, logs); after == before {
		t.Error("after the lock was given back, the new line was not fetched")
	}

	for _, bad := range [][]string{{"--kubernetes-index", "first"}, {"--kubernetes-limit-bytes", "100"}, {"--kubernetes-roles", ","}, {"--kubernetes-timeout", "0s"}} {
		code, _, stderr = Run(nil, append([]string{"metrics", logs, "-o", out2}, bad...)...)
		if code != 2 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %s", bad, code, stderr)
		}
	}
}

// treeBytes is every file under dir but the hidden ones (the lock), path
// and content, in walk order.
func treeBytes(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		raw, err := os.ReadFile(path)
		b.WriteString(path + "\n" + string(raw) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
