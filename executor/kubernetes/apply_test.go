package kubernetes_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// allDone fails the test unless every result is done.
// allSkipped checks that every result of an apply that had nothing to do
// was skipped; what names the apply in messages.
func allSkipped(t *testing.T, what string, rs []executor.Result) {
	t.Helper()
	for _, r := range rs {
		if r.Outcome != executor.OutcomeSkipped {
			t.Errorf("%s: job %s %s %s", what, r.Change.Job.Job, r.Outcome, r.Message)
		}
	}
}

func allDone(t *testing.T, rs []executor.Result, n int) {
	t.Helper()
	if len(rs) != n {
		t.Fatalf("%d results, want %d: %v", len(rs), n, outcomes(rs))
	}
	for _, r := range rs {
		if r.Outcome != executor.OutcomeDone {
			logResults(t, rs)
			t.Fatalf("job %s: %s %s", r.Change.Job.Job, r.Outcome, r.Message)
		}
	}
}

// fresh applies the testbed plan to an empty namespace.
func fresh(t *testing.T, e *env) (*k8s.Executor, *ktest.Counter) {
	t.Helper()
	x, c := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allDone(t, rs, len(e.plan.Jobs))
	return x, c
}

func TestFreshApplyThenReapplyWritesNothing(t *testing.T) {
	e := setupParallel(t)
	x, c := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	allDone(t, rs, 9)
	writes := c.Writes()
	t.Logf("fresh apply: %d API writes: %s", len(writes), ktest.Summary(writes))
	// 60 task pods and 9 MXNet schedulers, 9 Services, the Lease taken and
	// given back, and the access review of each needed permission.
	want := fmt.Sprintf("POST leases: 1, POST pods: 69, POST selfsubjectaccessreviews: %d, POST services: 9, PUT leases: 1", len(k8s.Needed))
	if got := ktest.Summary(writes); got != want {
		t.Errorf("writes:\n got %s\nwant %s", got, want)
	}
	cur, err := x.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tasksOf(cur), tasksOf(e.plan.Tasks); !reflect.DeepEqual(got, want) {
		t.Errorf("current tasks differ from the plan:\n got %v\nwant %v", got, want)
	}
	pods := e.pods()
	for _, task := range e.plan.Tasks {
		p, ok := pods[task.Name()]
		if !ok {
			t.Fatalf("no pod %s", task.Name())
		}
		if p.Spec.NodeName != task.Node || p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s on %q %s, want %s Running", p.Name, p.Spec.NodeName, p.Status.Phase, task.Node)
		}
	}
	// The pod of one task, in detail: labels, resources, the DMLC peer environment.
	p := pods["resnet50-a-worker-0"]
	wantLabels := map[string]string{k8s.LabelManagedBy: "optimus", k8s.LabelJob: "resnet50-a", k8s.LabelRole: "worker",
		k8s.LabelIndex: "0", k8s.LabelGeneration: apply.Generation(e.plan)}
	if !reflect.DeepEqual(p.Labels, wantLabels) {
		t.Errorf("labels %v, want %v", p.Labels, wantLabels)
	}
	req := p.Spec.Containers[0].Resources.Requests
	for name, want := range map[corev1.ResourceName]string{"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"} {
		if q := req[name]; q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("request %s = %s, want %s", name, q.String(), want)
		}
	}
	for k, want := range map[string]string{"DMLC_ROLE": "worker", "DMLC_NUM_SERVER": "5", "DMLC_NUM_WORKER": "1",
		"DMLC_PS_ROOT_URI": "resnet50-a-scheduler-0.resnet50-a", "DMLC_PS_ROOT_PORT": "2222"} {
		if got := envOf(p, k); got != want {
			t.Errorf("%s=%q, want %q", k, got, want)
		}
	}
	if got := strings.Join(p.Spec.Containers[0].Command, " "); got != e.jobs["resnet50-a"].Command {
		t.Errorf("command %q", got)
	}
	if s := pods["resnet50-a-scheduler-0"]; envOf(s, "DMLC_ROLE") != "scheduler" || s.Spec.NodeName != e.node("cpu-01") {
		t.Errorf("scheduler pod: role %q on %q", envOf(s, "DMLC_ROLE"), s.Spec.NodeName)
	}

	// The same plan again: Diff finds nothing to do and nothing is written.
	c.Reset()
	rs, err = e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allSkipped(t, "re-apply", rs)
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("re-apply wrote %d times: %v", len(w), w)
	}
	t.Logf("re-apply: %d API writes, outcomes %v", len(c.Writes()), outcomes(rs))
	// And the executor alone, given the first run's changes again (as if
	// what runs had been read before the first apply): all skipped, no write.
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{Generation: apply.Generation(e.plan)})
	res, err := x.Apply(context.Background(), changes, false)
	if err != nil {
		t.Fatal(err)
	}
	allSkipped(t, "stale re-apply", res)
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("stale re-apply wrote %d times: %v", len(w), w)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	e := setupParallel(t)
	x, c := e.executor(ktest.AdminToken, nil)
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{})
	rs, err := x.Apply(context.Background(), changes, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Outcome != executor.OutcomePlanned || len(r.Tasks) == 0 {
			t.Errorf("job %s: %s (%d tasks)", r.Change.Job.Job, r.Outcome, len(r.Tasks))
		}
	}
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("dry run wrote: %v", w)
	}
	if n := len(e.pods()); n != 0 {
		t.Errorf("%d pods after a dry run", n)
	}
}

