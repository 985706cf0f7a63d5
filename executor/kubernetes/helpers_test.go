package kubernetes_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

func TestMain(m *testing.M) {
	flag.Parse()
	ktest.DefaultParallel(4)
	code := m.Run()
	stopKubelet()
	ktest.StopShared()
	os.Exit(code)
}

var (
	kubeletOnce sync.Once
	stopKubelet = func() {}

	nodesMu    sync.Mutex
	nodesAdded = map[string]bool{}
)

// env is one test's namespace on the shared API server, with the testbed's
// nodes and plan (apply/testdata: the pipeline's output over the embedded
// testbed, 9 jobs, 60 tasks on 13 nodes).
type env struct {
	t       *testing.T
	srv     *ktest.Server
	admin   kubernetes.Interface
	ns      string
	plan    apply.Plan
	jobs    map[string]executor.Job
	cluster []ktest.NodeSpec
	suffix  string // of the node names of a parallel test's own nodes
	// nodesChanged is set by a parallel test that changes its nodes
	// (labels, say): its set is not given to another test.
	nodesChanged bool
}

// setup is a namespace of its own on the shared API server for the
// testbed's plan, on the testbed's nodes, for a test that runs alone. Go
// runs such tests one after another before any parallel one starts, and
// each deletes its pods when it ends.
func setup(t *testing.T) *env { return setupWith(t, testbed) }

// setupParallel is setup for a test that runs beside others (t.Parallel):
// the testbed's nodes are its own, named with a suffix (e.node), because
// Validate and snapshot count every pod on a node that this namespace's
// optimus does not manage, and another test's pods are such pods.
func setupParallel(t *testing.T) *env { return setupParallelWith(t, testbed) }

// setupParallelWith is setupParallel for the plan, jobs and nodes data gives.
func setupParallelWith(t *testing.T, data func(*testing.T) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec)) *env {
	t.Helper()
	t.Parallel()
	_, _, base := data(t)
	suffix := takeNodeSet(base)
	var e *env
	// Registered before setupWith's namespace cleanup, so run after it:
	// the set goes back once the test's pods are gone.
	t.Cleanup(func() {
		if e != nil && !e.nodesChanged {
			giveNodeSet(base, suffix)
		}
	})
	e = setupWith(t, func(t *testing.T) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec) {
		plan, jobs, nodes := data(t)
		plan = clonePlan(plan)
		for i := range plan.Tasks {
			plan.Tasks[i].Node += suffix
		}
		for i := range nodes {
			nodes[i].Name += suffix
		}
		return plan, jobs, nodes
	})
	e.suffix = suffix
	return e
}

// privateNodeSets numbers the parallel tests' node sets.
var privateNodeSets atomic.Int32

// freeNodeSets are the suffixes of the parallel tests' node sets no test
// holds, by the names of the nodes in the set. A parallel test takes one
// (or a new one when none is free) and gives it back when it ends, after
// its namespace's pods are deleted: no two tests running at once share a
// node, as before, but the binary creates as many sets as tests run at
// once (-test.parallel) instead of one per test, and every node list and
// watch of the cluster carries that many fewer nodes.
var (
	nodeSetsMu   sync.Mutex
	freeNodeSets = map[string][]string{}
)

func nodeSetKey(nodes []ktest.NodeSpec) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

func takeNodeSet(nodes []ktest.NodeSpec) string {
	nodeSetsMu.Lock()
	defer nodeSetsMu.Unlock()
	k := nodeSetKey(nodes)
	if free := freeNodeSets[k]; len(free) > 0 {
		freeNodeSets[k] = free[:len(free)-1]
		return free[len(free)-1]
	}
	return fmt.Sprintf("-p%02d", privateNodeSets.Add(1))
}

func giveNodeSet(nodes []ktest.NodeSpec, suffix string) {
	nodeSetsMu.Lock()
	defer nodeSetsMu.Unlock()
	k := nodeSetKey(nodes)
	freeNodeSets[k] = append(freeNodeSets[k], suffix)
}

// node is the name the test's copy of the testbed's node name has.
func (e *env) node(name string) string { return name + e.suffix }

// setupWith is setup for the plan, jobs and nodes data gives.
func setupWith(t *testing.T, data func(*testing.T) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec)) *env {
	t.Helper()
	srv := ktest.Shared(t)
	e := &env{t: t, srv: srv, admin: srv.Admin()}
	e.plan, e.jobs, e.cluster = data(t)
	addNodesOnce(t, e.admin, e.cluster)
	kubeletOnce.Do(func() { stopKubelet = ktest.Kubelet(e.admin) })
	e.ns = ktest.Namespace(t, e.admin)
	return e
}

// addNodesOnce creates the nodes not created yet in this test binary.
func addNodesOnce(t *testing.T, admin kubernetes.Interface, nodes []ktest.NodeSpec) {
	t.Helper()
	nodesMu.Lock()
	defer nodesMu.Unlock()
	var missing []ktest.NodeSpec
	for _, n := range nodes {
		if !nodesAdded[n.Name] {
			missing = append(missing, n)
		}
	}
	ktest.AddNodes(t, admin, missing)
	for _, n := range missing {
		nodesAdded[n.Name] = true
	}
}

func testbed(t *testing.T) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec) {
	t.Helper()
	// A spare GPU node the plan does not use, for moves and resizes: the
	// testbed's nodes are full on net_gbps.
	spare := ktest.NodeSpec{Name: "gpu-07", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64, "net_gbps": 10}}
	return readTestdata(t, "../../apply/testdata", spare)
}

