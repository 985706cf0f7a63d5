package kubernetes_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// grantShippedRBAC creates deploy/rbac.yaml's Role and ClusterRole in the
// test's namespace, bound to the test user instead of the ServiceAccount.
func (e *env) grantShippedRBAC(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile("../../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rbac := e.admin.RbacV1()
	user := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: ktest.UserName}}
	kinds := map[string]int{}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		kinds[meta.Kind]++
		switch meta.Kind {
		case "Role":
			var r rbacv1.Role
			must(t, yaml.UnmarshalStrict(doc, &r))
			r.Namespace = e.ns
			_, err = rbac.Roles(e.ns).Create(ctx, &r, metav1.CreateOptions{})
		case "RoleBinding":
			var b rbacv1.RoleBinding
			must(t, yaml.UnmarshalStrict(doc, &b))
			b.Namespace, b.Subjects = e.ns, user
			_, err = rbac.RoleBindings(e.ns).Create(ctx, &b, metav1.CreateOptions{})
		case "ClusterRole":
			var r rbacv1.ClusterRole
			must(t, yaml.UnmarshalStrict(doc, &r))
			r.Name += "-" + e.ns
			_, err = rbac.ClusterRoles().Create(ctx, &r, metav1.CreateOptions{})
			// Cluster-wide, so not gone with the namespace: left, it would
			// grant this user in the next run of the test (-count=2).
			t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(context.Background(), r.Name, metav1.DeleteOptions{}) })
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			must(t, yaml.UnmarshalStrict(doc, &b))
			b.Name += "-" + e.ns
			b.RoleRef.Name += "-" + e.ns
			b.Subjects = user
			_, err = rbac.ClusterRoleBindings().Create(ctx, &b, metav1.CreateOptions{})
			t.Cleanup(func() { _ = rbac.ClusterRoleBindings().Delete(context.Background(), b.Name, metav1.DeleteOptions{}) })
		}
		must(t, err)
	}
	for _, k := range []string{"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"} {
		if kinds[k] != 1 {
			t.Fatalf("deploy/rbac.yaml has %d %s", kinds[k], k)
		}
	}
	for _, a := range k8s.Needed {
		ns := e.ns
		if a.Cluster {
			ns = ""
		}
		ktest.WaitAllowed(t, e.admin, ktest.UserName, ns, a.Group, a.Resource, a.Verb)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestUnprivilegedTokenFailsClearlyAndWritesNothing(t *testing.T) {
	e := setupParallel(t)
	// dssm-a is pruned with the shipped Role below; inception-a stays.
	e.keepJobs("dssm-a", "inception-a")
	ctx := context.Background()
	x, c := e.executor(ktest.UserToken, nil)
	// As optimus apply runs: the first read is refused.
	_, err := e.run(x, e.plan, false)
	var pe *kubeclient.PermissionError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "permission denied: this user may not list pods in namespace "+e.ns) ||
		!strings.Contains(err.Error(), "deploy/rbac.yaml") {
		t.Fatalf("unprivileged apply: %v", err)
	}
	t.Logf("unprivileged: %v", err)
	// Handed changes directly, Apply is refused too, before any write.
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{})
	_, err = x.Apply(ctx, changes, false)
	if !errors.As(err, &pe) {
		t.Fatalf("Apply without rights: %v", err)
	}
	for _, w := range c.Writes() {
		if !strings.Contains(w, "selfsubject") {
			t.Errorf("unprivileged apply wrote %s", w)
		}
	}
	if n := len(e.pods()); n != 0 {
		t.Errorf("%d pods exist", n)
	}

	// With deploy/rbac.yaml granted, the same token applies the plan.
	e.grantShippedRBAC(t)
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	allDone(t, rs, len(e.plan.Jobs))
	rs, err = e.run(x, without(e.plan, "dssm-a"), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Change.Job.Job == "dssm-a" && r.Outcome != executor.OutcomeDone {
			t.Errorf("prune with the shipped Role: %s %s", r.Outcome, r.Message)
		}
	}
}

func TestPartialRightsFailBeforeAnyWrite(t *testing.T) {
	e := setupParallel(t)
	ctx := context.Background()
	// A user who may read pods and nodes and create pods, but not delete or
	// take the Lease: the access check refuses before the first write.
	_, err := e.admin.RbacV1().Roles(e.ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "partial"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "services"}, Verbs: []string{"get", "list", "create"}}},
	}, metav1.CreateOptions{})
	must(t, err)
	_, err = e.admin.RbacV1().RoleBindings(e.ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "partial"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "partial"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "someone"}},
	}, metav1.CreateOptions{})
	must(t, err)
	for _, verb := range []string{"get", "list", "create"} {
		ktest.WaitAllowed(t, e.admin, "someone", e.ns, "", "pods", verb)
		ktest.WaitAllowed(t, e.admin, "someone", e.ns, "", "services", verb)
	}
	x, c := e.executor(ktest.OtherToken, nil)
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{})
	_, err = x.Apply(ctx, changes, false)
	var pe *kubeclient.PermissionError
	if !errors.As(err, &pe) {
		t.Fatalf("partial rights: %v", err)
	}
	for _, s := range []string{`user "someone"`, "delete pods", "create leases.coordination.k8s.io", "list nodes"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}
	t.Logf("partial rights: %v", err)
	for _, w := range c.Writes() {
		if !strings.Contains(w, "selfsubject") {
			t.Errorf("wrote %s", w)
		}
	}
	if n := len(e.pods()); n != 0 {
		t.Errorf("%d pods exist", n)
	}
}
