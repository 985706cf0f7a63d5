// Package pytorchjob is the executor that carries a plan out as Kubeflow
// training-operator PyTorchJobs (kubeflow.org/v1): one PyTorchJob per
// all-reduce job, resized by updating its replica counts in place, placed
// by node affinity on the planned nodes (docs/kubernetes.md, "PyTorchJob
// executor"). It shares the pod executor's client, Lease and access checks
// (executor/kubeclient), its validation of the plan against the cluster,
// and its pod building (pod templates, resources, labels, environment).
package pytorchjob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/executor/kubeopts"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

// Name is the executor's name (apply --executor).
const Name = kubeopts.PyTorchJob

// Needed lists every permission the executor uses: the PyTorchJobs it
// manages, the Lease that serialises applies (the pod executor's: one apply
// at a time per namespace, whichever executor), and what the pod
// executor's validation reads (nodes, every namespace's pods, the
// namespace).
var Needed = slices.Concat(
	access("kubeflow.org", Resource, false, "get", "list", "create", "update", "delete"),
	access("coordination.k8s.io", "leases", false, "get", "create", "update"),
	access("", "nodes", true, "list"),
	access("", "pods", true, "list"),
	access("", "namespaces", true, "get"),
)

func access(group, resource string, cluster bool, verbs ...string) []kubeclient.Access {
	out := make([]kubeclient.Access, len(verbs))
	for i, v := range verbs {
		out[i] = kubeclient.Access{Group: group, Resource: resource, Verb: v, Cluster: cluster}
	}
	return out
}

// Executor carries plans out as PyTorchJobs in one namespace.
type Executor struct {
	pods      *k8s.Executor // validation against the cluster (nodes, foreign pods, taints)
	client    *kubeclient.Client
	namespace string
	opts      k8s.Options
	identity  string
}

var _ executor.Executor = (*Executor)(nil)

// New connects to the cluster the options name (the pod executor's
// Options; Timeout bounds each request, as nothing waits for pods). It
// makes no API call.
func New(ctx context.Context, o k8s.Options) (*Executor, error) {
	if o.Timeout == 0 {
		o.Timeout = k8s.DefaultTimeout
	}
	if o.LeaseWait == 0 {
		o.LeaseWait = k8s.DefaultLeaseWait
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = k8s.DefaultLeaseDuration
	}
	requestTimeout := o.Timeout
	if requestTimeout < 0 {
		requestTimeout = k8s.DefaultTimeout
	}
	if o.Identity == "" {
		host, _ := os.Hostname()
		var b [3]byte
		_, _ = rand.Read(b[:])
		o.Identity = host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b[:])
	}
	pods, err := k8s.New(ctx, o)
	if err != nil {
		return nil, err
	}
	client, err := kubeclient.Connect(kubeclient.Options{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: o.Namespace, RESTConfig: o.RESTConfig,
		RequestTimeout: requestTimeout, QPS: o.QPS, Burst: o.Burst, Groups: []kubeclient.Group{{Version: GroupVersion, AddToScheme: AddToScheme}}})
	if err != nil {
		return nil, err
	}
	return &Executor{pods: pods, client: client, namespace: client.Namespace, opts: o, identity: o.Identity}, nil
}

// Name is "pytorchjob".
func (e *Executor) Name() string { return Name }

// Namespace is where the executor acts.
func (e *Executor) Namespace() string { return e.namespace }

func (e *Executor) jobs() kubeclient.Resource[PyTorchJob, *PyTorchJob, PyTorchJobList, *PyTorchJobList] {
	return kubeclient.For[PyTorchJob, *PyTorchJob, PyTorchJobList, *PyTorchJobList](e.client, GroupVersion, e.namespace, Resource)
}

// list reads the namespace's PyTorchJobs (managed or not: a foreign one in
// the way of a job is a conflict) by name. A cluster that serves no
// PyTorchJobs is said so.
func (e *Executor) list(ctx context.Context, selector string) (map[string]*PyTorchJob, error) {
	l, err := e.jobs().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("kubernetes: the API server at %s serves no %s.%s/%s: install Kubeflow's training operator (its CRD %s.%s) first; nothing was changed",
			e.client.Host, Resource, GroupVersion.Group, GroupVersion.Version, Resource, GroupVersion.Group)
	}
	if err != nil {
		return nil, e.client.APIError(err, "list", Resource+"."+GroupVersion.Group)
	}
	out := make(map[string]*PyTorchJob, len(l.Items))
	for i := range l.Items {
		out[l.Items[i].Name] = &l.Items[i]
	}
	return out, nil
}

// Current reads the optimus-managed PyTorchJobs back into the tasks they
// run (TasksOf), sorted by job and index; a PyTorchJob whose tasks cannot
// be read is a kubernetes.StateError naming it (exit 2).
func (e *Executor) Current(ctx context.Context) ([]executor.Task, error) {
	jobs, err := e.list(ctx, k8s.ManagedSelector)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(jobs))
	for n := range jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	var tasks []executor.Task
	for _, n := range names {
		j := jobs[n]
		if j.Labels[k8s.LabelJob] == "" {
			continue
		}
		ts, err := TasksOf(j)
		if err != nil {
			return nil, &k8s.StateError{Msg: err.Error() + " (namespace " + e.namespace + ")"}
		}
		tasks = append(tasks, ts...)
	}
	return tasks, nil
}

// Validate checks that the cluster serves PyTorchJobs, then the whole plan
// as the pod executor does (kubernetes.Executor.Validate: the namespace,
// the jobs' images and commands, nodes that exist, are usable and take the
// pods, capacity less what pods optimus does not manage request, names
// Kubernetes accepts), before any write.
func (e *Executor) Validate(ctx context.Context, plan []executor.Task, jobs map[string]executor.Job) error {
	if err := e.pods.CheckNamespace(ctx); err != nil {
		return err
	}
	if _, err := e.jobs().List(ctx, metav1.ListOptions{Limit: 1}); apierrors.IsNotFound(err) {
		_, err = e.list(ctx, "")
		return err
	}
	return e.pods.Validate(ctx, plan, jobs)
}

// Notes are what the last Validate said (the foreign pods' requests it
// subtracted), for apply's summary.
func (e *Executor) Notes() []string { return e.pods.Notes() }

// CheckAccess checks that this user has every permission in Needed; Apply
// calls it before its first write.
func (e *Executor) CheckAccess(ctx context.Context) error {
	return e.client.CheckAccess(ctx, Needed)
}

func (e *Executor) hold(ctx context.Context) (*kubeclient.Hold, error) {
	return e.client.HoldLease(ctx, kubeclient.LeaseOptions{
		Name: k8s.LeaseName, Identity: e.identity, Duration: e.opts.LeaseDuration, Wait: e.opts.LeaseWait,
		Labels: map[string]string{k8s.LabelManagedBy: k8s.ManagedByValue},
	})
}

func (e *Executor) manifestOptions() k8s.ManifestOptions {
	return k8s.ManifestOptions{Namespace: e.namespace, Templates: e.opts.Templates}
}
