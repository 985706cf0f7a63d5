package kubernetes_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

func tfChange() executor.Change {
	res := map[string]float64{"gpu": 1, "cpu": 2.5, "memory_gb": 6, "net_gbps": 1}
	return executor.Change{
		Job:    executor.Job{Job: "bert-a", Model: "bert", Mode: "async", Image: "tensorflow/tensorflow:2.16.1-gpu", Command: `python train.py --name "my run"`},
		Action: executor.ActionStart,
		To: []executor.Task{
			{Job: "bert-a", Role: "worker", Index: 1, Node: "n2", Resources: res},
			{Job: "bert-a", Role: "ps", Index: 0, Node: "n1", Resources: map[string]float64{"cpu": 1, "memory_gb": 2}},
			{Job: "bert-a", Role: "worker", Index: 0, Node: "n1", Resources: res},
		},
		Generation: "g1",
	}
}

// A TensorFlow job: TF_CONFIG names every peer by its stable DNS name, no
// scheduler pod, the command split like a shell would, requests = limits.
func TestPodsTensorFlow(t *testing.T) {
	pods, err := k8s.Pods(tfChange(), k8s.ManifestOptions{Namespace: "ml"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods {
		names = append(names, p.Name+"@"+p.Spec.NodeName)
	}
	if want := []string{"bert-a-ps-0@n1", "bert-a-worker-0@n1", "bert-a-worker-1@n2"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("pods %v, want %v", names, want)
	}
	w1 := pods[2]
	var cfg struct {
		Cluster map[string][]string
		Task    struct {
			Type  string
			Index int
		}
	}
	if err := json.Unmarshal([]byte(envOf(*w1, "TF_CONFIG")), &cfg); err != nil {
		t.Fatal(err)
	}
	wantCluster := map[string][]string{"ps": {"bert-a-ps-0.bert-a:2222"}, "worker": {"bert-a-worker-0.bert-a:2222", "bert-a-worker-1.bert-a:2222"}}
	if !reflect.DeepEqual(cfg.Cluster, wantCluster) || cfg.Task.Type != "worker" || cfg.Task.Index != 1 {
		t.Errorf("TF_CONFIG %+v", cfg)
	}
	if envOf(*w1, "DMLC_ROLE") != "" {
		t.Error("a TensorFlow job got DMLC variables")
	}
	if got := w1.Spec.Containers[0].Command; !reflect.DeepEqual(got, []string{"python", "train.py", "--name", "my run"}) {
		t.Errorf("command %q", got)
	}
	r := w1.Spec.Containers[0].Resources
	if got := r.Requests.Cpu().String() + " " + r.Requests.Memory().String(); got != "2500m 6Gi" {
		t.Errorf("requests %s", got)
	}
	if gpu := r.Limits[k8s.ResourceGPU]; gpu.String() != "1" || !reflect.DeepEqual(r.Requests, r.Limits) {
		t.Errorf("limits %v, requests %v", r.Limits, r.Requests)
	}
	if _, ok := r.Requests["net_gbps"]; ok {
		t.Error("net_gbps requested from Kubernetes")
	}
	if w1.Annotations[k8s.AnnotResources] != `{"cpu":2.5,"gpu":1,"memory_gb":6,"net_gbps":1}` {
		t.Errorf("resources annotation %s", w1.Annotations[k8s.AnnotResources])
	}
	if w1.Spec.Hostname != "bert-a-worker-1" || w1.Spec.Subdomain != "bert-a" || w1.Namespace != "ml" {
		t.Errorf("hostname %s subdomain %s namespace %s", w1.Spec.Hostname, w1.Spec.Subdomain, w1.Namespace)
	}
}

// The spec hash ignores the generation (an equal plan re-applied later is a
// no-op) and sees a change of the peer set (a resize restarts every task).
func TestSpecHash(t *testing.T) {
	a, _ := k8s.Pods(tfChange(), k8s.ManifestOptions{})
	c := tfChange()
	c.Generation = "g2"
	b, _ := k8s.Pods(c, k8s.ManifestOptions{})
	if a[0].Annotations[k8s.AnnotSpecHash] != b[0].Annotations[k8s.AnnotSpecHash] {
		t.Error("the generation changed the spec hash")
	}
	c.To = c.To[1:] // one worker fewer
	d, _ := k8s.Pods(c, k8s.ManifestOptions{})
	if a[0].Annotations[k8s.AnnotSpecHash] == d[0].Annotations[k8s.AnnotSpecHash] {
		t.Error("ps-0's hash did not change when the job lost a worker")
	}
}

// WriteManifests' YAML reads back into the same objects, Service first.
func TestWriteManifestsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	stop := executor.Change{Job: executor.Job{Job: "old"}, Action: executor.ActionStop, From: []executor.Task{{Job: "old", Role: "ps", Node: "n1"}}}
	if err := k8s.WriteManifests(&buf, []executor.Change{tfChange(), stop}, k8s.ManifestOptions{Namespace: "ml"}); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(buf.String(), "---\n")
	if len(docs) != 4 {
		t.Fatalf("%d documents, want a Service and 3 pods:\n%s", len(docs), buf.String())
	}
	var svc corev1.Service
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &svc); err != nil {
		t.Fatal(err)
	}
	if svc.Kind != "Service" || svc.Spec.ClusterIP != "None" || svc.Spec.Selector[k8s.LabelJob] != "bert-a" {
		t.Errorf("service %+v", svc)
	}
	pods, _ := k8s.Pods(tfChange(), k8s.ManifestOptions{Namespace: "ml"})
	for i, doc := range docs[1:] {
		var p corev1.Pod
		if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(&p, pods[i]) {
			t.Errorf("pod %d does not read back equal", i)
		}
	}
}

func TestPodsRefuseBadJobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*executor.Change)
		want string
	}{
		{"no image", func(c *executor.Change) { c.Job.Image = "" }, "has no image"},
		{"bad name", func(c *executor.Change) { c.Job.Job = "Bert_A"; setJob(c, "Bert_A") }, "cannot name a Kubernetes Service"},
		{"shell operator", func(c *executor.Change) { c.Job.Command = "python a.py | tee log" }, "shell operator"},
		{"long name", func(c *executor.Change) { n := "j" + strings.Repeat("x", 55); c.Job.Job = n; setJob(c, n) }, "cannot name a pod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tfChange()
			tc.edit(&c)
			if _, err := k8s.Pods(c, k8s.ManifestOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func setJob(c *executor.Change, job string) {
	for i := range c.To {
		c.To[i].Job = job
	}
}

// The framework rule: mxnet or --kv-store, else torch, else TensorFlow.
func TestFrameworkOf(t *testing.T) {
	for image, want := range map[string]string{
		"example.com/optimus/mxnet-train:1.9": k8s.FrameworkMXNet,
		"tensorflow/tensorflow:2.16.1":        k8s.FrameworkTensorFlow,
		"pytorch/pytorch:2.3":                 k8s.FrameworkPyTorch,
		"me/train":                            k8s.FrameworkTensorFlow,
	} {
		if got := k8s.FrameworkOf(executor.Job{Image: image}); got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
	if got := k8s.FrameworkOf(executor.Job{Image: "me/train", Command: "python train.py --kv-store dist_sync"}); got != k8s.FrameworkMXNet {
		t.Errorf("--kv-store: %s", got)
	}
	if got := k8s.FrameworkOf(executor.Job{Image: "me/train", Command: "torchrun --nproc-per-node 1 train.py"}); got != k8s.FrameworkPyTorch {
		t.Errorf("torchrun: %s", got)
	}
}
