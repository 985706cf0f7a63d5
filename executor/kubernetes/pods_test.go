package kubernetes_test

// The faults of pods built too thin or checked too late (issue 23): each
// case failed before the fix, against the real API server.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// A namespace quota on cpu and memory, requests and limits, admits every
// pod optimus creates: the MXNet scheduler pods requested nothing, so the
// quota refused them and every MXNet job failed.
func TestQuotaOnCPUAndMemoryAdmitsEveryPod(t *testing.T) {
	e := setupParallel(t) // the quota is the namespace's
	// Two MXNet jobs: parameter servers, workers and a scheduler each.
	e.keepJobs("dssm-a", "resnet50-a")
	ctx := context.Background()
	hard := corev1.ResourceList{
		corev1.ResourceRequestsCPU: resource.MustParse("1000"), corev1.ResourceRequestsMemory: resource.MustParse("10Ti"),
		corev1.ResourceLimitsCPU: resource.MustParse("1000"), corev1.ResourceLimitsMemory: resource.MustParse("10Ti"),
	}
	q, err := e.admin.CoreV1().ResourceQuotas(e.ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "compute"}, Spec: corev1.ResourceQuotaSpec{Hard: hard}}, metav1.CreateOptions{})
	must(t, err)
	used := corev1.ResourceList{}
	for r := range hard {
		used[r] = resource.MustParse("0")
	}
	q.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	_, err = e.admin.CoreV1().ResourceQuotas(e.ns).UpdateStatus(ctx, q, metav1.UpdateOptions{})
	must(t, err)
	x, _ := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allDone(t, rs, 2)
	pods := e.pods()
	if len(pods) != 12 {
		t.Fatalf("%d pods, want 12 (10 tasks and 2 MXNet schedulers)", len(pods))
	}
	for _, p := range pods {
		res := p.Spec.Containers[0].Resources
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := res.Requests[r]; !ok {
				t.Errorf("pod %s requests no %s", p.Name, r)
			}
			if _, ok := res.Limits[r]; !ok {
				t.Errorf("pod %s has no %s limit", p.Name, r)
			}
		}
	}
}

// foreignPod creates a pod optimus does not manage, bound to node, that
// requests gpus GPUs and cpu cores (0: none), in phase (Running, Succeeded, ...).
func foreignPod(t *testing.T, e *env, ns, name, node string, gpus, cpu int64, phase corev1.PodPhase) {
	t.Helper()
	ctx := context.Background()
	req := corev1.ResourceList{k8s.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}
	if cpu > 0 {
		req[corev1.ResourceCPU] = *resource.NewQuantity(cpu, resource.DecimalSI)
	}
	p, err := e.admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "other-scheduler"}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "example.com/other:1",
			Resources: corev1.ResourceRequirements{Requests: req, Limits: req}}}},
	}, metav1.CreateOptions{})
	must(t, err)
	if phase != "" {
		// The stand-in kubelet may have marked the pod Running since: set the
		// phase on the pod as it is now.
		must(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			p.Status.Phase = phase
			_, err := e.admin.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
			if err != nil {
				if q, gerr := e.admin.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); gerr == nil {
					p = q
				}
			}
			return err
		}))
	}
}

// Pods optimus does not manage, in any namespace, are subtracted from
// their nodes' allocatable: a plan that would overfill a node with them is
// refused before any write, saying so; snapshot's cluster table gives the
// room that is left; the plan moved off that node applies, and the summary
// says what was subtracted. Finished pods do not count.
func TestForeignPodsArePlannedAround(t *testing.T) {
	e := setup(t)
	// The jobs with tasks on gpu-01, whose room the foreign pod takes.
	e.keepJobs("inception-a", "resnet50-a")
	ctx := context.Background()
	other := ktest.Namespace(t, e.admin)
	foreignPod(t, e, other, "render-0", "gpu-01", 3, 0, "") // the plan uses 2 of gpu-01's 4
	foreignPod(t, e, other, "done-0", "gpu-02", 4, 1, corev1.PodSucceeded)
	x, c := e.executor(ktest.AdminToken, nil)
	err := x.Validate(ctx, e.plan.Tasks, e.jobs)
	want := `node "gpu-01": the plan's tasks use 2 gpu, the node has 1 (allocatable 4 less 3 requested by pods optimus does not manage)`
	if !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Validate: %v\nwant %s", err, want)
	}
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("refused plan wrote %v", w)
	}

	// Snapshot says what is left of gpu-01 (and all of gpu-02).
	kc, err := e.srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, e.ns)
	must(t, err)
	snap, err := (&k8s.SnapshotConfig{Kubeconfig: kc}).Read(ctx)
	must(t, err)
	gpus := map[string]float64{}
	for _, n := range snap.Nodes {
		gpus[n.Name] = n.Capacity["gpu"]
	}
	if gpus["gpu-01"] != 1 || gpus["gpu-02"] != 4 {
		t.Errorf("snapshot: gpu-01 has %g GPUs, gpu-02 %g; want 1 and 4", gpus["gpu-01"], gpus["gpu-02"])
	}
	if !strings.Contains(snap.Where, "allocatable less the requests of 1 pod optimus does not manage on 1 node") {
		t.Errorf("snapshot's summary: %q", snap.Where)
	}

	// gpu-01's tasks moved to the spare gpu-07: accepted and applied.
	moved := clonePlan(e.plan)
	for i := range moved.Tasks {
		if moved.Tasks[i].Node == "gpu-01" {
			moved.Tasks[i].Node = "gpu-07"
		}
	}
	report, err := apply.Run(ctx, x, moved, e.jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	allDone(t, report.Results, len(e.plan.Jobs))
	if s := report.Summary(); !strings.HasSuffix(s, "; allocatable less the requests of 1 pod optimus does not manage on 1 node") {
		t.Errorf("summary: %s", s)
	}
	for _, p := range e.pods() {
		if p.Spec.NodeName == "gpu-01" {
			t.Errorf("pod %s on gpu-01", p.Name)
		}
	}
}

