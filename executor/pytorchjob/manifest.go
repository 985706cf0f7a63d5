package pytorchjob

// Building a job's PyTorchJob from a change, and reading its tasks back
// (docs/kubernetes.md, "PyTorchJob executor").

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

// AnnotTasks on a PyTorchJob records the plan's tasks it runs (JSON, one
// object per worker: index, node, resources), so that the next apply reads
// back exactly what was planned: node affinity per replica type does not
// say which replica runs on which node.
const AnnotTasks = "optimus.dev/tasks"

// maxTasksAnnotation bounds the tasks annotation (the API server refuses
// more than 256 KiB of annotations in all).
const maxTasksAnnotation = 128 << 10

// NodeField is the node field node affinity matches planned nodes on
// (matchFields supports metadata.name only).
const NodeField = "metadata.name"

// recorded is one task in AnnotTasks.
type recorded struct {
	Index     int                `json:"index"`
	Node      string             `json:"node"`
	Resources map[string]float64 `json:"resources"`
}

// operatorEnv are the variables the training operator sets in each pod
// (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, PET_NODE_RANK, PET_NNODES,
// PET_NPROC_PER_NODE: pkg/controller.v1/pytorch/envvar.go) or that differ
// per replica of a type (NODE_RANK, OPTIMUS_INDEX), and the other
// frameworks' peer variables (TF_CONFIG, DMLC_*): they are left out of the
// replica types' templates.
func operatorEnv(name string) bool {
	switch name {
	case "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "NODE_RANK", "OPTIMUS_INDEX", "TF_CONFIG":
		return true
	}
	return strings.HasPrefix(name, "PET_") || strings.HasPrefix(name, "DMLC_")
}

// PSError is a change a PyTorchJob cannot carry: the plan gives the job
// parameter servers.
type PSError struct{ Job string }

func (e *PSError) Error() string {
	return fmt.Sprintf("job %q has parameter servers in the plan: a PyTorchJob runs all-reduce jobs only (Master and Worker replicas); run PS jobs with --executor kubernetes, or set the job's mode to allreduce", e.Job)
}

