package kubernetes_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// atCreate calls f, once, at the first create of a worker-1 pod (its job
// has created pods before it) from the nth pod create of a parallel apply
// (4 jobs written at once) on, and returns what f returns.
func atCreate(x *k8s.Executor, n int, f func() error) {
	count, done := 0, false
	k8s.SetBeforeWrite(x, func(w string) error { // called one at a time
		if strings.HasPrefix(w, "create pod ") {
			if count++; count >= n && !done && strings.HasSuffix(w, "-worker-1") {
				done = true
				return f()
			}
		}
		return nil
	})
	k8s.SetWriters(x, 4)
}

// Interrupted while four jobs are written at once: every job is either
// whole or rolled back with its Service, and says it was interrupted.
func TestParallelApplyInterruptedLeavesNoHalfJob(t *testing.T) {
	e := setupParallel(t)
	x, _ := e.executor(ktest.AdminToken, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	atCreate(x, 12, func() error { cancel(); return nil })
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{Generation: apply.Generation(e.plan)})
	rs, err := x.Apply(ctx, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	want := e.wantPods(e.plan)
	pods, svcs := e.jobsOnCluster()
	rolled := 0
	for _, r := range rs {
		job := r.Change.Job.Job
		if r.Outcome == executor.OutcomeDone {
			if pods[job] != want[job] {
				t.Errorf("done job %s has %d of %d pods", job, pods[job], want[job])
			}
			continue
		}
		if strings.Contains(r.Message, "rolled back") {
			rolled++
		}
		if r.Outcome != executor.OutcomeFailed || pods[job] != 0 || !strings.Contains(r.Message, "interrupted") {
			t.Errorf("job %s: %s with %d pods: %s", job, r.Outcome, pods[job], r.Message)
		}
		if _, ok := svcs[job]; ok {
			t.Errorf("job %s not started but its Service is left", job)
		}
	}
	if rolled == 0 {
		t.Error("no job was rolled back")
	}
}

// Killed while four jobs are written at once: the half-started jobs keep
// their journals, a re-apply finishes every one, and the plan again writes
// nothing.
func TestParallelApplyKilledIsFinished(t *testing.T) {
	e := setupParallel(t)
	// Five jobs, 31 pods: four written at once, the kill at the 12th create
	// or after, and a fifth job not begun.
	e.keepJobs("dssm-a", "inception-a", "inception-b", "seq2seq-a", "vgg16-b")
	x, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseDuration = "killed", 2*time.Second })
	atCreate(x, 12, func() error { return errKilled })
	if _, err := e.run(x, e.plan, false); !errors.Is(err, errKilled) {
		t.Fatalf("killed apply: %v", err)
	}
	want := e.wantPods(e.plan)
	pods, svcs := e.jobsOnCluster()
	half := 0
	for job, n := range pods {
		if n != want[job] {
			half++
			if svcs[job] == "" {
				t.Errorf("half-started job %s (%d of %d pods) has no journal", job, n, want[job])
			}
		}
	}
	t.Logf("killed with %d jobs half started: %v", half, pods)
	atKill := pods
	next, c := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(next, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	// Which jobs the parallel writers had finished before the kill varies
	// from run to run: those are already running as planned; every other
	// job is done now.
	if len(rs) != len(e.plan.Jobs) {
		t.Fatalf("%d results, want %d: %v", len(rs), len(e.plan.Jobs), outcomes(rs))
	}
	for _, r := range rs {
		job := r.Change.Job.Job
		complete := atKill[job] == want[job] && r.Outcome == executor.OutcomeSkipped && strings.Contains(r.Message, "already running as planned")
		if r.Outcome != executor.OutcomeDone && !complete {
			logResults(t, rs)
			t.Fatalf("job %s (%d of %d pods at the kill): %s %s", job, atKill[job], want[job], r.Outcome, r.Message)
		}
	}
	pods, _ = e.jobsOnCluster()
	for job, n := range want {
		if pods[job] != n {
			t.Errorf("job %s: %d of %d pods", job, pods[job], n)
		}
	}
	c.Reset()
	if _, err := e.run(next, e.plan, false); err != nil {
		t.Fatal(err)
	}
	if w := c.Writes(); len(w) > 0 {
		t.Errorf("the plan again wrote %v", w)
	}
}

// Every pod optimus creates names its job's Service as its controller, by
// the UID the API server gave the Service: deleting the Service has the
// garbage collector delete the pods, and kubectl drain, whose filters
// (k8s.io/kubectl/pkg/drain, filters.go) refuse a pod without a controller
// unless --force and look a DaemonSet controller up, evicts them.
func TestPodsOwnedByTheirService(t *testing.T) {
	e := setupParallel(t)
	// Two jobs: every role (parameter server, worker, scheduler) is in each.
	e.keepJobs("dssm-a", "resnet50-a")
	fresh(t, e)
	ctx := context.Background()
	svcs, err := e.admin.CoreV1().Services(e.ns).List(ctx, metav1.ListOptions{})
	must(t, err)
	uid := map[string]string{}
	for _, s := range svcs.Items {
		uid[s.Name] = string(s.UID)
	}
	ds := appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	n := 0
	for name, p := range e.pods() {
		n++
		ref := metav1.GetControllerOf(&p)
		switch {
		case ref == nil:
			t.Errorf("pod %s declares no controller: kubectl drain refuses it without --force", name)
		case ref.APIVersion == ds.GroupVersion().String() && ref.Kind == ds.Kind:
			t.Errorf("pod %s: controller is a DaemonSet", name)
		case ref.APIVersion != "v1" || ref.Kind != "Service" || ref.Name != p.Labels[k8s.LabelJob] || string(ref.UID) != uid[ref.Name] || uid[ref.Name] == "":
			t.Errorf("pod %s: controller %+v, want Service %s (uid %s)", name, *ref, p.Labels[k8s.LabelJob], uid[p.Labels[k8s.LabelJob]])
		case len(p.OwnerReferences) != 1 || p.OwnerReferences[0].BlockOwnerDeletion != nil:
			t.Errorf("pod %s: owner references %+v", name, p.OwnerReferences)
		}
	}
	total := 0
	for _, k := range e.wantPods(e.plan) {
		total += k
	}
	if n != total {
		t.Errorf("%d pods, want %d", n, total)
	}
}

