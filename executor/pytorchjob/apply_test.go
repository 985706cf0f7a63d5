package pytorchjob_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/executor/pytorchjob"
)

// The diff tests of the pod executor (executor/kubernetes apply_test.go)
// on PyTorchJobs: a fresh apply creates one PyTorchJob per job and reads
// back as the plan; applying again writes nothing; a dry run writes
// nothing; a resize updates that one job's replica counts and node
// affinity in place (same UID) and nothing else; a hand edit of the
// replicas is repaired; a job left out of the plan is deleted with --prune.
func TestApplyReapplyResizePrune(t *testing.T) {
	e := setup(t)
	x, c := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, e.plan, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rs); strings.Count(got, " start planned") != 8 || len(c.Writes()) != 0 {
		t.Fatalf("dry run: %s; writes %v", got, c.Writes())
	}

	rs, err = e.run(x, e.plan, false, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	if got := outcomes(rs); strings.Count(got, " start done") != 8 {
		t.Fatalf("fresh apply:\n%s", got)
	}
	if got, want := writes(c), "POST leases: 1, POST pytorchjobs: 8, PUT leases: 1"; got != want {
		t.Errorf("fresh apply wrote %s, want %s", got, want)
	}
	jobs := e.pytorchJobs()
	if len(jobs) != 8 {
		t.Fatalf("%d PyTorchJobs, want 8", len(jobs))
	}
	im := jobs["imagenet-11"]
	// imagenet-11: 14 workers, worker 0 on node-03, the others on
	// node-01..node-05.
	if m, w := pytorchjob.Replicas(im, pytorchjob.Master), pytorchjob.Replicas(im, pytorchjob.Worker); m != 1 || w != 13 {
		t.Errorf("imagenet-11: Master %d, Worker %d replicas; want 1 and 13", m, w)
	}
	if got, want := pytorchjob.Nodes(im, pytorchjob.Master), []string{"node-03"}; !reflect.DeepEqual(got, want) {
		t.Errorf("imagenet-11 Master affinity %v, want %v", got, want)
	}
	if got, want := pytorchjob.Nodes(im, pytorchjob.Worker), []string{"node-01", "node-02", "node-03", "node-04", "node-05"}; !reflect.DeepEqual(got, want) {
		t.Errorf("imagenet-11 Worker affinity %v, want %v", got, want)
	}
	if l := im.Labels; l[k8s.LabelManagedBy] != k8s.ManagedByValue || l[k8s.LabelJob] != "imagenet-11" || l[k8s.LabelGeneration] == "" {
		t.Errorf("imagenet-11 labels %v", l)
	}
	if _, ok := jobs["cifar10-0"].Spec.PyTorchReplicaSpecs[pytorchjob.Worker]; ok {
		t.Errorf("cifar10-0 (1 worker) has Worker replicas")
	}
	cur, err := x.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tasksOf(cur), tasksOf(e.plan.Tasks); got != want {
		t.Errorf("read back:\n%s\nplanned:\n%s", got, want)
	}

	c.Reset()
	rs, err = e.run(x, e.plan, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rs); strings.Count(got, " skipped") != 8 || len(c.Writes()) != 0 {
		t.Errorf("second apply: %s; writes %v, want none", got, c.Writes())
	}

	// Resize imagenet-11 to 10 workers: workers 10..13 (node-05 and
	// node-01, node-02) go.
	resized := apply.Plan{Jobs: e.plan.Jobs}
	for _, tk := range e.plan.Tasks {
		if tk.Job == "imagenet-11" && tk.Index >= 10 {
			continue
		}
		resized.Tasks = append(resized.Tasks, tk)
	}
	uid, rv := im.UID, im.ResourceVersion
	c.Reset()
	rs, err = e.run(x, resized, false, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	if got := outcomes(rs); strings.Count(got, " skipped") != 7 || !strings.Contains(got, "imagenet-11 resize done") {
		t.Errorf("resize:\n%s", got)
	}
	// The Lease exists now (released): taken and given back by updates.
	if got, want := writes(c), "PUT leases: 2, PUT pytorchjobs: 1"; got != want {
		t.Errorf("resize wrote %s, want %s", got, want)
	}
	im = e.pytorchJobs()["imagenet-11"]
	if im.UID != uid || im.ResourceVersion == rv {
		t.Errorf("imagenet-11 was not updated in place: uid %s -> %s, resourceVersion %s -> %s", uid, im.UID, rv, im.ResourceVersion)
	}
	if w := pytorchjob.Replicas(im, pytorchjob.Worker); w != 9 {
		t.Errorf("resized imagenet-11: %d Worker replicas, want 9", w)
	}
	if got, want := pytorchjob.Nodes(im, pytorchjob.Worker), []string{"node-03", "node-04", "node-05"}; !reflect.DeepEqual(got, want) {
		t.Errorf("resized imagenet-11 Worker affinity %v, want %v", got, want)
	}
	if cur, err = x.Current(context.Background()); err != nil {
		t.Fatal(err)
	} else if got, want := tasksOf(cur), tasksOf(resized.Tasks); got != want {
		t.Errorf("read back after resize:\n%s\nplanned:\n%s", got, want)
	}
	c.Reset()
	if _, err := e.run(x, resized, false, false); err != nil {
		t.Fatal(err)
	} else if len(c.Writes()) != 0 {
		t.Errorf("apply after resize wrote %v, want nothing", c.Writes())
	}

	// Drift: someone scales yolov3-31's Worker replicas by hand.
	yolo := e.pytorchJobs()["yolov3-31"]
	five := int32(5)
	yolo.Spec.PyTorchReplicaSpecs[pytorchjob.Worker].Replicas = &five
	e.put(yolo)
	c.Reset()
	rs, err = e.run(x, resized, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := writes(c), "PUT leases: 2, PUT pytorchjobs: 1"; got != want || !strings.Contains(outcomes(rs), "yolov3-31 start done") {
		t.Errorf("drift repair wrote %s (want %s):\n%s", got, want, outcomes(rs))
	}
	if w := pytorchjob.Replicas(e.pytorchJobs()["yolov3-31"], pytorchjob.Worker); w != 2 {
		t.Errorf("yolov3-31 after repair: %d Worker replicas, want 2", w)
	}

	// Prune: cifar10-0 leaves the plan.
	pruned := apply.Plan{}
	for _, j := range resized.Jobs {
		if j.Job != "cifar10-0" {
			pruned.Jobs = append(pruned.Jobs, j)
		}
	}
	for _, tk := range resized.Tasks {
		if tk.Job != "cifar10-0" {
			pruned.Tasks = append(pruned.Tasks, tk)
		}
	}
	c.Reset()
	if rs, err = e.run(x, pruned, false, false); err != nil {
		t.Fatal(err)
	} else if len(c.Writes()) != 0 || !strings.Contains(outcomes(rs), "cifar10-0 stop skipped") {
		t.Errorf("without --prune: %s; writes %v", outcomes(rs), c.Writes())
	}
	if rs, err = e.run(x, pruned, true, false); err != nil {
		t.Fatal(err)
	}
	if got, want := writes(c), "DELETE pytorchjobs: 1, PUT leases: 2"; got != want || !strings.Contains(outcomes(rs), "cifar10-0 stop done") {
		t.Errorf("prune wrote %s (want %s):\n%s", got, want, outcomes(rs))
	}
	if _, ok := e.pytorchJobs()["cifar10-0"]; ok {
		t.Errorf("cifar10-0's PyTorchJob is still there")
	}
	c.Reset()
	if _, err := e.run(x, pruned, true, false); err != nil {
		t.Fatal(err)
	} else if len(c.Writes()) != 0 {
		t.Errorf("apply after prune wrote %v, want nothing", c.Writes())
	}
}

// A PyTorchJob of a job's name that optimus does not manage fails that
// job alone and is never touched; a PS job is refused with its reason;
// the other jobs start.
func TestForeignPyTorchJobAndPSJobFailAlone(t *testing.T) {
	e := setup(t)
	one := int32(1)
	foreign := &pytorchjob.PyTorchJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "PyTorchJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "cifar10-4", Namespace: e.ns},
		Spec:       pytorchjob.Spec{PyTorchReplicaSpecs: map[string]*pytorchjob.ReplicaSpec{pytorchjob.Master: {Replicas: &one}}},
	}
	foreign.Spec.PyTorchReplicaSpecs[pytorchjob.Master].Template.Spec.Containers = append(foreign.Spec.PyTorchReplicaSpecs[pytorchjob.Master].Template.Spec.Containers,
		corev1Container("someone/else:1"))
	e.put(foreign)
	before := e.pytorchJobs()["cifar10-4"].ResourceVersion
	// yolov3-31 becomes an MXNet PS job: one PS on its workers' node.
	plan := apply.Plan{Jobs: e.plan.Jobs, Tasks: append([]executor.Task(nil), e.plan.Tasks...)}
	plan.Tasks = append(plan.Tasks, executor.Task{Job: "yolov3-31", Role: executor.RolePS, Index: 0, Node: "node-02", Resources: map[string]float64{"cpu": 1}})
	jobs := map[string]executor.Job{}
	for k, v := range e.jobs {
		jobs[k] = v
	}
	yolo := jobs["yolov3-31"]
	yolo.Image, yolo.Command = "example.com/optimus/mxnet:1.9", "python train.py --kv-store dist_sync"
	jobs["yolov3-31"] = yolo
	e.jobs = jobs
	x, c := e.executor(ktest.AdminToken, nil)
	rs, err := e.run(x, plan, false, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	if got := outcomes(rs); strings.Count(got, " start done") != 6 || !strings.Contains(got, "cifar10-4 start failed") || !strings.Contains(got, "yolov3-31 start failed") {
		t.Errorf("outcomes:\n%s", got)
	}
	for _, r := range rs {
		switch r.Change.Job.Job {
		case "cifar10-4":
			if !strings.Contains(r.Message, "not managed by optimus") {
				t.Errorf("cifar10-4: %s", r.Message)
			}
		case "yolov3-31":
			if !strings.Contains(r.Message, "parameter servers") || !strings.Contains(r.Message, "--executor kubernetes") {
				t.Errorf("yolov3-31: %s", r.Message)
			}
		}
	}
	if got, want := writes(c), "POST leases: 1, POST pytorchjobs: 6, PUT leases: 1"; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
	if got := e.pytorchJobs()["cifar10-4"]; got.ResourceVersion != before || got.Labels[k8s.LabelManagedBy] != "" {
		t.Errorf("the foreign PyTorchJob was touched: resourceVersion %s -> %s, labels %v", before, got.ResourceVersion, got.Labels)
	}
	// Stopping every job (prune, empty plan) leaves the foreign one.
	if _, err := e.run(x, apply.Plan{}, true, false); err != nil {
		t.Fatal(err)
	}
	if got := e.pytorchJobs(); len(got) != 1 || got["cifar10-4"] == nil {
		t.Errorf("after pruning everything: %d PyTorchJobs (want only the foreign cifar10-4)", len(got))
	}
}

// A user without rights, and one without the right to create PyTorchJobs,
// is told what is missing before any write.
func TestPermissionsCheckedBeforeAnyWrite(t *testing.T) {
	e := setup(t)
	x, c := e.executor(ktest.UserToken, nil)
	_, err := e.run(x, e.plan, false, false)
	var perm *kubeclient.PermissionError
	if !errors.As(err, &perm) {
		t.Fatalf("no rights: error %v, want a PermissionError", err)
	}
	if w := writes(c); w != "" {
		t.Errorf("no rights: wrote %s", w)
	}
	// Everything but create on pytorchjobs.
	ctx := context.Background()
	rbac := e.admin.RbacV1()
	user := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: ktest.UserName}}
	name := "optimus-pytorchjob-" + e.ns
	_, err = rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get"}},
	}}, metav1.CreateOptions{})
	must(t, err)
	_, err = rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: user,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}}, metav1.CreateOptions{})
	must(t, err)
	_, err = rbac.Roles(e.ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "optimus"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kubeflow.org"}, Resources: []string{"pytorchjobs"}, Verbs: []string{"get", "list", "update", "delete"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}},
	}}, metav1.CreateOptions{})
	must(t, err)
	_, err = rbac.RoleBindings(e.ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "optimus"}, Subjects: user,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "optimus"}}, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() {
		_ = rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = rbac.ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
	ktest.WaitAllowed(t, e.admin, ktest.UserName, e.ns, "kubeflow.org", "pytorchjobs", "list")
	ktest.WaitAllowed(t, e.admin, ktest.UserName, "", "", "nodes", "list")
	ktest.WaitAllowed(t, e.admin, ktest.UserName, "", "", "namespaces", "get")
	c.Reset()
	_, err = e.run(x, e.plan, false, false)
	if !errors.As(err, &perm) || !strings.Contains(err.Error(), "create pytorchjobs.kubeflow.org") || strings.Contains(err.Error(), "list pytorchjobs") {
		t.Fatalf("no create: error %v, want a PermissionError naming create pytorchjobs.kubeflow.org only", err)
	}
	if w := writes(c); w != "" {
		t.Errorf("no create: wrote %s", w)
	}
	if n := len(e.pytorchJobs()); n != 0 {
		t.Errorf("%d PyTorchJobs exist", n)
	}
}

// Another apply's live Lease on the namespace (the pod executor's Lease:
// either executor's applies exclude the other's) stops the apply before
// any PyTorchJob write, saying who holds it and until when.
func TestLeaseHeldByAnotherApply(t *testing.T) {
	e := setup(t)
	now := metav1.NewMicroTime(time.Now())
	secs, holder := int32(600), "someone-else/1/abcdef"
	_, err := e.admin.CoordinationV1().Leases(e.ns).Create(context.Background(), &coordv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: k8s.LeaseName},
		Spec:       coordv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now},
	}, metav1.CreateOptions{})
	must(t, err)
	x, c := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.LeaseWait = -1 })
	_, err = e.run(x, e.plan, false, false)
	var held *kubeclient.HeldError
	if !errors.As(err, &held) || held.Holder != holder || !strings.Contains(err.Error(), "expires at") {
		t.Fatalf("error %v, want a HeldError naming %s and its expiry", err, holder)
	}
	for _, w := range c.Writes() {
		if strings.Contains(w, "pytorchjobs") {
			t.Errorf("wrote %s under another apply's Lease", w)
		}
	}
	if n := len(e.pytorchJobs()); n != 0 {
		t.Errorf("%d PyTorchJobs exist", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
