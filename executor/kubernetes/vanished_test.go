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

// A node vanishes between validation and apply: the jobs with a task there
// fail, saying so, the others start; when the node comes back its pods run.
func TestVanishedNode(t *testing.T) {
	e := setupParallel(t)
	// Two jobs with tasks on gpu-05 (vgg16-a's worker-1 among them) and
	// one without.
	e.keepJobs("dssm-a", "seq2seq-b", "vgg16-a")
	ctx := context.Background()
	// The plan's tasks on gpu-05 go to a node of this test's own, which it
	// deletes (the other tests keep gpu-05).
	const vanishing = "gpu-vanishing"
	node := e.nodeNamed(e.node("gpu-05"))
	node.Name = vanishing
	ktest.AddNodes(t, e.admin, []ktest.NodeSpec{node})
	t.Cleanup(func() { _ = e.admin.CoreV1().Nodes().Delete(context.Background(), vanishing, metav1.DeleteOptions{}) })
	plan := clonePlan(e.plan)
	for i := range plan.Tasks {
		if plan.Tasks[i].Node == e.node("gpu-05") {
			plan.Tasks[i].Node = vanishing
		}
	}
	x, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Timeout = 3 * time.Second })
	cur, _ := x.Current(ctx)
	if err := x.Validate(ctx, plan.Tasks, e.jobs); err != nil {
		t.Fatal(err)
	}
	// The node goes between validation and apply.
	if err := e.admin.CoreV1().Nodes().Delete(ctx, vanishing, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	changes, _ := apply.Diff(plan, cur, e.jobs, apply.Options{})
	rs, err := x.Apply(ctx, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	onNode := map[string]bool{} // jobs with a task on the vanished node
	for _, task := range plan.Tasks {
		onNode[task.Job] = onNode[task.Job] || task.Node == vanishing
	}
	if len(onNode) == 0 {
		t.Fatal("no task on gpu-05 in the plan")
	}
	for _, r := range rs {
		want := executor.OutcomeDone
		if onNode[r.Change.Job.Job] {
			want = executor.OutcomeFailed
			if !strings.Contains(r.Message, "node "+vanishing+" does not exist") {
				t.Errorf("%s message: %s", r.Change.Job.Job, r.Message)
			}
			for _, tr := range r.Tasks {
				if (tr.Task.Node == vanishing) != (tr.Outcome == executor.OutcomeFailed) {
					t.Errorf("task %s on %s: %s %s", tr.Task.Name(), tr.Task.Node, tr.Outcome, tr.Message)
				}
			}
		}
		if r.Outcome != want {
			t.Errorf("job %s: %s, want %s", r.Change.Job.Job, r.Outcome, want)
		}
	}
	// The node comes back: its pods run, and applying again has nothing to do.
	ktest.AddNodes(t, e.admin, []ktest.NodeSpec{node})
	if err := ktest.Eventually(ctx, 30*time.Second, func() bool {
		p := e.pods()["vgg16-a-worker-1"]
		return p.Spec.NodeName == vanishing && p.Status.Phase == corev1.PodRunning
	}); err != nil {
		t.Fatal("vgg16-a-worker-1 not Running after " + vanishing + " came back")
	}
	rs, err = e.run(x, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allSkipped(t, "after the node came back", rs)
}

// nodeNamed is the node of the cluster named name.
func (e *env) nodeNamed(name string) ktest.NodeSpec {
	for _, n := range e.cluster {
		if n.Name == name {
			return n
		}
	}
	e.t.Fatalf("no node %s", name)
	return ktest.NodeSpec{}
}
