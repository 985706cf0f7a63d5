package kubernetes_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// trainNodes are four 4-GPU nodes kept for training: label pool=training
// and the taint dedicated=training:NoSchedule, which only pods whose
// template tolerates it may use.
func trainNodes(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	var specs []ktest.NodeSpec
	for i := 0; i < 4; i++ {
		specs = append(specs, ktest.NodeSpec{Name: fmt.Sprintf("train-%d", i), Capacity: map[string]float64{"gpu": 4, "cpu": 32, "memory_gb": 128}})
	}
	ktest.AddNodes(t, e.admin, specs)
	for _, s := range specs {
		n, err := e.admin.CoreV1().Nodes().Get(ctx, s.Name, metav1.GetOptions{})
		must(t, err)
		n.Labels["pool"] = "training"
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "training", Effect: corev1.TaintEffectNoSchedule})
		_, err = e.admin.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		must(t, err)
	}
	t.Cleanup(func() {
		for _, s := range specs {
			_ = e.admin.CoreV1().Nodes().Delete(ctx, s.Name, metav1.DeleteOptions{})
		}
	})
}

func templatePlan(torchWorkers []string, mxnetWorkers []string) apply.Plan {
	var p apply.Plan
	p.Jobs = []apply.PlanJob{{Job: torchJob.Job, Status: "running"}, {Job: mxnetJob.Job, Status: "running"}}
	for i, n := range torchWorkers {
		p.Tasks = append(p.Tasks, task(torchJob.Job, "worker", i, n, map[string]float64{"gpu": 2, "cpu": 4, "memory_gb": 16}))
	}
	if mxnetWorkers != nil {
		p.Tasks = append(p.Tasks, task(mxnetJob.Job, "ps", 0, "train-2", map[string]float64{"cpu": 4, "memory_gb": 8}))
	}
	for i, n := range mxnetWorkers {
		p.Tasks = append(p.Tasks, task(mxnetJob.Job, "worker", i, n, map[string]float64{"gpu": 1, "cpu": 2, "memory_gb": 8}))
	}
	return p
}