// readTestdata reads the plan, jobs and cluster of a folder of
// apply/testdata, the cluster's nodes with extra ones, sorted by name.
func readTestdata(t *testing.T, dir string, extra ...ktest.NodeSpec) (apply.Plan, map[string]executor.Job, []ktest.NodeSpec) {
	t.Helper()
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
		nodes = append(nodes, ktest.NodeSpec{Name: node, Capacity: c})
	}
	nodes = append(nodes, extra...)
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	return plan, adapt.ReadJobs(jt), nodes
}

// executor is an executor on the test's namespace whose writes are counted.
func (e *env) executor(token string, mod func(*k8s.Options)) (*k8s.Executor, *ktest.Counter) {
	e.t.Helper()
	c := &ktest.Counter{}
	// A Lease long enough that no renewal lands among the counted writes.
	o := k8s.Options{Namespace: e.ns, RESTConfig: c.Wrap(e.srv.Config(token)), Timeout: 30 * time.Second, LeaseWait: 10 * time.Second, LeaseDuration: 10 * time.Minute}
	if mod != nil {
		mod(&o)
	}
	x, err := k8s.New(context.Background(), o)
	if err != nil {
		e.t.Fatal(err)
	}
	return x, c
}

// run is what optimus apply does: read what runs, validate the plan, diff,
// apply. It returns every job's result (Diff's skipped ones too), sorted by job.
func (e *env) run(x *k8s.Executor, plan apply.Plan, prune bool) ([]executor.Result, error) {
	e.t.Helper()
	ctx := context.Background()
	cur, err := x.Current(ctx)
	if err != nil {
		return nil, err
	}
	if err := x.Validate(ctx, plan.Tasks, e.jobs); err != nil {
		return nil, err
	}
	changes, skipped := apply.Diff(plan, cur, e.jobs, apply.Options{Prune: prune, Generation: apply.Generation(plan)})
	res, err := x.Apply(ctx, changes, false)
	if err != nil {
		return nil, err
	}
	all := append(res, skipped...)
	sort.SliceStable(all, func(a, b int) bool { return all[a].Change.Job.Job < all[b].Change.Job.Job })
	return all, nil
}

// outcomes are "job action outcome" lines.
func outcomes(rs []executor.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Change.Job.Job+" "+r.Change.Action+" "+r.Outcome)
	}
	return out
}

// logResults prints what apply reported, as the closing note quotes it.
func logResults(t *testing.T, rs []executor.Result) {
	t.Helper()
	for _, r := range rs {
		t.Logf("%-12s %-6s %-8s %s", r.Change.Job.Job, r.Change.Action, r.Outcome, r.Message)
		for _, tr := range r.Tasks {
			if tr.Outcome == executor.OutcomeFailed {
				t.Logf("    %s %s: %s", tr.Task.Name(), tr.Outcome, tr.Message)
			}
		}
	}
}

// tasksOf renders tasks as sorted "name@node" lines (with their resources).
func tasksOf(ts []executor.Task) []string {
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
	return out
}

// pods lists the namespace's pods by name.
func (e *env) pods() map[string]corev1.Pod {
	e.t.Helper()
	list, err := e.admin.CoreV1().Pods(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]corev1.Pod{}
	for _, p := range list.Items {
		out[p.Name] = p
	}
	return out
}

// keepJobs narrows the test's plan to the named jobs of the testbed, for
// a test whose claim is about one or two jobs (and the jobs beside them
// left alone): the testbed's other jobs would add some 60 pods to create,
// start and delete, and no case. The nodes stay the testbed's.
func (e *env) keepJobs(jobs ...string) {
	e.t.Helper()
	keep := map[string]bool{}
	for _, job := range jobs {
		keep[job] = true
	}
	p, tasks := apply.Plan{}, map[string]bool{}
	for _, j := range e.plan.Jobs {
		if keep[j.Job] {
			p.Jobs = append(p.Jobs, j)
		}
	}
	for _, t := range e.plan.Tasks {
		if keep[t.Job] {
			p.Tasks = append(p.Tasks, t)
			tasks[t.Job] = true
		}
	}
	if len(tasks) != len(keep) || len(p.Jobs) != len(keep) {
		e.t.Fatalf("keepJobs: jobs %v not all in the plan", jobs)
	}
	e.plan = p
}

// without is the plan without the named job's tasks (and its jobs row).
func without(p apply.Plan, job string) apply.Plan {
	q := apply.Plan{}
	for _, j := range p.Jobs {
		if j.Job != job {
			q.Jobs = append(q.Jobs, j)
		}
	}
	for _, t := range p.Tasks {
		if t.Job != job {
			q.Tasks = append(q.Tasks, t)
		}
	}
	return q
}

func clonePlan(p apply.Plan) apply.Plan {
	q := apply.Plan{Jobs: append([]apply.PlanJob(nil), p.Jobs...)}
	for _, t := range p.Tasks {
		t.Resources = cloneMap(t.Resources)
		q.Tasks = append(q.Tasks, t)
	}
	return q
}

func cloneMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// room finds a node, other than avoid, where task t fits beside the plan's tasks.
func (e *env) room(p apply.Plan, t executor.Task, avoid string) string {
	e.t.Helper()
	use := map[string]map[string]float64{}
	for _, u := range p.Tasks {
		if use[u.Node] == nil {
			use[u.Node] = map[string]float64{}
		}
		for r, v := range u.Resources {
			use[u.Node][r] += v
		}
	}
	for _, n := range e.cluster {
		if n.Name == avoid {
			continue
		}
		fits := true
		for r, v := range t.Resources {
			if use[n.Name][r]+v > n.Capacity[r] {
				fits = false
			}
		}
		if fits {
			return n.Name
		}
	}
	e.t.Fatalf("no node has room for %s", t.Name())
	return ""
}

func envOf(p corev1.Pod, name string) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	for _, v := range p.Spec.Containers[0].Env {
		if v.Name == name {
			return v.Value
		}
	}
	return ""
}