// writeTemplate writes one template file, default.yaml, into a new
// directory and loads it.
func writeTemplate(t *testing.T, yaml string) *k8s.Templates {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "default.yaml"), []byte(yaml), 0o644))
	ts, err := k8s.LoadTemplates(dir)
	must(t, err)
	return ts
}

// Derived names, images, node names, taints and node selectors are
// checked before any write: each was accepted by Validate and failed (or
// ran where it should not) only at the create.
func TestValidateRefusesBadPodsBeforeAnyWrite(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	taint := func(effect corev1.TaintEffect) func() {
		return func() {
			n, err := e.admin.CoreV1().Nodes().Get(ctx, "gpu-07", metav1.GetOptions{})
			must(t, err)
			n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "inference", Effect: effect}}
			_, err = e.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			must(t, err)
		}
	}
	untaint := func() {
		n, err := e.admin.CoreV1().Nodes().Get(ctx, "gpu-07", metav1.GetOptions{})
		must(t, err)
		n.Spec.Taints = nil
		_, err = e.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		must(t, err)
	}
	t.Cleanup(untaint)
	onSpare := clonePlan(e.plan)
	onSpare.Tasks[0].Node = "gpu-07"
	// A valid 58-character job name: its Service is fine, its pods'
	// names (68 and 70 characters) are not.
	long := "dssm-a" + strings.Repeat("x", 52)
	longPlan, longJobs := clonePlan(e.plan), map[string]executor.Job{}
	for i := range longPlan.Tasks {
		if longPlan.Tasks[i].Job == "dssm-a" {
			longPlan.Tasks[i].Job = long
		}
	}
	with := func(job string, f func(*executor.Job)) map[string]executor.Job {
		out := map[string]executor.Job{}
		for k, v := range e.jobs {
			if k == job {
				f(&v)
			}
			out[k] = v
		}
		return out
	}
	for k, v := range e.jobs {
		if k == "dssm-a" {
			k, v.Job = long, long
		}
		longJobs[k] = v
	}
	tolerating := writeTemplate(t, "spec:\n  tolerations:\n    - key: dedicated\n      operator: Exists\n")
	selecting := writeTemplate(t, "spec:\n  nodeSelector:\n    pool: training\n")
	tests := []struct {
		name      string
		plan      []executor.Task
		jobs      map[string]executor.Job
		templates *k8s.Templates
		before    func()
		want      string // "" accepted
	}{
		{"pod names past 63 characters", longPlan.Tasks, longJobs, nil, nil, "job \"" + long + "\": task " + long + "-worker-0 cannot name a pod"},
		{"image with a space", e.plan.Tasks, with("dssm-a", func(j *executor.Job) { j.Image = "example.com/x:1 --privileged" }), nil, nil, "has white space"},
		{"image with a newline", e.plan.Tasks, with("dssm-a", func(j *executor.Job) { j.Image = "example.com/x:1\nkind: Secret" }), nil, nil, "has white space"},
		{"NoSchedule taint", onSpare.Tasks, e.jobs, nil, taint(corev1.TaintEffectNoSchedule), `has the taint dedicated=inference:NoSchedule, which the pod does not tolerate`},
		{"NoExecute taint", onSpare.Tasks, e.jobs, nil, taint(corev1.TaintEffectNoExecute), `has the taint dedicated=inference:NoExecute`},
		{"taint tolerated by the template", onSpare.Tasks, e.jobs, tolerating, nil, ""},
		{"node selector", onSpare.Tasks, e.jobs, selecting, untaint, `lacks the label pool=training`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
			}
			x, c := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Templates = tc.templates })
			err := x.Validate(ctx, tc.plan, tc.jobs)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v, want it accepted", err)
			case tc.want != "" && (err == nil || !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate: %v, want an invalid-plan error containing %q", err, tc.want)
			}
			t.Logf("%s: %v", tc.name, err)
			if w := c.Writes(); len(w) != 0 {
				t.Errorf("Validate wrote %v", w)
			}
		})
	}
	if n := len(e.pods()); n != 0 {
		t.Errorf("%d pods after refused plans", n)
	}
}

// A namespace that does not exist is the user's mistake (exit 2), found
// by Validate, so by --dry-run, and by snapshot, before any write: it was
// found only when the Lease was created.
func TestMissingNamespaceIsFoundFirst(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	ns := "no-such-namespace"
	x, c := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Namespace = ns })
	check := func(what string, err error) {
		t.Helper()
		var ue *executor.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), `namespace "no-such-namespace" does not exist`) {
			t.Errorf("%s: %v, want a usage error saying the namespace does not exist", what, err)
		}
	}
	check("Validate", x.Validate(ctx, e.plan.Tasks, e.jobs))
	_, err := apply.Run(ctx, x, e.plan, e.jobs, apply.RunOptions{DryRun: true})
	check("dry run", err)
	kc, err := e.srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, ns)
	must(t, err)
	_, err = (&k8s.SnapshotConfig{Kubeconfig: kc}).Read(ctx)
	check("snapshot", err)
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("wrote %v", w)
	}
}
