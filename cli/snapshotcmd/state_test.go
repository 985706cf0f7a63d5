package snapshotcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/root"
	"github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

var optimus = clitest.Command(root.NewCmd)

func TestMain(m *testing.M) { clitest.Main(m) }

func node(name, capacity string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), kubernetes.ResourceGPU: resource.MustParse("4")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		}}
	if capacity != "" {
		n.Annotations[kubernetes.AnnotCapacity] = capacity
	}
	return n
}

// taskPod is the pod of a task of job resnet50-a (a job of the testbed's
// jobs table); resources "" leaves the annotation out (the requests count).
func taskPod(name, role, index, nodeName, resources string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "training",
		Labels: map[string]string{kubernetes.LabelManagedBy: kubernetes.ManagedByValue, kubernetes.LabelJob: "resnet50-a",
			kubernetes.LabelRole: role, kubernetes.LabelIndex: index},
		Annotations: map[string]string{}},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "train", Image: "img:1"}}}}
	if resources != "" {
		p.Annotations[kubernetes.AnnotResources] = resources
	}
	return p
}

// Snapshot never hands on a table the next command rejects: a cluster it
// cannot read into valid tables is refused naming the node or pod (exit 2,
// nothing written), a pod on a node the cluster does not list is left out
// with a warning, and what it writes, apply accepts against the cluster
// table it wrote.
func TestSnapshotOfABrokenCluster(t *testing.T) {
	tb := t.TempDir()
	optimus.MustRun(t, nil, "datasets", "export", "testbed", "-o", tb, "--format", "csv")
	const ps, worker = `{"cpu":2,"memory_gb":4}`, `{"cpu":2,"gpu":1,"memory_gb":4}`
	nodes := []corev1.Node{node("gpu-01", ""), node("gpu-02", "")}
	pods := []corev1.Pod{taskPod("resnet50-a-ps-0", "ps", "0", "gpu-01", ps), taskPod("resnet50-a-worker-0", "worker", "0", "gpu-02", worker)}
	negative := taskPod("resnet50-a-worker-1", "worker", "1", "gpu-02", "")
	negative.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-2")}
	tests := []struct {
		name  string
		nodes []corev1.Node
		pods  []corev1.Pod
		code  int
		want  string // stderr
		tasks int    // rows of the plan written (exit 0)
	}{
		{name: "healthy", nodes: nodes, pods: pods, tasks: 2},
		{name: "two pods claim ps 0", nodes: nodes, pods: append(pods[:2:2], taskPod("resnet50-a-ps-0-copy", "ps", "0", "gpu-02", ps)), code: 2,
			want: `optimus: kubernetes: pods "resnet50-a-ps-0" and "resnet50-a-ps-0-copy" in namespace training both run task resnet50-a-ps-0 (labels optimus.dev/job, optimus.dev/role, optimus.dev/index): delete the one that should not run` + "\n"},
		{name: "pod on an unlisted node", nodes: nodes, pods: append(pods[:2:2], taskPod("resnet50-a-worker-1", "worker", "1", "gpu-99", worker)), tasks: 2,
			want: "optimus: warning: snapshot: pod resnet50-a-worker-1 (task resnet50-a-worker-1) is on node gpu-99, which the cluster does not list: left out of the plan\n"},
		{name: "pod on no node", nodes: nodes, pods: append(pods[:2:2], taskPod("resnet50-a-worker-1", "worker", "1", "", worker)), tasks: 2,
			want: "optimus: warning: snapshot: pod resnet50-a-worker-1 (task resnet50-a-worker-1) is on no node: left out of the plan\n"},
		{name: "node listed twice", nodes: append(nodes[:2:2], node("gpu-01", "")), pods: pods, code: 2,
			want: "optimus: kubernetes: the API server lists node \"gpu-01\" twice\n"},
		{name: "negative capacity annotation", nodes: []corev1.Node{node("gpu-01", `{"net_gbps": -10}`), nodes[1]}, pods: pods, code: 2,
			want: "optimus: kubernetes: node gpu-01: annotation optimus.dev/capacity: net_gbps -10: amounts must be finite and not negative\n"},
		{name: "capacity annotation not JSON", nodes: []corev1.Node{node("gpu-01", `net_gbps=10`), nodes[1]}, pods: pods, code: 2,
			want: "optimus: kubernetes: node gpu-01: annotation optimus.dev/capacity: invalid character 'e' in literal null (expecting 'u') (want JSON like {\"net_gbps\": 10})\n"},
		{name: "negative resources annotation", nodes: nodes, pods: []corev1.Pod{pods[0], taskPod("resnet50-a-worker-0", "worker", "0", "gpu-02", `{"cpu":-2,"gpu":1}`)}, code: 2,
			want: "optimus: kubernetes: pod \"resnet50-a-worker-0\" in namespace training (task resnet50-a-worker-0): resources: cpu -2: amounts must be finite and not negative\n"},
		{name: "negative requests", nodes: nodes, pods: append(pods[:2:2], negative), code: 2,
			want: "optimus: kubernetes: pod \"resnet50-a-worker-1\" in namespace training (task resnet50-a-worker-1): resources: cpu -2: amounts must be finite and not negative\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kubeconfig := ktest.FakeLister(t, tt.nodes, tt.pods)
			snap := filepath.Join(t.TempDir(), "snap")
			code, _, stderr := optimus.Run(t, nil, "snapshot", "kubernetes", "--kubeconfig", kubeconfig, "--jobs", tb+"/jobs.csv", "-o", snap)
			if code != tt.code || stderr != tt.want {
				t.Fatalf("exit %d, stderr\n%s\nwant exit %d, stderr\n%s", code, stderr, tt.code, tt.want)
			}
			if code != 0 {
				if _, err := os.Stat(snap); err == nil {
					t.Errorf("exit %d but wrote %s", code, snap)
				}
				return
			}
			out, _ := optimus.MustRun(t, nil, "convert", "-i", snap+"/plan.parquet", "--format", "csv")
			if rows := strings.Count(string(out), "\n") - 1; rows != tt.tasks {
				t.Errorf("plan of %d rows, want %d:\n%s", rows, tt.tasks, out)
			}
			// The next command accepts what snapshot wrote.
			optimus.MustRun(t, nil, "apply", "-i", snap+"/plan.parquet", "--jobs", snap+"/jobs.parquet", "--executor", "print",
				"--cluster", snap+"/cluster.parquet", "--current", snap+"/plan.parquet", "-o", t.TempDir()+"/actions.csv")
		})
	}
}
