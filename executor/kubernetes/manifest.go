// Package kubernetes is the executor that carries a plan out on a Kubernetes
// cluster with client-go: one pod per task, bound to its planned node, and a
// headless Service per job (docs/kubernetes.md). The objects are built here,
// without API calls, so `optimus apply --executor print --manifests` prints
// exactly what this executor would create.
package kubernetes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeopts"
)

// Labels and annotations optimus puts on what it creates.
const (
	LabelManagedBy   = "app.kubernetes.io/managed-by"
	ManagedByValue   = "optimus"
	LabelJob         = "optimus.dev/job"
	LabelRole        = "optimus.dev/role"
	LabelIndex       = "optimus.dev/index"
	LabelGeneration  = "optimus.dev/generation"
	AnnotResources   = "optimus.dev/resources"  // the task's demands in the plan's units, JSON
	AnnotSpecHash    = "optimus.dev/spec-hash"  // hash of what the pod runs; equal hash: nothing to do
	AnnotGeneration  = "optimus.dev/generation" // the plan's generation, unabridged
	AnnotModel       = "optimus.dev/model"
	AnnotMode        = "optimus.dev/mode"
	AnnotGlobalBatch = "optimus.dev/global-batch"

	// RoleScheduler is the extra task an MXNet job needs (DMLC_ROLE=scheduler).
	// It is not in the plan: it runs beside the job's first PS and requests nothing.
	RoleScheduler = "scheduler"

	// Port is the one port every task listens on (DMLC_PS_ROOT_PORT, TF_CONFIG addresses).
	Port = 2222

	// ManagedSelector selects every object optimus manages.
	ManagedSelector = LabelManagedBy + "=" + ManagedByValue
)

// Frameworks, chosen per job by FrameworkOf.
const (
	FrameworkMXNet      = "mxnet"
	FrameworkPyTorch    = "pytorch"
	FrameworkTensorFlow = "tensorflow"
)

// ResourceMap maps the plan's resource names to Kubernetes resource names,
// with the factor from the plan's unit to the Kubernetes quantity. The
// cluster's other resources (net_gbps, ...) have no Kubernetes counterpart:
// they are recorded in the pod's optimus.dev/resources annotation and
// checked against the nodes' optimus.dev/capacity annotation only.
var ResourceMap = []struct {
	Plan   string
	Kube   corev1.ResourceName
	Factor float64 // plan unit -> Kubernetes base unit
	Whole  bool    // Kubernetes accepts whole numbers only
}{
	{"cpu", corev1.ResourceCPU, 1, false},
	{"memory_gb", corev1.ResourceMemory, 1 << 30, false}, // GiB, as node memory is reported
	{"gpu", ResourceGPU, 1, true},
}

// ResourceGPU is the extended resource NVIDIA's device plugin advertises.
const ResourceGPU corev1.ResourceName = "nvidia.com/gpu"

// AnnotCapacity on a node declares its capacity of resources Kubernetes does
// not know, as JSON in the plan's units ({"net_gbps": 10}): snapshot reads them
// into the cluster table and Validate checks the plan against them.
const AnnotCapacity = "optimus.dev/capacity"

// ManifestOptions say where the objects go and what the pods carry
// besides optimus' own parts. The zero value works.
type ManifestOptions struct {
	Namespace string     // "" is "default"
	Templates *Templates // the jobs' pod templates; nil: none
}

func (o ManifestOptions) namespace() string {
	if o.Namespace == "" {
		return "default"
	}
	return o.Namespace
}

// CheckNamespace reports a namespace Kubernetes cannot have: a namespace
// is a DNS-1123 label (so no "/", "..", spaces or newlines reach a path,
// a URL or YAML). "" is fine: it means the default. (kubeopts.CheckNamespace:
// the light binary checks --namespace too.)
func CheckNamespace(ns string) error { return kubeopts.CheckNamespace(ns) }

