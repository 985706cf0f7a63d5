package kubernetes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// allReduce is apply/testdata/allreduce: the pipeline's plan for 8
// all-reduce jobs of Pollux's workload-1 (24 workers, no PS) on 6 nodes of
// 4 GPUs, its jobs and those nodes.
func allReduce(t *testing.T) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec) {
	t.Helper()
	return readTestdata(t, "../../apply/testdata/allreduce")
}

// checkAllReducePod fails unless p is a worker whose peers are workers
// only: TF_CONFIG names no "ps", no DMLC_* variable points at servers or a
// scheduler that do not exist, and a PyTorch job's pods have torchrun's
// variables.
func checkAllReducePod(t *testing.T, p corev1.Pod, workers int) {
	t.Helper()
	if p.Labels[k8s.LabelRole] != executor.RoleWorker {
		t.Errorf("pod %s: role %q, want worker", p.Name, p.Labels[k8s.LabelRole])
	}
	if envOf(p, "OPTIMUS_NUM_PS") != "0" || envOf(p, "OPTIMUS_NUM_WORKERS") != fmt.Sprint(workers) {
		t.Errorf("pod %s: OPTIMUS_NUM_PS %q, OPTIMUS_NUM_WORKERS %q; want 0 and %d", p.Name, envOf(p, "OPTIMUS_NUM_PS"), envOf(p, "OPTIMUS_NUM_WORKERS"), workers)
	}
	for _, v := range p.Spec.Containers[0].Env {
		if strings.HasPrefix(v.Name, "DMLC_") {
			t.Errorf("pod %s: %s=%s in an all-reduce job", p.Name, v.Name, v.Value)
		}
	}
	// A PyTorch job's (the testdata's torchrun image): torchrun's
	// variables, one process per pod (one GPU each), worker 0 the master.
	if strings.Contains(p.Spec.Containers[0].Image, "pytorch") {
		idx := p.Labels[k8s.LabelIndex]
		want := map[string]string{"WORLD_SIZE": fmt.Sprint(workers), "RANK": idx, "NODE_RANK": idx, "LOCAL_WORLD_SIZE": "1",
			"PET_NNODES": fmt.Sprint(workers), "MASTER_PORT": "2222",
			"MASTER_ADDR": p.Labels[k8s.LabelJob] + "-worker-0." + p.Labels[k8s.LabelJob]}
		for k, v := range want {
			if got := envOf(p, k); got != v {
				t.Errorf("pod %s: %s=%q, want %q", p.Name, k, got, v)
			}
		}
	}
	if tf := envOf(p, "TF_CONFIG"); tf != "" {
		var cfg struct{ Cluster map[string][]string }
		if err := json.Unmarshal([]byte(tf), &cfg); err != nil {
			t.Fatal(err)
		}
		if _, ok := cfg.Cluster["ps"]; ok || len(cfg.Cluster["worker"]) != workers {
			t.Errorf("pod %s: TF_CONFIG cluster %v, want %d workers and no ps", p.Name, cfg.Cluster, workers)
		}
	}
}

// The manifests of an all-reduce plan: one Service and only worker pods
// per job, PyTorch's torchrun variables, and an MXNet job
// (Horovod or a device kvstore) no scheduler pod and no DMLC_* servers.
func TestManifestsAllReduce(t *testing.T) {
	plan, jobs, _ := allReduce(t)
	for _, fw := range []string{"pytorch", "mxnet"} {
		js := map[string]executor.Job{}
		for k, j := range jobs {
			if fw == "mxnet" {
				j.Image = "example.com/optimus/mxnet-horovod:1.9"
			}
			js[k] = j
		}
		changes, _ := apply.Diff(plan, nil, js, apply.Options{Generation: apply.Generation(plan)})
		var buf bytes.Buffer
		if err := k8s.WriteManifests(&buf, changes, k8s.ManifestOptions{Namespace: "ml"}); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, doc := range strings.Split(buf.String(), "---\n") {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatal(err)
			}
			kinds[meta.Kind]++
			if meta.Kind != "Pod" {
				continue
			}
			var p corev1.Pod
			if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
				t.Fatal(err)
			}
			workers := 0
			for _, tk := range plan.Tasks {
				if tk.Job == p.Labels[k8s.LabelJob] {
					workers++
				}
			}
			checkAllReducePod(t, p, workers)
		}
		if kinds["Pod"] != 24 || kinds["Service"] != 8 || len(kinds) != 2 {
			t.Errorf("%s: %v, want 24 pods (the plan's workers) and 8 Services", fw, kinds)
		}
	}
}

// The all-reduce plan against a real API server: every job starts with
// its workers only, on the planned nodes, and the same plan again writes
// nothing.
func TestApplyAllReduce(t *testing.T) {
	e := setupParallelWith(t, allReduce) // its nodes (node-00 to node-05) beside the testbed's
	x, c := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	allDone(t, rs, 8)
	if got, want := ktest.Summary(c.Writes()), fmt.Sprintf("POST leases: 1, POST pods: 24, POST selfsubjectaccessreviews: %d, POST services: 8, PUT leases: 1", len(k8s.Needed)); got != want {
		t.Errorf("writes %s, want %s", got, want)
	}
	pods := e.pods()
	if len(pods) != 24 {
		t.Fatalf("%d pods, want 24", len(pods))
	}
	want := map[string]string{}
	workers := map[string]int{}
	for _, tk := range e.plan.Tasks {
		want[tk.Name()] = tk.Node
		workers[tk.Job]++
	}
	for name, p := range pods {
		if p.Spec.NodeName != want[name] {
			t.Errorf("pod %s on %q, planned on %q", name, p.Spec.NodeName, want[name])
		}
		checkAllReducePod(t, p, workers[p.Labels[k8s.LabelJob]])
	}
	cur, err := x.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, plan := tasksOf(cur), tasksOf(e.plan.Tasks); strings.Join(got, "\n") != strings.Join(plan, "\n") {
		t.Errorf("running now:\n%s\nplanned:\n%s", strings.Join(got, "\n"), strings.Join(plan, "\n"))
	}
	c.Reset()
	rs, err = e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allSkipped(t, "again", rs)
	for _, w := range c.Writes() {
		if !strings.Contains(w, "leases") && !strings.Contains(w, "selfsubjectaccessreviews") {
			t.Errorf("again: wrote %s", w)
		}
	}
}
