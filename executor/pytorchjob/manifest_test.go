package pytorchjob_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/pytorchjob"
)

func corev1Container(image string) corev1.Container {
	return corev1.Container{Name: "pytorch", Image: image}
}

// change is a start of the allreduce testdata's job.
func change(t *testing.T, job string) executor.Change {
	t.Helper()
	plan, jobs, _ := allReduce(t)
	c := executor.Change{Job: jobs[job], Action: executor.ActionStart, Generation: "g1"}
	for _, tk := range plan.Tasks {
		if tk.Job == job {
			c.To = append(c.To, tk)
		}
	}
	if len(c.To) == 0 {
		t.Fatalf("no tasks of %s", job)
	}
	return c
}

func envOf(c corev1.Container, name string) (string, bool) {
	for _, v := range c.Env {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// imagenet-11's 14 workers: Master on worker 0's node, 13 Worker replicas
// pinned to the other workers' nodes, the operator's container and port
// names, none of the variables the operator sets, the job's image and
// command, the plan's GPUs as requests and limits, and the tasks read back
// as planned.
func TestBuild(t *testing.T) {
	c := change(t, "imagenet-11")
	j, err := pytorchjob.Build(c, k8s.ManifestOptions{Namespace: "train"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Name != "imagenet-11" || j.Namespace != "train" || j.APIVersion != "kubeflow.org/v1" || j.Kind != "PyTorchJob" {
		t.Errorf("object %s/%s %s %s", j.Namespace, j.Name, j.APIVersion, j.Kind)
	}
	if got := []int32{pytorchjob.Replicas(j, pytorchjob.Master), pytorchjob.Replicas(j, pytorchjob.Worker)}; !reflect.DeepEqual(got, []int32{1, 13}) {
		t.Errorf("replicas %v, want [1 13]", got)
	}
	if got := pytorchjob.Nodes(j, pytorchjob.Master); !reflect.DeepEqual(got, []string{"node-03"}) {
		t.Errorf("Master nodes %v", got)
	}
	if got := pytorchjob.Nodes(j, pytorchjob.Worker); !reflect.DeepEqual(got, []string{"node-01", "node-02", "node-03", "node-04", "node-05"}) {
		t.Errorf("Worker nodes %v", got)
	}
	if j.Spec.NprocPerNode == nil || *j.Spec.NprocPerNode != "1" {
		t.Errorf("nprocPerNode %v, want 1 (one GPU a worker)", j.Spec.NprocPerNode)
	}
	for _, rt := range []string{pytorchjob.Master, pytorchjob.Worker} {
		r := j.Spec.PyTorchReplicaSpecs[rt]
		s := r.Template.Spec
		if s.NodeName != "" || s.Hostname != "" || s.Subdomain != "" {
			t.Errorf("%s: bound to %q (hostname %q, subdomain %q): the scheduler places it", rt, s.NodeName, s.Hostname, s.Subdomain)
		}
		if len(s.Containers) != 1 || s.Containers[0].Name != pytorchjob.ContainerName {
			t.Fatalf("%s: containers %v", rt, s.Containers)
		}
		ct := s.Containers[0]
		if ct.Image != c.Job.Image || strings.Join(ct.Command, " ") != c.Job.Command {
			t.Errorf("%s: image %q command %q", rt, ct.Image, ct.Command)
		}
		if g := ct.Resources.Limits[k8s.ResourceGPU]; g.Value() != 1 {
			t.Errorf("%s: GPU limit %v", rt, g)
		}
		if len(ct.Ports) != 1 || ct.Ports[0].Name != pytorchjob.PortName || ct.Ports[0].ContainerPort != k8s.Port {
			t.Errorf("%s: ports %v", rt, ct.Ports)
		}
		for _, name := range []string{"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "NODE_RANK", "PET_NNODES", "PET_NODE_RANK", "TF_CONFIG", "OPTIMUS_INDEX"} {
			if v, ok := envOf(ct, name); ok {
				t.Errorf("%s: %s=%s: the operator sets it per pod", rt, name, v)
			}
		}
		if v, _ := envOf(ct, "OPTIMUS_NUM_WORKERS"); v != "14" {
			t.Errorf("%s: OPTIMUS_NUM_WORKERS %q, want 14", rt, v)
		}
		if l := r.Template.Labels; l[k8s.LabelManagedBy] != k8s.ManagedByValue || l[k8s.LabelJob] != "imagenet-11" || l[k8s.LabelGeneration] != "g1" || l[k8s.LabelIndex] != "" {
			t.Errorf("%s: labels %v", rt, l)
		}
	}
	got, err := pytorchjob.TasksOf(j)
	if err != nil {
		t.Fatal(err)
	}
	if tasksOf(got) != tasksOf(c.To) {
		t.Errorf("read back:\n%s\nplanned:\n%s", tasksOf(got), tasksOf(c.To))
	}
	// The generation is not in the hash: an equal plan of a later
	// generation writes nothing.
	c.Generation = "g2"
	j2, err := pytorchjob.Build(c, k8s.ManifestOptions{Namespace: "train"})
	if err != nil {
		t.Fatal(err)
	}
	if j2.Annotations[k8s.AnnotSpecHash] != j.Annotations[k8s.AnnotSpecHash] {
		t.Errorf("the spec hash depends on the generation")
	}
	// A worker moved within the Worker nodes changes no affinity but the
	// recorded tasks, so the hash.
	c.To[5].Node = "node-01"
	j3, err := pytorchjob.Build(c, k8s.ManifestOptions{Namespace: "train"})
	if err != nil {
		t.Fatal(err)
	}
	if j3.Annotations[k8s.AnnotSpecHash] == j.Annotations[k8s.AnnotSpecHash] {
		t.Errorf("moving worker 5 left the spec hash alone: the next apply would not record it")
	}
}

// A template's volume, toleration and node affinity reach both replica
// types: the checkpoint volume is mounted, and the planned nodes are
// ANDed into the template's own required node selector term.
func TestBuildFromTemplate(t *testing.T) {
	dir := t.TempDir()
	tpl := `spec:
  tolerations:
  - {key: gpu, operator: Exists, effect: NoSchedule}
  volumes:
  - name: checkpoint
    persistentVolumeClaim: {claimName: ckpt}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: zone, operator: In, values: [a]}
`
	if err := os.WriteFile(filepath.Join(dir, "default.yaml"), []byte(tpl), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := k8s.LoadTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	j, err := pytorchjob.Build(change(t, "yolov3-31"), k8s.ManifestOptions{Templates: ts})
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range []string{pytorchjob.Master, pytorchjob.Worker} {
		s := j.Spec.PyTorchReplicaSpecs[rt].Template.Spec
		if len(s.Tolerations) != 1 || len(s.Volumes) != 1 {
			t.Errorf("%s: tolerations %v volumes %v", rt, s.Tolerations, s.Volumes)
		}
		if v, _ := envOf(s.Containers[0], k8s.CheckpointEnv); v != "/checkpoint/yolov3-31" {
			t.Errorf("%s: %s=%q", rt, k8s.CheckpointEnv, v)
		}
		terms := s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Values[0] != "node-02" {
			b, _ := json.Marshal(terms)
			t.Errorf("%s: node selector terms %s", rt, b)
		}
	}
}

// What a PyTorchJob cannot carry is refused, per job, before any write.
func TestBuildRefuses(t *testing.T) {
	ps := change(t, "yolov3-31")
	ps.To = append(ps.To, executor.Task{Job: "yolov3-31", Role: executor.RolePS, Index: 0, Node: "node-02"})
	var pse *pytorchjob.PSError
	if _, err := pytorchjob.Build(ps, k8s.ManifestOptions{}); !errors.As(err, &pse) {
		t.Errorf("PS job: %v, want a PSError", err)
	}
	uneven := change(t, "yolov3-31")
	uneven.To[2].Resources = map[string]float64{"gpu": 2}
	if _, err := pytorchjob.Build(uneven, k8s.ManifestOptions{}); err == nil || !strings.Contains(err.Error(), "different resources") {
		t.Errorf("uneven workers: %v", err)
	}
	long := change(t, "imagenet-11")
	long.Job.Job = strings.Repeat("a", 54)
	for i := range long.To {
		long.To[i].Job = long.Job.Job
	}
	if _, err := pytorchjob.Build(long, k8s.ManifestOptions{}); err == nil || !strings.Contains(err.Error(), "-worker-12") {
		t.Errorf("54-character job: %v, want the pod name the operator would make refused", err)
	}
	bad := change(t, "cifar10-0")
	bad.Job.Job = "Bad_Name"
	bad.To[0].Job = bad.Job.Job
	if _, err := pytorchjob.Build(bad, k8s.ManifestOptions{}); err == nil {
		t.Errorf("job Bad_Name: no error")
	}
	node := change(t, "cifar10-0")
	node.To[0].Node = "node 0\n"
	if _, err := pytorchjob.Build(node, k8s.ManifestOptions{}); err == nil {
		t.Errorf("node %q: no error", node.To[0].Node)
	}
	if j, err := pytorchjob.Build(executor.Change{Job: node.Job, Action: executor.ActionStop}, k8s.ManifestOptions{}); j != nil || err != nil {
		t.Errorf("stop: %v, %v; want no object", j, err)
	}
	// A hand-written tasks annotation that is not optimus' is refused
	// naming the object.
	j, err := pytorchjob.Build(change(t, "cifar10-0"), k8s.ManifestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j.Annotations[pytorchjob.AnnotTasks] = `[{"index":3,"node":"node-00"}]`
	if _, err := pytorchjob.TasksOf(j); err == nil || !strings.Contains(err.Error(), "PyTorchJob cifar10-0") {
		t.Errorf("bad annotation: %v", err)
	}
}