// checkNode reports a node name Kubernetes cannot have (a DNS-1123
// subdomain).
func checkNode(t executor.Task) error {
	if errs := validation.IsDNS1123Subdomain(t.Node); len(errs) > 0 {
		return fmt.Errorf("task %s: node %q is not a Kubernetes node name: %s", t.Name(), t.Node, strings.Join(errs, "; "))
	}
	return nil
}

// checkImage reports an image reference no registry accepts: one with
// white space or control characters (a newline would also break the YAML
// or the line it is printed on).
func checkImage(j executor.Job) error {
	for _, r := range j.Image {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("job %q: image %q has white space or a control character: an image reference has none", j.Job, j.Image)
		}
	}
	if len(j.Image) > 4096 {
		return fmt.Errorf("job %q: image of %d bytes: too long for an image reference", j.Job, len(j.Image))
	}
	return nil
}

// FrameworkOf decides which peer environment a job's tasks get: MXNet's
// DMLC_* variables (and a scheduler task) when the job's image or command
// names mxnet or uses MXNet's --kv-store flag; PyTorch's torchrun/DDP
// variables when it names torch (torchrun, pytorch, torch.distributed);
// TensorFlow's TF_CONFIG otherwise.
func FrameworkOf(j executor.Job) string {
	s := strings.ToLower(j.Image + " " + j.Command)
	switch {
	case strings.Contains(s, "mxnet") || strings.Contains(s, "--kv-store"):
		return FrameworkMXNet
	case strings.Contains(s, "torch"):
		return FrameworkPyTorch
	}
	return FrameworkTensorFlow
}

// SchedulerRequests are what an MXNet job's scheduler pod requests (and is
// limited to), in the plan's units, taken out of the first PS's share
// (shareWithScheduler): the ps-lite scheduler only brokers the peers'
// addresses.
var SchedulerRequests = map[string]float64{"cpu": 0.25, "memory_gb": 0.5}

// MinRequests are what a task requests of cpu and memory when neither the
// plan nor its pod template says (no limit): every pod optimus creates
// requests something, so a namespace's cpu or memory ResourceQuota admits
// it and it is not BestEffort, the first evicted.
var MinRequests = map[string]float64{"cpu": 0.1, "memory_gb": 0.25}

// CheckNames reports a job name Kubernetes cannot use: it names the job's
// Service, so it must be a DNS-1035 label (lower-case letters, digits and
// '-', starting with a letter, at most 63 characters). Pod names
// (<job>-<role>-<index>, also the pods' hostnames) are checked as DNS-1123
// labels when they are built.
func CheckNames(job string) error {
	if errs := validation.IsDNS1035Label(job); len(errs) > 0 {
		return fmt.Errorf("job %q cannot name a Kubernetes Service: %s", job, strings.Join(errs, "; "))
	}
	return nil
}

// Service is the headless Service of a job: its tasks resolve each other as
// <task>.<job>, ready or not.
func Service(j executor.Job, o ManifestOptions) *corev1.Service {
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      j.Job,
			Namespace: o.namespace(),
			Labels:    map[string]string{LabelManagedBy: ManagedByValue, LabelJob: j.Job},
		},
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 map[string]string{LabelManagedBy: ManagedByValue, LabelJob: j.Job},
			PublishNotReadyAddresses: true,
			Ports:                    []corev1.ServicePort{{Name: "optimus", Port: Port, TargetPort: intstr.FromInt32(Port)}},
		},
	}
}

