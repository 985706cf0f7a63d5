package kubernetes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/executor/kubeopts"
)

// Defaults of Options (and of apply's flags: package kubeopts).
const (
	DefaultTimeout       = kubeopts.DefaultTimeout
	DefaultLeaseWait     = kubeopts.DefaultLeaseWait
	DefaultLeaseDuration = kubeopts.DefaultLeaseDuration
)

// Options configure the executor.
type Options struct {
	// Kubeconfig is the kubeconfig file; "" uses the KUBECONFIG variable,
	// then ~/.kube/config, then the in-cluster service account.
	Kubeconfig string
	// Context is the kubeconfig context; "" is its current context.
	Context string
	// Namespace of the pods, Services and Lease; "" is the context's
	// namespace (in a cluster: the pod's own), else "default".
	Namespace string
	// Timeout bounds each wait: for replaced pods to be gone, and for created
	// pods to run, and each API request. 0 is DefaultTimeout; negative: do
	// not wait for pods to run (requests are then bounded by DefaultTimeout).
	Timeout time.Duration
	// LeaseWait bounds the wait for another apply's lease on the namespace.
	// 0 is DefaultLeaseWait; negative: fail at once when it is held.
	LeaseWait time.Duration
	// LeaseDuration is how long the namespace's Lease counts as held
	// without renewal; apply renews it every third of that while it runs,
	// so it is independent of Timeout, and a killed apply's Lease lapses
	// after it. 0 is DefaultLeaseDuration.
	LeaseDuration time.Duration
	// GracePeriod of pod deletions in seconds; nil is each pod's own.
	GracePeriod *int64
	// Identity names this apply in the Lease; "" is host/pid/random.
	Identity string
	// RESTConfig, when set, is used instead of loading a kubeconfig.
	RESTConfig *rest.Config
	// Templates are the jobs' pod templates (LoadTemplates); nil: none.
	Templates *Templates
	// QPS and Burst are the client-side rate limit (kubeclient.Options);
	// 0: the RESTConfig's, else kubeclient.DefaultQPS and DefaultBurst.
	QPS   float32
	Burst int
	// Writers is how many jobs Apply writes at once (each job's own writes
	// stay in order); 0 is writersFor(QPS).
	Writers int
}

// writersFor is how many jobs are written at once at a client-side limit
// of qps requests a second: enough that requests of some 50 ms (the test
// API server under load) keep the limit busy, a fifth of the rate, 4 to
// 32; 32 without a limit.
func writersFor(qps float32) int {
	if qps <= 0 {
		return 32
	}
	return min(32, max(4, int(qps/5)))
}

// Executor carries plans out on one namespace of a Kubernetes cluster.
type Executor struct {
	client    *kubeclient.Client
	namespace string
	opts      Options
	identity  string
	host      string
	notes     []string // for apply's summary (Notes)
	// beforeWrite, when set (tests), is called before each write Apply
	// makes, naming it; an error stops Apply there as a SIGKILL would: no
	// rollback, no journal cleared, the Lease not given back.
	beforeWrite func(write string) error
	killed      error
	mu          sync.Mutex            // guards killed and calls of beforeWrite: jobs are written at once
	leftRunning func(job string) bool // LeaveRunning
}

var _ executor.Executor = (*Executor)(nil)

// New connects to the cluster the options name. It makes no API call.
func New(ctx context.Context, o Options) (*Executor, error) {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	// Every request is bounded by the timeout too: the first one (listing
	// the nodes in Validate) must not hang on a server that never answers.
	requestTimeout := o.Timeout
	if requestTimeout < 0 {
		requestTimeout = DefaultTimeout
	}
	client, err := kubeclient.Connect(kubeclient.Options{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: o.Namespace, RESTConfig: o.RESTConfig, RequestTimeout: requestTimeout, QPS: o.QPS, Burst: o.Burst})
	if err != nil {
		return nil, err
	}
	if o.LeaseWait == 0 {
		o.LeaseWait = DefaultLeaseWait
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.Writers <= 0 {
		qps := o.QPS
		if qps == 0 {
			qps = kubeclient.DefaultQPS
			if o.RESTConfig != nil && o.RESTConfig.QPS != 0 {
				qps = o.RESTConfig.QPS
			}
		}
		o.Writers = writersFor(qps)
	}
	id := o.Identity
	if id == "" {
		host, _ := os.Hostname()
		var b [3]byte
		_, _ = rand.Read(b[:])
		id = host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b[:])
	}
	return &Executor{client: client, namespace: client.Namespace, opts: o, identity: id, host: client.Host}, nil
}