// Build is the PyTorchJob of a change's wanted tasks (nil for a stop): the
// plan's worker 0 is the Master replica, workers 1..w-1 the Worker
// replicas; each replica type's pods carry the pod the kubernetes executor
// would build for its first task (k8s.Pods: pod template, resources,
// labels, checkpoint volume, environment) less what the operator sets
// itself and less the binding to one node: node affinity requires the
// planned nodes of the type instead (Master: worker 0's node; Worker: the
// nodes of workers 1..w-1, any replica on any of them). The Worker
// replicas share one template, so their resources must be equal.
func Build(c executor.Change, o k8s.ManifestOptions) (*PyTorchJob, error) {
	if len(c.To) == 0 {
		return nil, nil
	}
	j := c.Job
	workers := make([]executor.Task, 0, len(c.To))
	for _, t := range c.To {
		if t.Role == executor.RolePS {
			return nil, &PSError{Job: j.Job}
		}
		workers = append(workers, t)
	}
	slices.SortFunc(workers, func(a, b executor.Task) int { return a.Index - b.Index })
	for i, t := range workers {
		if t.Index != i {
			return nil, fmt.Errorf("job %q: workers are not numbered 0..%d (found %s): a PyTorchJob's replicas are", j.Job, len(workers)-1, t.Name())
		}
		if i > 1 && !maps.Equal(t.Resources, workers[1].Resources) {
			return nil, fmt.Errorf("job %q: workers %s and %s have different resources in the plan: a PyTorchJob's Worker replicas share one pod template", j.Job, workers[1].Name(), t.Name())
		}
	}
	for _, name := range []string{j.Job + "-master-0", j.Job + "-worker-" + strconv.Itoa(len(workers)-2)} {
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return nil, fmt.Errorf("job %q: the training operator would name a pod %s, which Kubernetes refuses: %s", j.Job, name, strings.Join(errs, "; "))
		}
	}
	pods, err := k8s.Pods(c, o)
	if err != nil {
		return nil, err
	}
	// k8s.Pods returns the workers' pods in index order (no scheduler pod:
	// no PS).
	if len(pods) != len(workers) {
		return nil, fmt.Errorf("job %q: %d pods for %d workers", j.Job, len(pods), len(workers))
	}
	local := int(math.Max(1, math.Round(workers[0].Resources["gpu"])))
	nproc := strconv.Itoa(local)
	job := &PyTorchJob{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "PyTorchJob"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        j.Job,
			Namespace:   pods[0].Namespace,
			Labels:      map[string]string{k8s.LabelManagedBy: k8s.ManagedByValue, k8s.LabelJob: j.Job},
			Annotations: map[string]string{},
		},
		Spec: Spec{PyTorchReplicaSpecs: map[string]*ReplicaSpec{}, NprocPerNode: &nproc},
	}
	for _, k := range []string{k8s.AnnotModel, k8s.AnnotMode, k8s.AnnotGlobalBatch} {
		if v, ok := pods[0].Annotations[k]; ok {
			job.Annotations[k] = v
		}
	}
	one := int32(1)
	job.Spec.PyTorchReplicaSpecs[Master] = replica(pods[0], one, []string{workers[0].Node})
	if len(workers) > 1 {
		var nodes []string
		for _, t := range workers[1:] {
			nodes = append(nodes, t.Node)
		}
		slices.Sort(nodes)
		job.Spec.PyTorchReplicaSpecs[Worker] = replica(pods[1], int32(len(workers)-1), slices.Compact(nodes))
	}
	rec := make([]recorded, len(workers))
	for i, t := range workers {
		rec[i] = recorded{Index: t.Index, Node: t.Node, Resources: t.Resources}
	}
	b, err := json.Marshal(rec) // map keys sorted: stable
	if err != nil {
		return nil, err
	}
	if len(b) > maxTasksAnnotation {
		return nil, fmt.Errorf("job %q: %d workers make a %d-byte %s annotation, more than the %d bytes optimus allows", j.Job, len(workers), len(b), AnnotTasks, maxTasksAnnotation)
	}
	job.Annotations[AnnotTasks] = string(b)
	// The hash covers what the job runs and where, not the plan's
	// generation: re-applying an equal plan of a later generation is a no-op.
	spec, err := json.Marshal(struct {
		Spec        Spec
		Annotations map[string]string
	}{job.Spec, job.Annotations})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(spec)
	job.Annotations[k8s.AnnotSpecHash] = hex.EncodeToString(sum[:8])
	if g := pods[0].Labels[k8s.LabelGeneration]; g != "" {
		job.Labels[k8s.LabelGeneration] = g
		job.Annotations[k8s.AnnotGeneration] = pods[0].Annotations[k8s.AnnotGeneration]
		for _, r := range job.Spec.PyTorchReplicaSpecs {
			r.Template.Labels[k8s.LabelGeneration] = g
		}
	}
	return job, nil
}

// replica turns the pod built for a replica type's first task into the
// type's replica spec: optimus' labels less the per-task ones (role,
// index, generation: set on the job), no per-task annotations, no node
// binding or hostname (the operator names the pods and their Services),
// the task container renamed to the operator's (it sets its variables
// there), its port named the operator's, and node affinity to nodes.
func replica(p *corev1.Pod, n int32, nodes []string) *ReplicaSpec {
	meta := metav1.ObjectMeta{Labels: map[string]string{}, Annotations: map[string]string{}}
	for k, v := range p.Labels {
		if k != k8s.LabelRole && k != k8s.LabelIndex && k != k8s.LabelGeneration {
			meta.Labels[k] = v
		}
	}
	for k, v := range p.Annotations {
		if !strings.HasPrefix(k, "optimus.dev/") {
			meta.Annotations[k] = v
		}
	}
	if len(meta.Annotations) == 0 {
		meta.Annotations = nil
	}
	spec := *p.Spec.DeepCopy()
	spec.NodeName, spec.Hostname, spec.Subdomain = "", "", ""
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.Name != k8s.TaskContainer {
			continue
		}
		c.Name = ContainerName
		env := c.Env[:0:0]
		for _, v := range c.Env {
			if !operatorEnv(v.Name) {
				env = append(env, v)
			}
		}
		c.Env = env
		for k := range c.Ports {
			if c.Ports[k].ContainerPort == k8s.Port {
				c.Ports[k].Name = PortName
			}
		}
	}
	pin(&spec, nodes)
	return &ReplicaSpec{
		Replicas:      &n,
		RestartPolicy: string(spec.RestartPolicy),
		Template:      corev1.PodTemplateSpec{ObjectMeta: meta, Spec: spec},
	}
}