func TestResizeOneJob(t *testing.T) {
	e := setupParallel(t)
	// The job resized, and one beside it (with a scheduler pod too) that
	// must be left alone.
	e.keepJobs("dssm-a", "resnet50-a")
	x, c := fresh(t, e)
	before := e.pods()
	// dssm-a gets a fourth worker where there is room.
	plan := clonePlan(e.plan)
	var w0 executor.Task
	for _, task := range plan.Tasks {
		if task.Job == "dssm-a" && task.Role == "worker" && task.Index == 0 {
			w0 = task
		}
	}
	extra := w0
	extra.Index, extra.Resources = 3, cloneMap(w0.Resources)
	extra.Node = e.room(plan, extra, "")
	plan.Tasks = append(plan.Tasks, extra)
	c.Reset()
	rs, err := e.run(x, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	for _, r := range rs {
		want := executor.OutcomeSkipped
		if r.Change.Job.Job == "dssm-a" {
			want = executor.OutcomeDone
			if r.Change.Action != executor.ActionResize {
				t.Errorf("dssm-a: action %s, want resize", r.Change.Action)
			}
		}
		if r.Outcome != want {
			t.Errorf("job %s: %s, want %s", r.Change.Job.Job, r.Outcome, want)
		}
	}
	t.Logf("resize: %d API writes: %s", len(c.Writes()), ktest.Summary(c.Writes()))
	after := e.pods()
	for name, p := range after {
		job := p.Labels[k8s.LabelJob]
		if job == "dssm-a" {
			// Every task of the job restarts with the new peer count.
			if old, ok := before[name]; ok && old.UID == p.UID {
				t.Errorf("pod %s was not restarted", name)
			}
			if got := envOf(p, "DMLC_NUM_WORKER"); got != "4" {
				t.Errorf("pod %s: DMLC_NUM_WORKER=%s, want 4", name, got)
			}
		} else if before[name].UID != p.UID {
			t.Errorf("pod %s of job %s was touched", name, job)
		}
	}
	if p, ok := after["dssm-a-worker-3"]; !ok || p.Spec.NodeName != extra.Node {
		t.Errorf("dssm-a-worker-3 missing or on %q, want %s", p.Spec.NodeName, extra.Node)
	}
}

func TestMoveOneJob(t *testing.T) {
	e := setupParallel(t)
	// The job moved, and one beside it whose pods must be left alone.
	e.keepJobs("dssm-a", "seq2seq-a")
	x, _ := fresh(t, e)
	before := e.pods()
	plan := clonePlan(e.plan)
	var moved executor.Task
	for i, task := range plan.Tasks {
		if task.Job == "seq2seq-a" && task.Role == "worker" && task.Index == 1 {
			plan.Tasks[i].Node = e.room(plan, task, task.Node)
			moved = plan.Tasks[i]
		}
	}
	rs, err := e.run(x, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	for _, r := range rs {
		if r.Change.Job.Job == "seq2seq-a" && (r.Change.Action != executor.ActionMove || r.Outcome != executor.OutcomeDone) {
			t.Errorf("seq2seq-a: %s %s, want move done", r.Change.Action, r.Outcome)
		}
	}
	after := e.pods()
	for name, p := range after {
		if name == moved.Name() {
			if p.UID == before[name].UID || p.Spec.NodeName != moved.Node {
				t.Errorf("%s: not moved to %s (on %s)", name, moved.Node, p.Spec.NodeName)
			}
		} else if p.UID != before[name].UID {
			t.Errorf("pod %s was touched by the move of %s", name, moved.Name())
		}
	}
}

func TestRemoveJobWithPrune(t *testing.T) {
	e := setupParallel(t)
	// The job removed, and one that stays in the plan.
	e.keepJobs("dssm-a", "vgg16-b")
	x, _ := fresh(t, e)
	plan := without(e.plan, "vgg16-b")
	// Without --prune a job absent from the plan keeps running.
	rs, err := e.run(x, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := countJob(e.pods(), "vgg16-b"); n != 8 {
		t.Fatalf("without prune: vgg16-b has %d pods, want 8 (6 PS, 1 worker, 1 scheduler)", n)
	}
	rs, err = e.run(x, plan, true)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	for _, r := range rs {
		if r.Change.Job.Job == "vgg16-b" && (r.Change.Action != executor.ActionStop || r.Outcome != executor.OutcomeDone) {
			t.Errorf("vgg16-b: %s %s, want stop done", r.Change.Action, r.Outcome)
		}
	}
	if n := countJob(e.pods(), "vgg16-b"); n != 0 {
		t.Errorf("with prune: vgg16-b has %d pods left", n)
	}
	if _, err := e.admin.CoreV1().Services(e.ns).Get(context.Background(), "vgg16-b", metav1.GetOptions{}); !ktest.IsGone(err) {
		t.Errorf("service vgg16-b: %v, want it gone", err)
	}
}

func countJob(pods map[string]corev1.Pod, job string) int {
	n := 0
	for _, p := range pods {
		if p.Labels[k8s.LabelJob] == job {
			n++
		}
	}
	return n
}

func TestForeignPodIsAConflictNeverTouched(t *testing.T) {
	e := setupParallel(t)
	// The jobs the foreign objects are in the way of, and one they are not.
	e.keepJobs("dssm-a", "inception-a", "resnet50-b", "seq2seq-b")
	ctx := context.Background()
	mk := func(name string, labels map[string]string) corev1.Pod {
		p, err := e.admin.CoreV1().Pods(e.ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec:       corev1.PodSpec{NodeName: "not-a-node", Containers: []corev1.Container{{Name: "c", Image: "someone/else"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return *p
	}
	// Same name as a planned task; and optimus' job labels without managed-by.
	// (On a node that does not exist, so nothing else changes them either.)
	sameName := mk("inception-a-worker-0", map[string]string{"app": "theirs"})
	lookalike := mk("lookalike", map[string]string{k8s.LabelJob: "seq2seq-b", k8s.LabelRole: "worker", k8s.LabelIndex: "0"})
	// A Service of someone else's, named like a job.
	svc, err := e.admin.CoreV1().Services(e.ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "resnet50-b"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	conflicts := map[string]string{
		"inception-a": "pod inception-a-worker-0 exists and is not managed by optimus",
		"resnet50-b":  "service resnet50-b exists and is not managed by optimus",
	}
	for _, r := range rs {
		want := executor.OutcomeDone
		if msg, ok := conflicts[r.Change.Job.Job]; ok {
			want = executor.OutcomeFailed
			if !strings.Contains(r.Message, msg) {
				t.Errorf("conflict message: %s", r.Message)
			}
		}
		if r.Outcome != want {
			t.Errorf("job %s: %s, want %s", r.Change.Job.Job, r.Outcome, want)
		}
	}
	pods := e.pods()
	for job := range conflicts {
		if n := countJob(pods, job); n != 0 {
			t.Errorf("%s: %d pods created despite the conflict", job, n)
		}
	}
	if got, err := e.admin.CoreV1().Services(e.ns).Get(ctx, "resnet50-b", metav1.GetOptions{}); err != nil || got.ResourceVersion != svc.ResourceVersion {
		t.Errorf("foreign service touched: %v", err)
	}
	// Prune with a plan lacking seq2seq-b: its pods go, the look-alike stays.
	if _, err := e.run(x, without(e.plan, "seq2seq-b"), true); err != nil {
		t.Fatal(err)
	}
	pods = e.pods()
	for _, p := range []corev1.Pod{sameName, lookalike} {
		got, ok := pods[p.Name]
		if !ok || got.UID != p.UID || got.ResourceVersion != p.ResourceVersion {
			t.Errorf("foreign pod %s was touched (present %v)", p.Name, ok)
		}
	}
	if n := countJob(pods, "seq2seq-b"); n != 1 {
		t.Errorf("seq2seq-b: %d pods left, want only the look-alike", n)
	}
	cur, _ := x.Current(ctx)
	for _, task := range cur {
		if task.Job == "inception-a" || task.Job == "seq2seq-b" {
			t.Errorf("Current reports %s, which optimus does not manage", task.Name())
		}
	}
}

func TestQuotaRejectsOnePodThenConverges(t *testing.T) {
	e := setupParallel(t)
	ctx := context.Background()
	// A job that starts whole, and the last job in job-name order, whose
	// last pod the quota refuses.
	e.keepJobs("dssm-a", "vgg16-b")
	need := 0
	for _, n := range e.wantPods(e.plan) {
		need += n
	}
	// No controller-manager keeps a quota's usage here: the test sets it.
	q, err := e.admin.CoreV1().ResourceQuotas(e.ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "pods"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(int64(need-1), resource.DecimalSI)}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q.Status = corev1.ResourceQuotaStatus{Hard: q.Spec.Hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}
	if _, err := e.admin.CoreV1().ResourceQuotas(e.ns).UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	x, _ := e.executor(ktest.AdminToken, nil)
	k8s.SetWriters(x, 1) // the quota runs out at the last job in job-name order
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	// One pod more than the quota is needed: the last one, vgg16-b's
	// worker, is rejected, and the 7 pods made for vgg16-b are deleted again.
	for _, r := range rs {
		want := executor.OutcomeDone
		if r.Change.Job.Job == "vgg16-b" {
			want = executor.OutcomeFailed
			for _, s := range []string{"created 0 of 8", "vgg16-b-worker-0: create on " + e.node("gpu-06") + " rejected: refused by a ResourceQuota: ", "exceeded quota", "rolled back", "removed service vgg16-b again"} {
				if !strings.Contains(r.Message, s) {
					t.Errorf("vgg16-b message lacks %q: %s", s, r.Message)
				}
			}
		}
		if r.Outcome != want {
			t.Errorf("job %s: %s, want %s", r.Change.Job.Job, r.Outcome, want)
		}
	}
	if n := countJob(e.pods(), "vgg16-b"); n != 0 {
		t.Errorf("vgg16-b left half started: %d pods", n)
	}
	if _, err := e.admin.CoreV1().Services(e.ns).Get(ctx, "vgg16-b", metav1.GetOptions{}); err == nil {
		t.Error("the failed start left its Service vgg16-b")
	}
	// Lift the quota: applying again starts vgg16-b only.
	if err := e.admin.CoreV1().ResourceQuotas(e.ns).Delete(ctx, "pods", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	rs, err = e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	for _, r := range rs {
		want := executor.OutcomeSkipped
		if r.Change.Job.Job == "vgg16-b" {
			want = executor.OutcomeDone
		}
		if r.Outcome != want {
			t.Errorf("after lifting: job %s: %s, want %s", r.Change.Job.Job, r.Outcome, want)
		}
	}
	cur, _ := x.Current(ctx)
	if got, want := tasksOf(cur), tasksOf(e.plan.Tasks); !reflect.DeepEqual(got, want) {
		t.Errorf("not converged:\n got %v\nwant %v", got, want)
	}
}
