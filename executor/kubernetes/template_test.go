package kubernetes_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

// A template file with a field Kubernetes does not know (or one optimus
// sets itself) is refused, exit 2, naming the file and the field.
func TestLoadTemplatesRefusesBadFiles(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown field, bare spec", "spec:\n  tolerations:\n    - key: a\n      efect: NoSchedule\n", `unknown field "spec.tolerations[0].efect"`},
		{"unknown field, PodTemplate", "apiVersion: v1\nkind: PodTemplate\ntemplate:\n  spec:\n    volumez: []\n", `unknown field "template.spec.volumez"`},
		{"duplicate field", "spec:\n  serviceAccountName: a\n  serviceAccountName: b\n", `"serviceAccountName" already set`},
		{"another kind", "apiVersion: apps/v1\nkind: Deployment\n", `kind "Deployment"`},
		{"nodeName", "spec:\n  nodeName: gpu-01\n", "spec.nodeName: the plan places the pods"},
		{"namespace", "metadata:\n  namespace: kube-system\n", "metadata.namespace"},
		{"optimus label", "metadata:\n  labels:\n    optimus.dev/job: x\n", "optimus.dev/job is optimus' own"},
		{"two containers of one name", "spec:\n  containers:\n    - name: a\n    - name: a\n", `two containers named "a"`},
		{"not YAML", "spec: [\n", "not YAML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "bert.yaml")
			if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := k8s.LoadTemplates(dir)
			var ue *executor.UsageError
			if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadTemplates: %v; want a usage error naming %s and %q", err, file, tc.want)
			}
		})
	}
	if _, err := k8s.LoadTemplates(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing directory was accepted")
	}
}

func loadTestTemplates(t *testing.T) *k8s.Templates {
	t.Helper()
	ts, err := k8s.LoadTemplates("testdata/templates")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ts.Names(), ","); got != "default,resnet-50" {
		t.Fatalf("templates %s", got)
	}
	return ts
}

// The two template jobs of the tests: a PyTorch all-reduce job (the
// default template) and an MXNet PS job (its family's template).
var (
	torchJob = executor.Job{Job: "bert-ddp", Model: "bert", Mode: "allreduce", GlobalBatch: 256,
		Image: "example.com/optimus/pytorch-ddp:2.4", Command: "torchrun train.py --model bert"}
	mxnetJob = executor.Job{Job: "resnet-ps", Model: "resnet-50", Mode: "sync", GlobalBatch: 64,
		Image: "example.com/optimus/mxnet-train:1.9", Command: "python train_imagenet.py --network resnet --kv-store dist_sync"}
)

func task(job, role string, index int, node string, res map[string]float64) executor.Task {
	return executor.Task{Job: job, Role: role, Index: index, Node: node, Resources: res}
}