// Name is "kubernetes".
func (e *Executor) Name() string { return "kubernetes" }

// Throttled is how long the executor's API requests waited for the
// client-side rate limit (--qps, --burst) so far.
func (e *Executor) Throttled() kubeclient.Throttle { return e.client.Throttled() }

// Namespace is where the executor acts.
func (e *Executor) Namespace() string { return e.namespace }

// Current reads the optimus-managed pods back into tasks (schedulers left
// out: they are not in plans), sorted by job, role and index.
func (e *Executor) Current(ctx context.Context) ([]executor.Task, error) {
	pods, err := e.managedPods(ctx)
	if err != nil {
		return nil, err
	}
	var tasks []executor.Task
	for i := range pods {
		if t, ok := TaskOf(&pods[i]); ok {
			tasks = append(tasks, t)
		}
	}
	sortTasks(tasks)
	return tasks, nil
}

func (e *Executor) managedPods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := e.client.Pods(e.namespace).List(ctx, metav1.ListOptions{LabelSelector: ManagedSelector})
	if err != nil {
		return nil, e.apiError(err, "list", "pods")
	}
	return list.Items, nil
}

// TaskOf reads a managed pod back into the task it runs: false for a pod
// that is not a ps or worker task of optimus.
func TaskOf(p *corev1.Pod) (executor.Task, bool) {
	l := p.Labels
	if l[LabelManagedBy] != ManagedByValue || l[LabelJob] == "" {
		return executor.Task{}, false
	}
	role := l[LabelRole]
	if role != executor.RolePS && role != executor.RoleWorker {
		return executor.Task{}, false
	}
	idx, err := strconv.Atoi(l[LabelIndex])
	if err != nil || idx < 0 {
		return executor.Task{}, false
	}
	t := executor.Task{Job: l[LabelJob], Role: role, Index: idx, Node: p.Spec.NodeName, Resources: map[string]float64{}}
	if s := p.Annotations[AnnotResources]; s != "" && json.Unmarshal([]byte(s), &t.Resources) == nil {
		return t, true
	}
	// No annotation (made by hand?): what the pod requests of known resources.
	t.Resources = map[string]float64{}
	for _, c := range p.Spec.Containers {
		for _, m := range ResourceMap {
			if q, ok := c.Resources.Requests[m.Kube]; ok {
				t.Resources[m.Plan] += float64(q.MilliValue()) / 1000 / m.Factor
			}
		}
	}
	return t, true
}

// Node is a node as optimus sees it: its Capacity holds its allocatable
// cpu, memory_gb and gpu, and the resources of its optimus.dev/capacity
// annotation.
type Node = executor.Node

// Nodes lists the cluster's nodes, sorted by name.
func (e *Executor) Nodes(ctx context.Context) ([]Node, error) {
	list, err := e.listNodes(ctx)
	if err != nil {
		return nil, err
	}
	nodes := make([]Node, 0, len(list))
	for i := range list {
		n, err := NodeOf(&list[i])
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	return nodes, nil
}

// listNodes lists the cluster's nodes; a node listed twice is a StateError
// (every caller, snapshot and validation alike, relies on unique names).
func (e *Executor) listNodes(ctx context.Context) ([]corev1.Node, error) {
	list, err := e.client.Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, e.apiError(err, "list", "nodes")
	}
	seen := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		name := list.Items[i].Name
		if seen[name] {
			return nil, stateErrorf("the API server lists node %q twice", name)
		}
		seen[name] = true
	}
	return list.Items, nil
}

// manifestOptions are the options the executor builds its objects with.
func (e *Executor) manifestOptions() ManifestOptions {
	return ManifestOptions{Namespace: e.namespace, Templates: e.opts.Templates}
}

// Notes are what the last Validate said for apply's summary: the foreign
// pods' requests it subtracted.
func (e *Executor) Notes() []string { return e.notes }