// Pods are the pods of a change's wanted tasks (c.To), in task order, plus
// the scheduler pod of an MXNet job. A stop change has none.
func Pods(c executor.Change, o ManifestOptions) ([]*corev1.Pod, error) {
	if len(c.To) == 0 {
		return nil, nil
	}
	j := c.Job
	if err := CheckNamespace(o.Namespace); err != nil {
		return nil, err
	}
	if j.Image == "" {
		return nil, fmt.Errorf("job %q has no image: the jobs table's image column is empty", j.Job)
	}
	if err := checkImage(j); err != nil {
		return nil, err
	}
	if err := CheckNames(j.Job); err != nil {
		return nil, err
	}
	args, err := executor.SplitCommand(j.Command)
	if err != nil {
		return nil, fmt.Errorf("job %q: %v", j.Job, err)
	}
	tasks := append([]executor.Task(nil), c.To...)
	sortTasks(tasks)
	var ps, workers []string
	for _, t := range tasks {
		if err := checkNode(t); err != nil {
			return nil, err
		}
		addr := t.Name() + "." + j.Job + ":" + strconv.Itoa(Port)
		if t.Role == executor.RolePS {
			ps = append(ps, addr)
		} else {
			workers = append(workers, addr)
		}
	}
	fw := FrameworkOf(j)
	if fw == FrameworkPyTorch && len(ps) > 0 {
		return nil, fmt.Errorf("job %q: a PyTorch job (torchrun/DDP) is all-reduce, but the plan gives it %d parameter servers: set its mode to allreduce", j.Job, len(ps))
	}
	tpl := o.Templates.For(j)
	peers := peers{ps: ps, workers: workers}
	withScheduler := fw == FrameworkMXNet && len(ps) > 0
	var schedDemand map[string]float64
	var pods []*corev1.Pod
	for i, t := range tasks {
		if t.Job != j.Job {
			return nil, fmt.Errorf("task %s is in the change of job %q", t.Name(), j.Job)
		}
		demand := t.Resources
		if withScheduler && i == 0 { // sorted: the first PS
			demand, schedDemand = shareWithScheduler(t.Resources)
		}
		p, err := pod(j, t, c.Generation, o, tpl, requirements(demand), envFor(fw, j, t, peers), args)
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	if withScheduler {
		sched := executor.Task{Job: j.Job, Role: RoleScheduler, Index: 0, Node: tasks[0].Node}
		p, err := pod(j, sched, c.Generation, o, tpl, requirements(schedDemand), envFor(fw, j, sched, peers), args)
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	return pods, nil
}

// sortTasks orders tasks by role (ps first) and index.
func sortTasks(ts []executor.Task) {
	sort.SliceStable(ts, func(a, b int) bool {
		if ts[a].Job != ts[b].Job {
			return ts[a].Job < ts[b].Job
		}
		if ts[a].Role != ts[b].Role {
			return ts[a].Role < ts[b].Role // "ps" < "scheduler" < "worker"
		}
		return ts[a].Index < ts[b].Index
	})
}

func pod(j executor.Job, t executor.Task, generation string, o ManifestOptions, tpl *Template, res corev1.ResourceRequirements, env []corev1.EnvVar, args []string) (*corev1.Pod, error) {
	name := t.Name()
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return nil, fmt.Errorf("job %q: task %s cannot name a pod (a pod's name is also its hostname, a DNS-1123 label): %s; a job with this task needs a name of at most %d characters", j.Job, name, strings.Join(errs, "; "), validation.DNS1123LabelMaxLength-(len(name)-len(j.Job)))
	}
	resJSON, err := json.Marshal(t.Resources) // map keys sorted: stable
	if err != nil {
		return nil, err
	}
	c := corev1.Container{
		Name:      TaskContainer,
		Image:     j.Image,
		Env:       env,
		Resources: res,
		Ports:     []corev1.ContainerPort{{Name: "optimus", ContainerPort: Port}},
	}
	if len(args) > 0 {
		c.Command = args
	}
	meta := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: o.namespace(),
			Labels: map[string]string{
				LabelManagedBy: ManagedByValue,
				LabelJob:       j.Job,
				LabelRole:      t.Role,
				LabelIndex:     strconv.Itoa(t.Index),
			},
			Annotations: map[string]string{
				AnnotResources: string(resJSON),
				AnnotModel:     j.Model,
				AnnotMode:      j.Mode,
			},
		},
		Spec: corev1.PodSpec{
			NodeName:      t.Node,
			Hostname:      name,
			Subdomain:     j.Job,
			RestartPolicy: corev1.RestartPolicyOnFailure,
		},
	}
	if j.GlobalBatch > 0 {
		meta.Annotations[AnnotGlobalBatch] = strconv.FormatInt(j.GlobalBatch, 10)
	}
	p := fill(tpl, meta, c)
	if tpl == nil {
		ensureRequests(&p.Spec.Containers[0])
	} else {
		for i := range p.Spec.Containers {
			if p.Spec.Containers[i].Name == TaskContainer {
				ensureRequests(&p.Spec.Containers[i])
			}
		}
	}
	// The hash covers what the pod runs and where, not the plan's
	// generation: re-applying an equal plan of a later generation is a no-op.
	spec, err := json.Marshal(struct {
		Spec        corev1.PodSpec
		Annotations map[string]string
	}{p.Spec, p.Annotations})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(spec)
	p.Annotations[AnnotSpecHash] = hex.EncodeToString(sum[:8])
	if generation != "" {
		p.Annotations[AnnotGeneration] = generation
		p.Labels[LabelGeneration] = generationLabel(generation)
	}
	return p, nil
}

