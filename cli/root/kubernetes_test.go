package root

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// taskLines renders a plan's tasks as sorted "name@node resources" lines.
func taskLines(t *testing.T, path string) []string {
	t.Helper()
	p, err := adapt.ReadPlan(mustRead(t, path, schema.Plan))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range p.Tasks {
		var rs []string
		for r, v := range task.Resources {
			rs = append(rs, r+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		sort.Strings(rs)
		out = append(out, task.Name()+"@"+task.Node+" "+strings.Join(rs, ","))
	}
	sort.Strings(out)
	return out
}

// The cron pipeline against a real API server: the testbed's pipeline,
// apply --executor kubernetes, snapshot kubernetes gives back the cluster
// and the plan applied, apply again changes nothing, and a second round
// from the snapshot (predict, solve, place --current, apply) runs.
func TestApplyAndSnapshotAgainstKubernetes(t *testing.T) {
	srv, admin, ns := ktest.Exclusive(t)
	ctx := context.Background()
	dir := exportTestbed(t)
	tb := func(name string) string { return filepath.Join(dir, name+".parquet") }
	out := t.TempDir()
	o := func(name string) string { return filepath.Join(out, name) }

	// The testbed's nodes, plus a cordoned one and one NotReady, which
	// snapshot must leave out.
	var nodes []ktest.NodeSpec
	for name, c := range adapt.ReadCapacity(mustRead(t, tb("cluster"), schema.Cluster)) {
		nodes = append(nodes, ktest.NodeSpec{Name: name, Capacity: c})
	}
	ktest.AddNodes(t, admin, nodes)
	for _, n := range []struct {
		name      string
		cordoned  bool
		condition corev1.ConditionStatus
	}{{"gpu-cordoned", true, corev1.ConditionTrue}, {"gpu-down", false, corev1.ConditionFalse}} {
		obj := ktest.NodeObject(ktest.NodeSpec{Name: n.name, Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64, "net_gbps": 10}})
		obj.Spec.Unschedulable = n.cordoned
		got, err := admin.CoreV1().Nodes().Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got.Status = obj.Status
		got.Status.Conditions[0].Status = n.condition
		if _, err := admin.CoreV1().Nodes().UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stop := ktest.Kubelet(admin)
	defer stop()
	kubeconfig, err := srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, ns)
	if err != nil {
		t.Fatal(err)
	}

	step := func(want int, args ...string) string {
		t.Helper()
		code, _, stderr := run(t, nil, args...)
		if code != want {
			t.Fatalf("optimus %s: exit %d, want %d:\n%s", strings.Join(args, " "), code, want, stderr)
		}
		return stderr
	}
	step(0, "fit", "-i", tb("loss"), "--speed", tb("speed"), "--jobs", tb("jobs"), "-o", o("models.parquet"))
	step(0, "predict", "-i", tb("jobs"), "--models", o("models.parquet"), "-o", o("predictions.parquet"))
	step(0, "solve", "--cluster", tb("cluster"), "-i", o("predictions.parquet"), "-o", o("allocation.parquet"))
	step(0, "place", "--cluster", tb("cluster"), "-i", o("allocation.parquet"), "-o", o("plan.parquet"))

	k := []string{"--executor", "kubernetes", "--kubeconfig", kubeconfig, "--timeout", "30s"}
	step(0, append([]string{"apply", "-i", o("plan.parquet"), "--jobs", tb("jobs"), "-o", o("actions.parquet")}, k...)...)
	actions := mustRead(t, o("actions.parquet"), schema.Actions)
	outcomes := map[string]int{}
	for _, oc := range actions.Strings("outcome") {
		outcomes[oc]++
	}
	t.Logf("apply: %d action rows %v", actions.NumRows(), outcomes)
	if outcomes[executor.OutcomeDone] != 60 || len(outcomes) != 1 {
		t.Errorf("apply outcomes %v, want 60 done (one per task)", outcomes)
	}

	// print --manifests shows the very objects the kubernetes executor made.
	code, yamlOut, errOut := run(t, nil, "apply", "-i", o("plan.parquet"), "--jobs", tb("jobs"), "--executor", "print",
		"--manifests", "--namespace", ns, "-o", o("planned.csv"))
	if code != 0 {
		t.Fatalf("print --manifests: exit %d: %s", code, errOut)
	}
	live, err := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	liveByName := map[string]corev1.Pod{}
	for _, p := range live.Items {
		liveByName[p.Name] = p
	}
	printed := 0
	for _, doc := range strings.Split(string(yamlOut), "---\n") {
		var p corev1.Pod
		if err := yaml.Unmarshal([]byte(doc), &p); err != nil {
			t.Fatal(err)
		}
		if p.Kind != "Pod" {
			continue
		}
		printed++
		l, ok := liveByName[p.Name]
		if !ok || l.Spec.NodeName != p.Spec.NodeName || l.Annotations[k8s.AnnotSpecHash] != p.Annotations[k8s.AnnotSpecHash] ||
			!reflect.DeepEqual(l.Labels, p.Labels) {
			t.Errorf("printed pod %s differs from the one apply made", p.Name)
		}
	}
	if printed != len(live.Items) || printed != 69 {
		t.Errorf("print --manifests: %d pods, the cluster runs %d, want 69", printed, len(live.Items))
	}

	stderr := step(0, "snapshot", "kubernetes", "-v", "--kubeconfig", kubeconfig, "--jobs", tb("jobs"), "-o", o("snap"))
	t.Logf("snapshot stderr:\n%s", stderr)
	for _, s := range []string{"node gpu-cordoned left out of the cluster table: cordoned", "node gpu-down left out of the cluster table: not Ready",
		"13 nodes, 60 tasks of 9 jobs in namespace " + ns} {
		if !strings.Contains(stderr, s) {
			t.Errorf("snapshot stderr lacks %q", s)
		}
	}
	if got, want := taskLines(t, o("snap/plan.parquet")), taskLines(t, o("plan.parquet")); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot's plan differs from the plan applied:\n got %v\nwant %v", got, want)
	}
	if got, want := adapt.ReadCapacity(mustRead(t, o("snap/cluster.parquet"), schema.Cluster)),
		adapt.ReadCapacity(mustRead(t, tb("cluster"), schema.Cluster)); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot's cluster differs from the testbed's:\n got %v\nwant %v", got, want)
	}
	plan := mustRead(t, o("plan.parquet"), schema.Plan)
	wantPS, wantW := column(plan, plan.Int64s, "job_ps"), column(plan, plan.Int64s, "job_workers")
	jobs := mustRead(t, o("snap/jobs.parquet"), schema.Jobs)
	gotPS, gotW := column(jobs, jobs.Int64s, "ps"), column(jobs, jobs.Int64s, "workers")
	if !reflect.DeepEqual(gotPS, wantPS) || !reflect.DeepEqual(gotW, wantW) {
		t.Errorf("snapshot's jobs: ps %v workers %v, want %v %v", gotPS, gotW, wantPS, wantW)
	}

	// The same plan again: nothing to do.
	step(0, append([]string{"apply", "-i", o("plan.parquet"), "--jobs", tb("jobs"), "-o", o("actions2.parquet")}, k...)...)
	again := mustRead(t, o("actions2.parquet"), schema.Actions)
	for i, oc := range again.Strings("outcome") {
		if oc != executor.OutcomeSkipped {
			t.Errorf("re-apply: job %s %s", again.Strings("job")[i], oc)
		}
	}

	// The next cron round starts from the snapshot.
	step(0, "predict", "-i", o("snap/jobs.parquet"), "--models", o("models.parquet"), "-o", o("predictions2.parquet"))
	step(0, "solve", "--cluster", o("snap/cluster.parquet"), "-i", o("predictions2.parquet"), "-o", o("allocation2.parquet"))
	step(0, "place", "--cluster", o("snap/cluster.parquet"), "--current", o("snap/plan.parquet"), "-i", o("allocation2.parquet"), "-o", o("plan2.parquet"))
	step(0, append([]string{"apply", "-i", o("plan2.parquet"), "--jobs", o("snap/jobs.parquet"), "-o", o("actions3.parquet")}, k...)...)
	round := mustRead(t, o("actions3.parquet"), schema.Actions)
	perAction := map[string]int{}
	for i, a := range round.Strings("action") {
		perAction[a+" "+round.Strings("outcome")[i]]++
	}
	t.Logf("second round: %v", perAction)
	step(0, "snapshot", "kubernetes", "--kubeconfig", kubeconfig, "-o", o("snap2"))
	if got, want := taskLines(t, o("snap2/plan.parquet")), taskLines(t, o("plan2.parquet")); !reflect.DeepEqual(got, want) {
		t.Errorf("after the second round the cluster runs:\n %v\nnot the plan\n %v", got, want)
	}

	// A token without the Role: exit 1, a clear message, nothing changed.
	userConfig, err := srv.WriteKubeconfig(t.TempDir(), ktest.UserToken, ns)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	stderr = step(1, "apply", "-i", o("plan.parquet"), "--jobs", tb("jobs"), "--executor", "kubernetes", "--kubeconfig", userConfig, "--prune")
	if !strings.Contains(stderr, "permission denied") || !strings.Contains(stderr, "deploy/rbac.yaml") {
		t.Errorf("unprivileged apply's message: %s", stderr)
	}
	t.Logf("unprivileged apply: %s", strings.TrimSpace(stderr))
	after, _ := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if len(before.Items) != len(after.Items) || before.ResourceVersion == "" {
		t.Errorf("pods: %d before, %d after the refused apply", len(before.Items), len(after.Items))
	}
	stderr = step(1, "snapshot", "kubernetes", "--kubeconfig", userConfig, "-o", o("snap3"))
	if !strings.Contains(stderr, "permission denied: this user may not list nodes (cluster-wide)") {
		t.Errorf("unprivileged snapshot's message: %s", stderr)
	}
}