// A job the plan no longer names, left running without --prune, keeps its
// pods' requests on their nodes: a plan that gives them to another job is
// refused before any write, saying so (it was accepted, and the kubelet
// refused the pods: 5 GPUs on a 4-GPU node); with --prune it is accepted.
func TestLeftRunningJobsCountInCapacity(t *testing.T) {
	e := setupParallel(t)
	// The job picked below (most GPUs on one node: dssm-a's 2 on gpu-02) and
	// the one beside it there (vgg16-a): the testbed's case, without the
	// jobs on other nodes.
	e.keepJobs("dssm-a", "vgg16-a")
	fresh(t, e)
	ctx := context.Background()
	// The job with most GPUs on one node, and what the others use there.
	gpus := map[string]map[string]float64{}
	for _, t := range e.plan.Tasks {
		if gpus[t.Node] == nil {
			gpus[t.Node] = map[string]float64{}
		}
		gpus[t.Node][t.Job] += t.Resources["gpu"]
	}
	var job, node string
	for n, byJob := range gpus {
		for j, g := range byJob {
			if g > 0 && (job == "" || g > gpus[node][job] || g == gpus[node][job] && n+j < node+job) {
				job, node = j, n
			}
		}
	}
	if job == "" {
		t.Fatal("no job uses GPUs")
	}
	capacity := 0.0
	for _, n := range e.cluster {
		if n.Name == node {
			capacity = n.Capacity["gpu"]
		}
	}
	others := 0.0
	for j, g := range gpus[node] {
		if j != job {
			others += g
		}
	}
	plan := without(e.plan, job)
	extra := e.jobs[job]
	extra.Job = "extra"
	jobs := map[string]executor.Job{"extra": extra}
	for k, v := range e.jobs {
		jobs[k] = v
	}
	plan.Jobs = append(plan.Jobs, apply.PlanJob{Job: "extra", Status: "running"})
	plan.Tasks = append(plan.Tasks, executor.Task{Job: "extra", Role: executor.RoleWorker, Index: 0, Node: node,
		Resources: map[string]float64{"gpu": capacity - others, "cpu": 0.1, "memory_gb": 0.25}})
	t.Logf("%s left running with %g GPUs on %s (%g GPUs); extra asks for %g", job, gpus[node][job], node, capacity, capacity-others)

	x, c := e.executor(ktest.AdminToken, nil)
	_, err := apply.Run(ctx, x, plan, jobs, apply.RunOptions{})
	if !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), `node "`+node+`"`) ||
		!strings.Contains(err.Error(), "jobs the plan leaves running (not in the plan; --prune stops them)") {
		t.Errorf("without --prune: %v, want the node's capacity refused for the job left running", err)
	}
	if w := c.Writes(); len(w) > 0 {
		t.Errorf("wrote %v", w)
	}
	rep, err := apply.Run(ctx, x, plan, jobs, apply.RunOptions{DryRun: true, Options: apply.Options{Prune: true}})
	if err != nil {
		t.Fatalf("with --prune: %v", err)
	}
	stops := 0
	for _, r := range rep.Results {
		if r.Change.Job.Job == job && r.Change.Action == executor.ActionStop {
			stops++
		}
	}
	if stops != 1 {
		t.Errorf("with --prune: %v, want %s stopped", outcomes(rep.Results), job)
	}
}

// A pod template's required node affinity is checked against each planned
// node before any write; the refusal names the job, the template and the
// node. Labelling the nodes as it asks makes the plan pass.
func TestTemplateNodeAffinityCheckedBeforeWrites(t *testing.T) {
	e := setupParallel(t)
	ctx := context.Background()
	job := e.plan.Tasks[0].Job
	dir := t.TempDir()
	file := filepath.Join(dir, job+".yaml")
	must(t, os.WriteFile(file, []byte(`spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: pool, operator: In, values: [training]}
              - {key: gpu-broken, operator: DoesNotExist}
`), 0o644))
	ts, err := k8s.LoadTemplates(dir)
	must(t, err)
	x, c := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Templates = ts })
	err = x.Validate(ctx, e.plan.Tasks, e.jobs)
	first := e.plan.Tasks[0]
	want := `job "` + job + `", task ` + first.Name() + `: node "` + first.Node + `" matches none of the nodeSelectorTerms of the required node affinity (requiredDuringSchedulingIgnoredDuringExecution) of its pod template ` + file
	if !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Validate: %v\nwant %q", err, want)
	}
	nodes := map[string]bool{}
	for _, tk := range e.plan.Tasks {
		if tk.Job == job {
			nodes[tk.Node] = true
		}
	}
	e.nodesChanged = true
	for name := range nodes {
		n, err := e.admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		must(t, err)
		n.Labels["pool"] = "training"
		_, err = e.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		must(t, err)
	}
	if err := x.Validate(ctx, e.plan.Tasks, e.jobs); err != nil {
		t.Errorf("Validate with the nodes labelled: %v", err)
	}
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("Validate wrote %v", w)
	}
}
