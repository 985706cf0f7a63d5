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
	e := setup(t)
	ctx := context.Background()
	// gpu-07 (the spare) cordoned for one case; restored after.
	cordon := func(on bool) {
		n, err := e.admin.CoreV1().Nodes().Get(ctx, "gpu-07", metav1.GetOptions{})
		must(t, err)
		n.Spec.Unschedulable = on
		_, err = e.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		must(t, err)
	}
	t.Cleanup(func() { cordon(false) })
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
		name   string
		plan   []executor.Task
		jobs   map[string]executor.Job
		before func()
		want   string
	}{
		{"unknown node", first(e.plan.Tasks, func(t *executor.Task) { t.Node = "gpu-99" }), e.jobs, nil, `node "gpu-99" is not in the cluster`},
		{"no image", e.plan.Tasks, noImage, nil, `job "dssm-a" has no image`},
		{"over allocatable", first(e.plan.Tasks, func(t *executor.Task) { t.Resources["cpu"] = 40 }), e.jobs, nil, "the plan's tasks use"},
		{"fractional GPU", first(e.plan.Tasks, func(t *executor.Task) { t.Node, t.Resources["gpu"] = "gpu-07", 0.5 }), e.jobs, nil, "Kubernetes allocates whole GPUs"},
		{"cordoned node", first(e.plan.Tasks, func(t *executor.Task) { t.Node = "gpu-07" }), e.jobs, func() { cordon(true) }, `node "gpu-07" is cordoned`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
			}
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