// ensureRequests gives the task container MinRequests of what neither the
// plan nor the template requests.
func ensureRequests(c *corev1.Container) {
	for _, m := range ResourceMap {
		v, ok := MinRequests[m.Plan]
		if !ok {
			continue
		}
		if _, set := c.Resources.Requests[m.Kube]; set {
			continue
		}
		if _, set := c.Resources.Limits[m.Kube]; set {
			continue // the API server defaults the request to the limit
		}
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[m.Kube] = quantity(v*m.Factor, m.Whole)
	}
}

// generationLabel is the generation itself when it is a valid label value,
// else a short hash of it (the annotation keeps it whole).
func generationLabel(g string) string {
	if len(validation.IsValidLabelValue(g)) == 0 {
		return g
	}
	sum := sha256.Sum256([]byte(g))
	return "h" + hex.EncodeToString(sum[:6])
}

// requirements are a task's requests, equal to its limits (Guaranteed QoS),
// for the resources ResourceMap knows; zero demands are left out.
func requirements(demand map[string]float64) corev1.ResourceRequirements {
	list := corev1.ResourceList{}
	for _, m := range ResourceMap {
		v := demand[m.Plan]
		if v <= 0 {
			continue
		}
		list[m.Kube] = quantity(v*m.Factor, m.Whole)
	}
	if len(list) == 0 {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Requests: list, Limits: list.DeepCopy()}
}

// quantity rounds to milli-units (whole units for whole-only resources, up).
func quantity(v float64, whole bool) resource.Quantity {
	if whole {
		return *resource.NewQuantity(int64(math.Ceil(v-1e-9)), resource.DecimalSI)
	}
	if v >= 1<<20 && v == math.Trunc(v) { // bytes
		return *resource.NewQuantity(int64(v), resource.BinarySI)
	}
	return *resource.NewMilliQuantity(int64(math.Round(v*1000)), resource.DecimalSI)
}

// WriteManifests writes, for each change with wanted tasks, the job's
// headless Service and its pods as a `---`-separated YAML stream that
// `kubectl apply -f -` accepts. Stop changes write nothing.
func WriteManifests(w io.Writer, changes []executor.Change, o ManifestOptions) error {
	if err := CheckNamespace(o.Namespace); err != nil {
		return err
	}
	first := true
	emit := func(obj any) error {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		if !first {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		first = false
		_, err = w.Write(b)
		return err
	}
	for _, c := range changes {
		pods, err := Pods(c, o)
		if err != nil {
			return err
		}
		if len(pods) == 0 {
			continue
		}
		if err := emit(Service(c.Job, o)); err != nil {
			return err
		}
		for _, p := range pods {
			if err := emit(p); err != nil {
				return err
			}
		}
	}
	return nil
}
