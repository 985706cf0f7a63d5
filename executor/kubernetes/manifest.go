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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/executor"
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

// ManifestOptions say where the objects go. The zero value works.
type ManifestOptions struct {
	Namespace string // "" is "default"
}

func (o ManifestOptions) namespace() string {
	if o.Namespace == "" {
		return "default"
	}
	return o.Namespace
}

// FrameworkOf decides which peer environment a job's tasks get: MXNet's
// DMLC_* variables (and a scheduler task) when the job's image or command
// names mxnet or uses MXNet's --kv-store flag, TensorFlow's TF_CONFIG
// otherwise.
func FrameworkOf(j executor.Job) string {
	s := strings.ToLower(j.Image + " " + j.Command)
	if strings.Contains(s, "mxnet") || strings.Contains(s, "--kv-store") {
		return FrameworkMXNet
	}
	return FrameworkTensorFlow
}

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
	if j.Image == "" {
		return nil, fmt.Errorf("job %q has no image: the jobs table's image column is empty", j.Job)
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
		addr := t.Name() + "." + j.Job + ":" + strconv.Itoa(Port)
		if t.Role == executor.RolePS {
			ps = append(ps, addr)
		} else {
			workers = append(workers, addr)
		}
	}
	fw := FrameworkOf(j)
	var pods []*corev1.Pod
	for _, t := range tasks {
		if t.Job != j.Job {
			return nil, fmt.Errorf("task %s is in the change of job %q", t.Name(), j.Job)
		}
		p, err := pod(j, t, c.Generation, o, requirements(t), envFor(fw, j, t.Role, t.Index, len(ps), len(workers), ps, workers), args)
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	if fw == FrameworkMXNet && len(ps) > 0 {
		first := tasks[0] // sorted: ps before worker
		sched := executor.Task{Job: j.Job, Role: RoleScheduler, Index: 0, Node: first.Node}
		p, err := pod(j, sched, c.Generation, o, corev1.ResourceRequirements{}, envFor(fw, j, RoleScheduler, 0, len(ps), len(workers), ps, workers), args)
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

func pod(j executor.Job, t executor.Task, generation string, o ManifestOptions, res corev1.ResourceRequirements, env []corev1.EnvVar, args []string) (*corev1.Pod, error) {
	name := t.Name()
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return nil, fmt.Errorf("task %s cannot name a pod: %s", name, strings.Join(errs, "; "))
	}
	resJSON, err := json.Marshal(t.Resources) // map keys sorted: stable
	if err != nil {
		return nil, err
	}
	c := corev1.Container{
		Name:      "task",
		Image:     j.Image,
		Env:       env,
		Resources: res,
		Ports:     []corev1.ContainerPort{{Name: "optimus", ContainerPort: Port}},
	}
	if len(args) > 0 {
		c.Command = args
	}
	p := &corev1.Pod{
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
			Containers:    []corev1.Container{c},
		},
	}
	if j.GlobalBatch > 0 {
		p.Annotations[AnnotGlobalBatch] = strconv.FormatInt(j.GlobalBatch, 10)
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
func requirements(t executor.Task) corev1.ResourceRequirements {
	list := corev1.ResourceList{}
	for _, m := range ResourceMap {
		v := t.Resources[m.Plan]
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

// envFor is a task's environment: OPTIMUS_* for every job, and the peer
// variables its framework reads (of the roles the job has: an all-reduce
// job, workers only, names no PS).
func envFor(fw string, j executor.Job, role string, index, numPS, numWorkers int, ps, workers []string) []corev1.EnvVar {
	env := []corev1.EnvVar{
		{Name: "OPTIMUS_JOB", Value: j.Job},
		{Name: "OPTIMUS_ROLE", Value: role},
		{Name: "OPTIMUS_INDEX", Value: strconv.Itoa(index)},
		{Name: "OPTIMUS_NUM_PS", Value: strconv.Itoa(numPS)},
		{Name: "OPTIMUS_NUM_WORKERS", Value: strconv.Itoa(numWorkers)},
	}
	switch {
	case fw == FrameworkMXNet && numPS == 0:
		// An all-reduce job (workers only): no parameter servers, no
		// scheduler, so no DMLC_* pointing at them.
	case fw == FrameworkMXNet:
		dmlcRole := map[string]string{executor.RolePS: "server", executor.RoleWorker: "worker", RoleScheduler: "scheduler"}[role]
		env = append(env,
			corev1.EnvVar{Name: "DMLC_ROLE", Value: dmlcRole},
			corev1.EnvVar{Name: "DMLC_NUM_SERVER", Value: strconv.Itoa(numPS)},
			corev1.EnvVar{Name: "DMLC_NUM_WORKER", Value: strconv.Itoa(numWorkers)},
			corev1.EnvVar{Name: "DMLC_PS_ROOT_URI", Value: j.Job + "-" + RoleScheduler + "-0." + j.Job},
			corev1.EnvVar{Name: "DMLC_PS_ROOT_PORT", Value: strconv.Itoa(Port)},
		)
	default:
		cfg := struct {
			Cluster map[string][]string `json:"cluster"`
			Task    struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
			} `json:"task"`
		}{Cluster: map[string][]string{"worker": workers}}
		if len(ps) > 0 { // an all-reduce job's cluster has workers only
			cfg.Cluster["ps"] = ps
		}
		cfg.Task.Type, cfg.Task.Index = role, index
		b, _ := json.Marshal(cfg) // plain strings and ints: cannot fail
		env = append(env, corev1.EnvVar{Name: "TF_CONFIG", Value: string(b)})
	}
	return env
}

// WriteManifests writes, for each change with wanted tasks, the job's
// headless Service and its pods as a `---`-separated YAML stream that
// `kubectl apply -f -` accepts. Stop changes write nothing.
func WriteManifests(w io.Writer, changes []executor.Change, o ManifestOptions) error {
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
