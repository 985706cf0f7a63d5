package root

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// namePayloads are the hostile names of issue 20, a seed each: those a
// page or a shell would run (and an executor must pass as they are), those
// a terminal would act on, and one a program would take for an option.
// renameJobs gives them to the table's first jobs, one each.
var namePayloads = [][]string{
	{"<img src=x onerror=document.body.dataset.x=1>", "__f__(document.body.dataset.x=1)__f__", "ends__f__", "$(touch pwned)", "`id`;'\"q", "</script><script>alert(1)</script>", strings.Repeat("n", 10000)},
	{"\x1b]0;pwned\a", "\x1b[2Jclear", "bel\a\b", "evil\u202etxt", "two\nlines"},
	{"--x", "--ps=999"},
}

// renameJobs returns a CSV table with its first distinct job names (and,
// in a cluster table, node names) replaced by the payloads, every row of
// each.
func renameJobs(f *testing.F, valid []byte, payloads []string) []byte {
	rows, err := csv.NewReader(bytes.NewReader(valid)).ReadAll()
	if err != nil || len(rows) < 2 {
		f.Fatalf("not a CSV table: %v", err)
	}
	for _, name := range []string{"job", "node"} {
		c := indexOf(rows[0], name)
		if c < 0 {
			continue
		}
		renamed := map[string]string{}
		for _, row := range rows[1:] {
			if _, ok := renamed[row[c]]; !ok && len(renamed) < len(payloads) && row[c] != "" {
				renamed[row[c]] = payloads[len(renamed)]
			}
			if to, ok := renamed[row[c]]; ok {
				row[c] = to
			}
		}
		break // jobs when the table has them, else nodes
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// fakeCluster serves the mutated plan in as the managed pods, and the
// testbed's cluster as the nodes, from an API server in the test; it
// returns the kubeconfig, or "" when in is not a plan table.
func fakeCluster(t *testing.T, in string) string {
	plan, err := table.ReadFile(in, schema.Plan)
	if err != nil {
		return ""
	}
	cluster, err := table.ReadFile(filepath.Join(fuzzDir, "cluster.csv"), schema.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	kube := map[string]corev1.ResourceName{"cpu": corev1.ResourceCPU, "gpu": kubernetes.ResourceGPU}
	var nodes []corev1.Node
	for r, name := range cluster.Strings("node") {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		extra := map[string]float64{}
		for _, res := range []string{"gpu", "cpu", "memory_gb", "net_gbps"} {
			if !cluster.Has(res) {
				continue
			}
			v := cluster.Float64s(res)[r]
			switch {
			case res == "memory_gb":
				n.Status.Allocatable[corev1.ResourceMemory] = *resource.NewQuantity(int64(v*(1<<30)), resource.BinarySI)
			case kube[res] != "":
				n.Status.Allocatable[kube[res]] = *resource.NewMilliQuantity(int64(v*1000), resource.DecimalSI)
			default:
				extra[res] = v
			}
		}
		raw, _ := json.Marshal(extra)
		n.Annotations[kubernetes.AnnotCapacity] = string(raw)
		nodes = append(nodes, n)
	}
	var pods []corev1.Pod
	jobs, roles, nodeOf, idx := plan.Strings("job"), plan.Strings("role"), plan.Strings("node"), plan.Int64s("index")
	roleOK, idxOK := plan.Valid("role"), plan.Valid("index")
	for r := range jobs {
		if !roleOK[r] || !idxOK[r] {
			continue
		}
		res := map[string]float64{}
		for _, name := range []string{"gpu", "cpu", "memory_gb", "net_gbps"} {
			if plan.Has(name) && plan.Valid(name)[r] {
				res[name] = plan.Float64s(name)[r]
			}
		}
		raw, _ := json.Marshal(res)
		pods = append(pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-" + strconv.Itoa(r), Namespace: "training",
			Labels: map[string]string{kubernetes.LabelManagedBy: kubernetes.ManagedByValue, kubernetes.LabelJob: jobs[r],
				kubernetes.LabelRole: roles[r], kubernetes.LabelIndex: strconv.FormatInt(idx[r], 10)},
			Annotations: map[string]string{kubernetes.AnnotResources: string(raw)}},
			Spec: corev1.PodSpec{NodeName: nodeOf[r]}})
	}
	return ktest.FakeLister(t, nodes, pods)
}

// checkFuzzOutput checks what a command that exited 0 wrote: a table that
// reads back; a page in which no name reached the markup or a script raw
// (every name is JSON-encoded data) and no control character remains; a
// snapshot whose plan the next command accepts.
func checkFuzzOutput(t *testing.T, args []string, kind, out string) {
	switch kind {
	case "":
		if _, err := table.ReadFile(out, nil); err != nil {
			t.Fatalf("%v: exit 0 but the output does not read back: %v", args, err)
		}
	case "html":
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%v: exit 0 but no page: %v", args, err)
		}
		for _, raw := range []string{"<img src=x", "</script><script>alert", "\x1b", "\a"} {
			if i := bytes.Index(page, []byte(raw)); i >= 0 {
				t.Fatalf("%v: the page holds %q raw at byte %d: %.200q", args, raw, i, page[max(0, i-80):])
			}
		}
	case "dir":
		for _, name := range []string{"cluster", "plan", "jobs"} {
			if _, err := table.ReadFile(filepath.Join(out, name+".parquet"), nil); err != nil {
				t.Fatalf("%v: exit 0 but %s does not read back: %v", args, name, err)
			}
		}
		next := []string{"place", "-i", filepath.Join(fuzzDir, "allocation.csv"), "--cluster", filepath.Join(out, "cluster.parquet"),
			"--current", filepath.Join(out, "plan.parquet"), "-o", filepath.Join(out, "next.csv")}
		if code, _, stderr := Run(nil, next...); code != 0 {
			t.Fatalf("%v: exit 0, but the next command refuses its tables: %v: exit %d: %s", args, next, code, stderr)
		}
	}
}