// NodeOf reads a node's allocatable and state; a capacity annotation that
// is not JSON, or any negative amount, is a StateError naming the node.
func NodeOf(n *corev1.Node) (Node, error) {
	out := Node{Name: n.Name, Capacity: map[string]float64{}}
	if s := n.Annotations[AnnotCapacity]; s != "" {
		if err := json.Unmarshal([]byte(s), &out.Capacity); err != nil {
			return Node{}, stateErrorf("node %s: annotation %s: %v (want JSON like {\"net_gbps\": 10})", n.Name, AnnotCapacity, err)
		}
		if err := checkAmounts(fmt.Sprintf("node %s: annotation %s", n.Name, AnnotCapacity), out.Capacity); err != nil {
			return Node{}, err
		}
	}
	for _, m := range ResourceMap {
		q := n.Status.Allocatable[m.Kube]
		v := float64(q.MilliValue()) / 1000 / m.Factor
		if m.Factor > 1 {
			v = float64(q.Value()) / m.Factor
		}
		out.Capacity[m.Plan] = math.Round(v*1000) / 1000
	}
	if err := checkAmounts(fmt.Sprintf("node %s: allocatable", n.Name), out.Capacity); err != nil {
		return Node{}, err
	}
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	switch {
	case n.Spec.Unschedulable:
		out.Unusable = "cordoned"
	case !ready:
		out.Unusable = "not Ready"
	}
	return out, nil
}

// Validate checks the whole plan against the cluster before any write
// (docs/kubernetes.md, "Validate: before any write"): the namespace exists;
// every job is in jobs with an image and a command that splits; every
// task's node exists, is not cordoned and is Ready, has no NoSchedule or
// NoExecute taint the pod does not tolerate and the labels its
// nodeSelector wants (a kept task's node is not re-checked: nothing is
// written there); each node's pods fit its allocatable less what pods
// optimus does not manage request there (ForeignUsage) and what the jobs
// the plan leaves running request (LeaveRunning); GPUs come whole;
// and every object's name is one Kubernetes accepts. Problems of the plan
// wrap executor.ErrInvalidPlan.
func (e *Executor) Validate(ctx context.Context, plan []executor.Task, jobs map[string]executor.Job) error {
	left := e.leftRunning
	e.leftRunning = nil
	if err := e.CheckNamespace(ctx); err != nil {
		return err
	}
	raw, err := e.listNodes(ctx)
	if err != nil {
		return err
	}
	var leftRunning func(string) bool
	if left != nil {
		planned := map[string]bool{}
		for _, t := range plan {
			planned[t.Job] = true
		}
		leftRunning = func(job string) bool { return !planned[job] && left(job) }
	}
	foreign, err := e.foreignUsage(ctx, leftRunning)
	if err != nil {
		return err
	}
	e.notes = nil
	if note := foreign.Note(); note != "" {
		e.notes = append(e.notes, note)
	}
	capacity := make(map[string]map[string]float64, len(raw))
	unusable := map[string]string{}
	byName := make(map[string]*corev1.Node, len(raw))
	for i := range raw {
		n, err := NodeOf(&raw[i])
		if err != nil {
			return err
		}
		capacity[n.Name] = listedCapacity(&raw[i], n.Capacity)
		unusable[n.Name] = n.Unusable
		byName[n.Name] = &raw[i]
	}
	if err := executor.ValidatePlan(plan, jobs, executor.ValidateOptions{NeedImage: true}); err != nil {
		return err
	}
	for _, t := range plan {
		if g := t.Resources["gpu"]; g != math.Trunc(g) {
			return executor.Invalidf("task %s: %g GPUs: Kubernetes allocates whole GPUs (nvidia.com/gpu)", t.Name(), g)
		}
		if _, ok := capacity[t.Node]; !ok {
			return executor.Invalidf("task %s: node %q is not in the cluster", t.Name(), t.Node)
		}
		if why := unusable[t.Node]; why != "" && !t.Kept {
			return executor.Invalidf("task %s: node %q is %s", t.Name(), t.Node, why)
		}
	}
	eff, err := e.validatePods(plan, jobs, byName)
	if err != nil {
		return err
	}
	reserved, by := foreign.reserved()
	return executor.ValidatePlan(eff, jobs, executor.ValidateOptions{NeedImage: true, Capacity: capacity,
		Reserved: reserved, ReservedBy: by})
}

// apiError says what was asked of the namespace, and names the permission
// when the cluster refused it (kubeclient.PermissionError).
func (e *Executor) apiError(err error, verb, resource string) error {
	return e.client.APIError(err, verb, resource)
}
