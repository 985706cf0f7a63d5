package kubernetes_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

func TestVanishedNode(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	x, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Timeout = 3 * time.Second })
	cur, _ := x.Current(ctx)
	if err := x.Validate(ctx, e.plan.Tasks, e.jobs); err != nil {
		t.Fatal(err)
	}
	// gpu-05 goes between validation and apply.
	if err := e.admin.CoreV1().Nodes().Delete(ctx, "gpu-05", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ktest.AddNodes(t, e.admin, e.nodesNamed("gpu-05")) })
	changes, _ := apply.Diff(e.plan, cur, e.jobs, apply.Options{})
	rs, err := x.Apply(ctx, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	onNode := map[string]bool{} // jobs with a task on gpu-05
	for _, task := range e.plan.Tasks {
		onNode[task.Job] = onNode[task.Job] || task.Node == "gpu-05"
	}
	for _, r := range rs {
		want := executor.OutcomeDone
		if onNode[r.Change.Job.Job] {
			want = executor.OutcomeFailed
			if !strings.Contains(r.Message, "node gpu-05 does not exist") {
				t.Errorf("vgg16-a message: %s", r.Message)
			}
			for _, tr := range r.Tasks {
				if (tr.Task.Node == "gpu-05") != (tr.Outcome == executor.OutcomeFailed) {
					t.Errorf("task %s on %s: %s %s", tr.Task.Name(), tr.Task.Node, tr.Outcome, tr.Message)
				}
			}
		}
		if r.Outcome != want {
			t.Errorf("job %s: %s, want %s", r.Change.Job.Job, r.Outcome, want)
		}
	}
	// The node comes back: its pods run, and applying again has nothing to do.
	ktest.AddNodes(t, e.admin, e.nodesNamed("gpu-05"))
	if err := ktest.Eventually(ctx, 30*time.Second, func() bool {
		p := e.pods()["vgg16-a-worker-1"]
		return p.Status.Phase == corev1.PodRunning
	}); err != nil {
		t.Fatal("vgg16-a-worker-1 not Running after gpu-05 came back")
	}
	rs, err = e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allSkipped(t, "after the node came back", rs)
}

func (e *env) nodesNamed(name string) []ktest.NodeSpec {
	for _, n := range e.cluster {
		if n.Name == name {
			return []ktest.NodeSpec{n}
		}
	}
	e.t.Fatalf("no node %s", name)
	return nil
}