// Issue 23's bar for pod templates: a PyTorch all-reduce job and an MXNet
// PS job whose templates carry a checkpoint volume and a toleration are
// applied onto tainted nodes, resized and pruned on the real API server,
// around pods of another scheduler on their nodes.
func TestTemplatedJobsApplyResizePrune(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	trainNodes(t, e)
	e.jobs = map[string]executor.Job{torchJob.Job: torchJob, mxnetJob.Job: mxnetJob}
	_, err := e.admin.CoreV1().ServiceAccounts(e.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "trainer"}}, metav1.CreateOptions{})
	must(t, err)
	other := ktest.Namespace(t, e.admin)
	foreignPod(t, e, other, "render-0", "train-3", 3, 0, "") // leaves train-3 one GPU
	foreignPod(t, e, other, "render-1", "train-1", 1, 2, "")

	plan := templatePlan([]string{"train-0", "train-1"}, []string{"train-2", "train-3"})
	// Without templates the taint keeps every job off the nodes.
	bare, c := e.executor(ktest.AdminToken, nil)
	if _, err := e.run(bare, plan, false); err == nil || !strings.Contains(err.Error(), "has the taint dedicated=training:NoSchedule") {
		t.Fatalf("without templates: %v, want the taint named", err)
	}
	if w := c.Writes(); len(w) != 0 {
		t.Fatalf("refused plan wrote %v", w)
	}

	x, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Templates = loadTestTemplates(t) })
	rs, err := e.run(x, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	allDone(t, rs, 2)
	if got := strings.Join(x.Notes(), "; "); got != "allocatable less the requests of 2 pods optimus does not manage on 2 nodes" {
		t.Errorf("notes: %q", got)
	}
	pods := e.pods()
	if len(pods) != 6 { // 2 PyTorch workers; MXNet ps, 2 workers, scheduler
		t.Fatalf("%d pods, want 6", len(pods))
	}
	for _, p := range pods {
		var vol, tol bool
		for _, v := range p.Spec.Volumes {
			vol = vol || v.Name == k8s.CheckpointVolume
		}
		for _, x := range p.Spec.Tolerations {
			tol = tol || x.Key == "dedicated"
		}
		ck, _ := envIn(&p.Spec.Containers[0], k8s.CheckpointEnv)
		if !vol || !tol || ck == "" || p.Spec.Containers[0].Name != k8s.TaskContainer {
			t.Errorf("pod %s: checkpoint volume %v, toleration %v, %s=%q, first container %q", p.Name, vol, tol, k8s.CheckpointEnv, ck, p.Spec.Containers[0].Name)
		}
	}
	w1 := pods["bert-ddp-worker-1"]
	if got, _ := envIn(&w1.Spec.Containers[0], "WORLD_SIZE"); got != "4" {
		t.Errorf("bert-ddp-worker-1: WORLD_SIZE %q, want 4 (2 pods of 2 GPUs)", got)
	}
	if got, _ := envIn(&w1.Spec.Containers[0], "MASTER_ADDR"); got != "bert-ddp-worker-0.bert-ddp" {
		t.Errorf("bert-ddp-worker-1: MASTER_ADDR %q", got)
	}
	if pods["resnet-ps-ps-0"].Spec.ServiceAccountName != "trainer" {
		t.Errorf("resnet-ps-ps-0: service account %q", pods["resnet-ps-ps-0"].Spec.ServiceAccountName)
	}
	svc, err := e.admin.CoreV1().Services(e.ns).Get(ctx, "bert-ddp", metav1.GetOptions{})
	must(t, err)
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("bert-ddp's Service is not headless: %q", svc.Spec.ClusterIP)
	}
	// The same plan again writes nothing.
	x2, c2 := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Templates = loadTestTemplates(t) })
	if _, err := e.run(x2, plan, false); err != nil {
		t.Fatal(err)
	}
	if w := c2.Writes(); len(w) != 0 {
		t.Errorf("re-apply wrote %v", w)
	}

	// Resize both: a third PyTorch worker, which does not fit beside the
	// foreign pod on train-3 ...
	uids := map[string]types.UID{}
	for n, p := range pods {
		uids[n] = p.UID
	}
	tooFull := templatePlan([]string{"train-0", "train-1", "train-3"}, []string{"train-2", "train-3"})
	if err := x.Validate(ctx, tooFull.Tasks, e.jobs); err == nil || !strings.Contains(err.Error(), `node "train-3": the plan's tasks use 3 gpu, the node has 1 (allocatable 4 less 3 requested by pods optimus does not manage)`) {
		t.Fatalf("over train-3: %v", err)
	}
	// ... so on train-2; and a third MXNet worker.
	resized := templatePlan([]string{"train-0", "train-1", "train-2"}, []string{"train-2", "train-3", "train-0"})
	rs, err = e.run(x, resized, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	allDone(t, rs, 2)
	pods = e.pods()
	if len(pods) != 8 {
		t.Fatalf("%d pods after the resize, want 8", len(pods))
	}
	for n, p := range pods {
		if uids[n] != "" && uids[n] == p.UID {
			t.Errorf("pod %s was not restarted by its job's resize", n)
		}
		c := &p.Spec.Containers[0]
		switch p.Labels[k8s.LabelJob] {
		case torchJob.Job:
			if got, _ := envIn(c, "WORLD_SIZE"); got != "6" {
				t.Errorf("%s: WORLD_SIZE %q, want 6", n, got)
			}
			if got, _ := envIn(c, "PET_NNODES"); got != "3" {
				t.Errorf("%s: PET_NNODES %q, want 3", n, got)
			}
		case mxnetJob.Job:
			if got, _ := envIn(c, "DMLC_NUM_WORKER"); got != "3" {
				t.Errorf("%s: DMLC_NUM_WORKER %q, want 3", n, got)
			}
		}
	}

	// Prune the MXNet job: its pods and Service go, the PyTorch job stays.
	rs, err = e.run(x, templatePlan([]string{"train-0", "train-1", "train-2"}, nil), true)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	for _, r := range rs {
		if r.Outcome != executor.OutcomeDone && r.Outcome != executor.OutcomeSkipped {
			t.Errorf("prune: %s %s %s", r.Change.Job.Job, r.Outcome, r.Message)
		}
	}
	pods = e.pods()
	for n, p := range pods {
		if p.Labels[k8s.LabelJob] != torchJob.Job {
			t.Errorf("pod %s left after the prune", n)
		}
	}
	if len(pods) != 3 {
		t.Errorf("%d pods after the prune, want the 3 PyTorch workers", len(pods))
	}
	if _, err := e.admin.CoreV1().Services(e.ns).Get(ctx, mxnetJob.Job, metav1.GetOptions{}); !ktest.IsGone(err) {
		t.Errorf("resnet-ps's Service after the prune: %v", err)
	}
}
