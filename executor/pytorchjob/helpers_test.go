package pytorchjob_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/executor/pytorchjob"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

func TestMain(m *testing.M) {
	code := m.Run()
	ktest.StopShared()
	os.Exit(code)
}

// CRDVar names the training operator's PyTorchJob CRD file
// (scripts/k8s-build.sh prints it).
const CRDVar = "OPTIMUS_PYTORCHJOB_CRD"

var (
	crdOnce  sync.Once
	crdErr   error
	nodeOnce sync.Once
)

// crdFile is the CRD's path, or skips t (fails it under CI=true), as
// ktest does for the API server binaries.
func crdFile(t *testing.T) string {
	t.Helper()
	path := os.Getenv(CRDVar)
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but $%s is unset: eval \"$(scripts/k8s-build.sh)\" sets it", CRDVar)
		}
		t.Skipf("skipping: $%s is unset (eval \"$(scripts/k8s-build.sh)\" downloads the training operator's module and sets it)", CRDVar)
	}
	return path
}

// installCRD creates the CRD on the API server from its YAML and waits
// until it is Established and its resource served.
func installCRD(srv *ktest.Server, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	body, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	rc := srv.Admin().Discovery().RESTClient()
	ctx := context.Background()
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if err := rc.Post().AbsPath(crds).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error(); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return ktest.Eventually(ctx, 60*time.Second, func() bool {
		raw, err := rc.Get().AbsPath(crds, pytorchjob.Resource+"."+pytorchjob.GroupVersion.Group).DoRaw(ctx)
		if err != nil {
			return false
		}
		var st struct {
			Status struct {
				Conditions []struct{ Type, Status string }
			}
		}
		if json.Unmarshal(raw, &st) != nil {
			return false
		}
		established := false
		for _, c := range st.Status.Conditions {
			established = established || c.Type == "Established" && c.Status == "True"
		}
		return established && rc.Get().AbsPath("/apis/kubeflow.org/v1/pytorchjobs").Do(ctx).Error() == nil
	})
}

// env is one test's namespace on the shared API server with the CRD
// installed, for apply/testdata/allreduce's plan (8 PyTorch all-reduce
// jobs, 24 workers, on 6 nodes of 4 GPUs).
type env struct {
	t     *testing.T
	srv   *ktest.Server
	admin kubernetes.Interface
	ns    string
	plan  apply.Plan
	jobs  map[string]executor.Job
	nodes []ktest.NodeSpec
}

// setup runs t beside the other tests that set up (t.Parallel): each has a
// namespace of its own, and the one test that grants the user rights
// (cluster-wide) grants them to the token no other test uses; they share
// the nodes, which nothing here counts pods on (no pods: no operator).
func setup(t *testing.T) *env {
	t.Helper()
	t.Parallel()
	file := crdFile(t)
	srv := ktest.Shared(t)
	crdOnce.Do(func() { crdErr = installCRD(srv, file) })
	if crdErr != nil {
		t.Fatalf("installing the PyTorchJob CRD %s: %v", file, crdErr)
	}
	e := &env{t: t, srv: srv, admin: srv.Admin()}
	e.plan, e.jobs, e.nodes = allReduce(t)
	nodeOnce.Do(func() { ktest.AddNodes(t, e.admin, e.nodes) })
	e.ns = ktest.Namespace(t, e.admin)
	return e
}