func container(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

func envIn(c *corev1.Container, name string) (string, int) {
	v, n := "", 0
	for _, e := range c.Env {
		if e.Name == name {
			v, n = e.Value, n+1
		}
	}
	return v, n
}

// A template's volumes, tolerations, node selector, service account,
// pull secrets, env and extra containers reach every pod; optimus'
// placement, requests, labels and variables win; the checkpoint volume is
// mounted and named by OPTIMUS_CHECKPOINT_DIR.
func TestPodsFromTemplates(t *testing.T) {
	ts := loadTestTemplates(t)
	mo := k8s.ManifestOptions{Namespace: "ml", Templates: ts}
	gpu2 := map[string]float64{"gpu": 2, "cpu": 4, "memory_gb": 16}
	torch, err := k8s.Pods(executor.Change{Job: torchJob, Action: executor.ActionStart, To: []executor.Task{
		task("bert-ddp", "worker", 0, "train-0", gpu2), task("bert-ddp", "worker", 1, "train-1", gpu2)}}, mo)
	if err != nil {
		t.Fatal(err)
	}
	if len(torch) != 2 {
		t.Fatalf("%d pods, want 2", len(torch))
	}
	for i, p := range torch {
		c := container(p, k8s.TaskContainer)
		if c == nil || p.Spec.Containers[0].Name != k8s.TaskContainer || container(p, "log-shipper") == nil || len(p.Spec.Containers) != 2 {
			t.Fatalf("pod %s: containers %v, want task and log-shipper", p.Name, p.Spec.Containers)
		}
		if p.Spec.NodeName != []string{"train-0", "train-1"}[i] || p.Spec.Hostname != p.Name || p.Spec.Subdomain != "bert-ddp" {
			t.Errorf("pod %s: node %q hostname %q subdomain %q", p.Name, p.Spec.NodeName, p.Spec.Hostname, p.Spec.Subdomain)
		}
		if len(p.Spec.Tolerations) != 1 || p.Spec.Tolerations[0].Key != "dedicated" || len(p.Spec.Volumes) != 2 {
			t.Errorf("pod %s: tolerations %v volumes %v", p.Name, p.Spec.Tolerations, p.Spec.Volumes)
		}
		if p.Labels["team"] != "research" || p.Labels[k8s.LabelManagedBy] != k8s.ManagedByValue || p.Labels[k8s.LabelJob] != "bert-ddp" {
			t.Errorf("pod %s: labels %v", p.Name, p.Labels)
		}
		want := map[string]string{
			"MASTER_ADDR": "bert-ddp-worker-0.bert-ddp", "MASTER_PORT": "2222", "WORLD_SIZE": "4",
			"RANK": []string{"0", "2"}[i], "NODE_RANK": []string{"0", "1"}[i], "LOCAL_WORLD_SIZE": "2",
			"PET_NNODES": "2", "PET_NODE_RANK": []string{"0", "1"}[i], "PET_NPROC_PER_NODE": "2",
			"PET_MASTER_ADDR": "bert-ddp-worker-0.bert-ddp", "PET_MASTER_PORT": "2222",
			"NCCL_DEBUG": "INFO", k8s.CheckpointEnv: "/ckpt/bert-ddp", "OPTIMUS_NUM_WORKERS": "2",
		}
		for k, v := range want {
			if got, n := envIn(c, k); got != v || n != 1 {
				t.Errorf("pod %s: %s=%q (%d times), want %q once", p.Name, k, got, n, v)
			}
		}
		if _, n := envIn(c, "TF_CONFIG"); n != 0 {
			t.Errorf("pod %s: TF_CONFIG in a PyTorch job", p.Name)
		}
		if got := c.Resources.Requests.Name(k8s.ResourceGPU, "").String(); got != "2" {
			t.Errorf("pod %s: %s GPUs requested", p.Name, got)
		}
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.Name] = m.MountPath
		}
		if mounts["checkpoint"] != "/ckpt" || mounts["dshm"] != "/dev/shm" || len(mounts) != 2 {
			t.Errorf("pod %s: mounts %v", p.Name, mounts)
		}
	}

	ps := map[string]float64{"cpu": 4, "memory_gb": 8}
	wk := map[string]float64{"gpu": 1, "cpu": 2, "memory_gb": 8}
	mx, err := k8s.Pods(executor.Change{Job: mxnetJob, Action: executor.ActionStart, To: []executor.Task{
		task("resnet-ps", "ps", 0, "train-2", ps), task("resnet-ps", "worker", 0, "train-2", wk), task("resnet-ps", "worker", 1, "train-3", wk)}}, mo)
	if err != nil {
		t.Fatal(err)
	}
	if len(mx) != 4 {
		t.Fatalf("%d pods, want ps, 2 workers and the scheduler", len(mx))
	}
	for _, p := range mx {
		c := container(p, k8s.TaskContainer)
		if p.Spec.ServiceAccountName != "trainer" || len(p.Spec.ImagePullSecrets) != 1 || p.Spec.NodeSelector["pool"] != "training" || p.Labels["team"] != "vision" {
			t.Errorf("pod %s: service account %q, pull secrets %v, node selector %v, labels %v", p.Name, p.Spec.ServiceAccountName, p.Spec.ImagePullSecrets, p.Spec.NodeSelector, p.Labels)
		}
		if got, _ := envIn(c, k8s.CheckpointEnv); got != "/checkpoint/resnet-ps" {
			t.Errorf("pod %s: %s=%q", p.Name, k8s.CheckpointEnv, got)
		}
		if got, _ := envIn(c, "PS_VERBOSE"); got != "1" {
			t.Errorf("pod %s: PS_VERBOSE %q", p.Name, got)
		}
		if q := c.Resources.Limits[corev1.ResourceEphemeralStorage]; q.String() != "20Gi" {
			t.Errorf("pod %s: ephemeral-storage limit %s", p.Name, q.String())
		}
		// Every pod requests cpu and memory, so a quota admits it.
		if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
			t.Errorf("pod %s requests no cpu: %v", p.Name, c.Resources.Requests)
		}
		if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
			t.Errorf("pod %s requests no memory: %v", p.Name, c.Resources.Requests)
		}
	}
	// The scheduler's requests come out of ps-0's: together they request
	// what the plan gave the PS.
	sum := map[string]float64{}
	for _, p := range mx {
		if p.Spec.NodeName == "train-2" && p.Labels[k8s.LabelRole] != "worker" {
			for r, v := range k8s.PodRequests(p) {
				sum[r] += v
			}
		}
	}
	if sum["cpu"] != 4 || sum["memory_gb"] != 8 {
		t.Errorf("ps-0 and the scheduler request %v, want the PS's cpu 4, memory_gb 8", sum)
	}
	// A PyTorch job given parameter servers is refused.
	_, err = k8s.Pods(executor.Change{Job: torchJob, Action: executor.ActionStart, To: []executor.Task{
		task("bert-ddp", "ps", 0, "train-0", ps), task("bert-ddp", "worker", 0, "train-0", gpu2)}}, mo)
	if err == nil || !strings.Contains(err.Error(), "set its mode to allreduce") {
		t.Errorf("PyTorch job with a PS: %v", err)
	}
}