// pin requires the pods to be scheduled on one of nodes: the requirement
// is added to each of the template's own required node selector terms
// (the terms are ORed, a term's requirements ANDed), or is the only term.
func pin(spec *corev1.PodSpec, nodes []string) {
	req := corev1.NodeSelectorRequirement{Key: NodeField, Operator: corev1.NodeSelectorOpIn, Values: nodes}
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	if spec.Affinity.NodeAffinity == nil {
		spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		terms[i].MatchFields = append(terms[i].MatchFields, req)
	}
}

// Replicas is how many replicas of type rt the job asks for (0 when it has
// no such type; 1 when the type leaves replicas unset, the operator's
// default).
func Replicas(j *PyTorchJob, rt string) int32 {
	r := j.Spec.PyTorchReplicaSpecs[rt]
	if r == nil {
		return 0
	}
	if r.Replicas == nil {
		return 1
	}
	return *r.Replicas
}

// Nodes are the nodes the replica type's node affinity names (sorted), as
// pin wrote it.
func Nodes(j *PyTorchJob, rt string) []string {
	r := j.Spec.PyTorchReplicaSpecs[rt]
	if r == nil || r.Template.Spec.Affinity == nil || r.Template.Spec.Affinity.NodeAffinity == nil {
		return nil
	}
	sel := r.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if sel == nil {
		return nil
	}
	for _, term := range sel.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == NodeField && f.Operator == corev1.NodeSelectorOpIn {
				return f.Values
			}
		}
	}
	return nil
}

// TasksOf reads a managed PyTorchJob back into the plan's tasks it runs,
// from its AnnotTasks (sorted by index); an annotation that is not the
// JSON Build writes, or that numbers its workers otherwise, is an error
// naming the job.
func TasksOf(j *PyTorchJob) ([]executor.Task, error) {
	job := j.Labels[k8s.LabelJob]
	var rec []recorded
	if err := json.Unmarshal([]byte(j.Annotations[AnnotTasks]), &rec); err != nil {
		return nil, fmt.Errorf("PyTorchJob %s: annotation %s: %v (optimus writes a JSON list of {index, node, resources}; delete the PyTorchJob, or re-apply its job)", j.Name, AnnotTasks, err)
	}
	tasks := make([]executor.Task, len(rec))
	for i, r := range rec {
		if r.Index != i || r.Node == "" {
			return nil, fmt.Errorf("PyTorchJob %s: annotation %s: entry %d is worker %d on node %q: want worker %d on a node", j.Name, AnnotTasks, i, r.Index, r.Node, i)
		}
		for res, v := range r.Resources {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("PyTorchJob %s: annotation %s: worker %d: %s %g: amounts must be finite and not negative", j.Name, AnnotTasks, i, res, v)
			}
		}
		if r.Resources == nil {
			r.Resources = map[string]float64{}
		}
		tasks[i] = executor.Task{Job: job, Role: executor.RoleWorker, Index: i, Node: r.Node, Resources: r.Resources}
	}
	return tasks, nil
}

// differs says how a live PyTorchJob differs from the one Build made ("":
// not at all): another spec hash (what optimus last wrote differs from
// what the plan and jobs make now), or replica counts changed since (by
// hand, kubectl scale).
func differs(have, want *PyTorchJob) string {
	if have.Annotations[k8s.AnnotSpecHash] != want.Annotations[k8s.AnnotSpecHash] {
		return "spec"
	}
	for _, rt := range []string{Master, Worker} {
		if h, w := Replicas(have, rt), Replicas(want, rt); h != w {
			return fmt.Sprintf("%s replicas %d, not %d", rt, h, w)
		}
		if h, w := Nodes(have, rt), Nodes(want, rt); !reflect.DeepEqual(h, w) {
			return fmt.Sprintf("%s node affinity %v, not %v", rt, h, w)
		}
	}
	return ""
}

// merged is want as an update of have: have's resourceVersion, the
// fields optimus does not write (runPolicy, elasticPolicy) and the labels
// and annotations others put on it.
func merged(have, want *PyTorchJob) *PyTorchJob {
	out := want.DeepCopy()
	out.ResourceVersion = have.ResourceVersion
	out.Spec.RunPolicy = cloneRaw(have.Spec.RunPolicy)
	out.Spec.ElasticPolicy = cloneRaw(have.Spec.ElasticPolicy)
	for k, v := range have.Labels {
		if _, ours := out.Labels[k]; !ours && !strings.HasPrefix(k, "optimus.dev/") {
			out.Labels[k] = v
		}
	}
	for k, v := range have.Annotations {
		if _, ours := out.Annotations[k]; !ours && !strings.HasPrefix(k, "optimus.dev/") {
			out.Annotations[k] = v
		}
	}
	return out
}