// allReduce reads apply/testdata/allreduce.
func allReduce(t *testing.T) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec) {
	t.Helper()
	dir := "../../apply/testdata/allreduce"
	pt, err := table.ReadFile(dir+"/plan.csv", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := adapt.ReadPlan(pt)
	if err != nil {
		t.Fatal(err)
	}
	jt, err := table.ReadFile(dir+"/jobs.csv", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := table.ReadFile(dir+"/cluster.csv", schema.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []ktest.NodeSpec
	for node, c := range adapt.ReadCapacity(ct) {
		c["cpu"], c["memory_gb"] = 32, 128
		nodes = append(nodes, ktest.NodeSpec{Name: node, Capacity: c})
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	return plan, adapt.ReadJobs(jt), nodes
}

// executor is an executor on the test's namespace whose writes are counted.
func (e *env) executor(token string, mod func(*k8s.Options)) (*pytorchjob.Executor, *ktest.Counter) {
	e.t.Helper()
	c := &ktest.Counter{}
	o := k8s.Options{Namespace: e.ns, RESTConfig: c.Wrap(e.srv.Config(token)), Timeout: 30 * time.Second, LeaseWait: 10 * time.Second, LeaseDuration: 10 * time.Minute}
	if mod != nil {
		mod(&o)
	}
	x, err := pytorchjob.New(context.Background(), o)
	if err != nil {
		e.t.Fatal(err)
	}
	return x, c
}

// run is what optimus apply does (apply.Run: validate, read what runs,
// diff, repair drift, apply); it returns every job's result, sorted by job.
func (e *env) run(x *pytorchjob.Executor, plan apply.Plan, prune, dryRun bool) ([]executor.Result, error) {
	e.t.Helper()
	r, err := apply.Run(context.Background(), x, plan, e.jobs, apply.RunOptions{Options: apply.Options{Prune: prune}, DryRun: dryRun})
	if err != nil {
		return nil, err
	}
	all := append(r.Results, r.Skipped...)
	sort.SliceStable(all, func(a, b int) bool { return all[a].Change.Job.Job < all[b].Change.Job.Job })
	return all, nil
}

// outcomes are "job action outcome" lines.
func outcomes(rs []executor.Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Change.Job.Job+" "+r.Change.Action+" "+r.Outcome)
	}
	return strings.Join(out, "\n")
}

func logResults(t *testing.T, rs []executor.Result) {
	t.Helper()
	for _, r := range rs {
		t.Logf("%-14s %-6s %-8s %s", r.Change.Job.Job, r.Change.Action, r.Outcome, r.Message)
	}
}

// tasksOf renders tasks as sorted "name@node resources" lines.
func tasksOf(ts []executor.Task) string {
	var out []string
	for _, t := range ts {
		var rs []string
		for r, v := range t.Resources {
			rs = append(rs, r+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		sort.Strings(rs)
		out = append(out, t.Name()+"@"+t.Node+" "+strings.Join(rs, ","))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// pytorchJobs reads the namespace's PyTorchJobs by name, as the admin.
func (e *env) pytorchJobs() map[string]*pytorchjob.PyTorchJob {
	e.t.Helper()
	rc := e.admin.Discovery().RESTClient()
	raw, err := rc.Get().AbsPath("/apis/kubeflow.org/v1/namespaces", e.ns, "pytorchjobs").DoRaw(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	var l pytorchjob.PyTorchJobList
	if err := json.Unmarshal(raw, &l); err != nil {
		e.t.Fatal(err)
	}
	out := map[string]*pytorchjob.PyTorchJob{}
	for i := range l.Items {
		out[l.Items[i].Name] = &l.Items[i]
	}
	return out
}

// put writes a PyTorchJob as the admin (create, or update when it has a
// resourceVersion).
func (e *env) put(j *pytorchjob.PyTorchJob) {
	e.t.Helper()
	rc := e.admin.Discovery().RESTClient()
	body, err := json.Marshal(j)
	if err != nil {
		e.t.Fatal(err)
	}
	req := rc.Post().AbsPath("/apis/kubeflow.org/v1/namespaces", e.ns, "pytorchjobs")
	if j.ResourceVersion != "" {
		req = rc.Put().AbsPath("/apis/kubeflow.org/v1/namespaces", e.ns, "pytorchjobs", j.Name)
	}
	if err := req.SetHeader("Content-Type", "application/json").Body(body).Do(context.Background()).Error(); err != nil {
		e.t.Fatal(err)
	}
}

// writes counts the counted writes per method and kind ("POST
// pytorchjobs: 8, ..."), leaving out the access reviews every applying
// run asks (they change nothing).
func writes(c *ktest.Counter) string {
	n := map[string]int{}
	for _, w := range c.Writes() {
		method, path, _ := strings.Cut(w, " ")
		kind := path
		for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
			switch part {
			case "pytorchjobs", "pods", "services", "leases", "selfsubjectaccessreviews", "selfsubjectreviews":
				kind = part
			}
		}
		if kind == "selfsubjectaccessreviews" || kind == "selfsubjectreviews" {
			continue
		}
		n[method+" "+kind]++
	}
	var out []string
	for k, v := range n {
		out = append(out, k+": "+strconv.Itoa(v))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
