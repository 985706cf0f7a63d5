package kubernetes_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// Bad plans are refused before any write, with the first problem named.
func TestValidateRefusesBadPlansBeforeAnyWrite(t *testing.T) {
	e := setupParallel(t)
	ctx := context.Background()
	// A cordoned node of this test's own (the spare gpu-07 is the other
	// tests' room for moves).
	ktest.AddNodes(t, e.admin, []ktest.NodeSpec{{Name: "gpu-cordoned", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64, "net_gbps": 10}}})
	t.Cleanup(func() {
		_ = e.admin.CoreV1().Nodes().Delete(context.Background(), "gpu-cordoned", metav1.DeleteOptions{})
	})
	n, err := e.admin.CoreV1().Nodes().Get(ctx, "gpu-cordoned", metav1.GetOptions{})
	must(t, err)
	n.Spec.Unschedulable = true
	_, err = e.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	must(t, err)
	first := func(p []executor.Task, f func(*executor.Task)) []executor.Task {
		q := append([]executor.Task(nil), p...)
		q[0].Resources = cloneMap(q[0].Resources)
		f(&q[0])
		return q
	}
	noImage := map[string]executor.Job{}
	for k, v := range e.jobs {
		if k == "dssm-a" {
			v.Image = ""
		}
		noImage[k] = v
	}
	tests := []struct {
		name string
		plan []executor.Task
		jobs map[string]executor.Job
		want string
	}{
		{"unknown node", first(e.plan.Tasks, func(t *executor.Task) { t.Node = "gpu-99" }), e.jobs, `node "gpu-99" is not in the cluster`},
		{"no image", e.plan.Tasks, noImage, `job "dssm-a" has no image`},
		{"over allocatable", first(e.plan.Tasks, func(t *executor.Task) { t.Resources["cpu"] = 40 }), e.jobs, "the plan's tasks use"},
		{"fractional GPU", first(e.plan.Tasks, func(t *executor.Task) { t.Node, t.Resources["gpu"] = e.node("gpu-07"), 0.5 }), e.jobs, "Kubernetes allocates whole GPUs"},
		{"cordoned node", first(e.plan.Tasks, func(t *executor.Task) { t.Node = "gpu-cordoned" }), e.jobs, `node "gpu-cordoned" is cordoned`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, c := e.executor(ktest.AdminToken, nil)
			err := x.Validate(ctx, tc.plan, tc.jobs)
			if err == nil || !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want an invalid-plan error containing %q", err, tc.want)
			}
			if w := c.Writes(); len(w) != 0 {
				t.Errorf("Validate wrote %v", w)
			}
		})
	}
	if n := len(e.pods()); n != 0 {
		t.Errorf("%d pods after refused plans", n)
	}
}
