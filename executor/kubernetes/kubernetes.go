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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// Defaults of Options.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultLeaseWait = 30 * time.Second
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
	// GracePeriod of pod deletions in seconds; nil is each pod's own.
	GracePeriod *int64
	// Identity names this apply in the Lease; "" is host/pid/random.
	Identity string
	// RESTConfig, when set, is used instead of loading a kubeconfig.
	RESTConfig *rest.Config
}

// Executor carries plans out on one namespace of a Kubernetes cluster.
type Executor struct {
	client    *kubeclient.Client
	namespace string
	opts      Options
	identity  string
	host      string
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
	client, err := kubeclient.Connect(kubeclient.Options{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: o.Namespace, RESTConfig: o.RESTConfig, RequestTimeout: requestTimeout})
	if err != nil {
		return nil, err
	}
	if o.LeaseWait == 0 {
		o.LeaseWait = DefaultLeaseWait
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
	list, err := e.client.Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, e.apiError(err, "list", "nodes")
	}
	nodes := make([]Node, 0, len(list.Items))
	seen := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		n, err := NodeOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		if seen[n.Name] {
			return nil, stateErrorf("the API server lists node %q twice", n.Name)
		}
		seen[n.Name] = true
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	return nodes, nil
}

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

// Validate checks the whole plan against the cluster before any write:
// every job is in jobs with an image and a command that splits, every task's
// node exists, is not cordoned and is Ready (a kept task's node is not
// re-checked: nothing is written there), a node's tasks fit its allocatable,
// GPUs come whole, and the names are valid Kubernetes names. Problems of the
// plan wrap executor.ErrInvalidPlan.
func (e *Executor) Validate(ctx context.Context, plan []executor.Task, jobs map[string]executor.Job) error {
	nodes, err := e.Nodes(ctx)
	if err != nil {
		return err
	}
	capacity := make(map[string]map[string]float64, len(nodes))
	unusable := map[string]string{}
	for _, n := range nodes {
		capacity[n.Name] = n.Capacity
		unusable[n.Name] = n.Unusable
	}
	if err := executor.ValidatePlan(plan, jobs, executor.ValidateOptions{NeedImage: true, Capacity: capacity}); err != nil {
		return err
	}
	named := map[string]bool{}
	for _, t := range plan {
		if !named[t.Job] {
			named[t.Job] = true
			if err := CheckNames(t.Job); err != nil {
				return executor.Invalidf("%v", err)
			}
		}
		if g := t.Resources["gpu"]; g != math.Trunc(g) {
			return executor.Invalidf("task %s: %g GPUs: Kubernetes allocates whole GPUs (nvidia.com/gpu)", t.Name(), g)
		}
		if why := unusable[t.Node]; why != "" && !t.Kept {
			return executor.Invalidf("task %s: node %q is %s", t.Name(), t.Node, why)
		}
	}
	return nil
}

// apiError says what was asked of the namespace, and names the permission
// when the cluster refused it (kubeclient.PermissionError).
func (e *Executor) apiError(err error, verb, resource string) error {
	return e.client.APIError(err, verb, resource)
}
