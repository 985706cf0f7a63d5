package pytorchjob

// The few types of Kubeflow's training-operator (kubeflow.org/v1,
// github.com/kubeflow/training-operator v1.8.1, pkg/apis/kubeflow.org/v1)
// that optimus writes, declared here so that the operator's module, whose
// Kubernetes versions are not optimus', stays out of go.mod. Field names and
// JSON tags are the operator's; fields optimus never sets are left out, and
// the API server keeps them as the operator's webhook or a user set them only
// when optimus does not replace the object (Update sends the whole object, so
// optimus carries over what it read: see merge in manifest.go).

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the training operator's API group version.
var GroupVersion = schema.GroupVersion{Group: "kubeflow.org", Version: "v1"}

// Resource is the plural of the PyTorchJob kind, as URLs and RBAC name it.
const Resource = "pytorchjobs"

// Replica types of a PyTorchJob (the operator's ReplicaType values) and the
// names the operator gives the container and port it looks for.
const (
	Master        = "Master"
	Worker        = "Worker"
	ContainerName = "pytorch"         // PyTorchJobDefaultContainerName
	PortName      = "pytorchjob-port" // PyTorchJobDefaultPortName
)

// PyTorchJob is kubeflow.org/v1 PyTorchJob.
type PyTorchJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
	// Status is the operator's, kept as it came (optimus reads none of it).
	Status json.RawMessage `json:"status,omitempty"`
}

// Spec is PyTorchJobSpec.
type Spec struct {
	// RunPolicy is kept as it came (the CRD requires the field).
	RunPolicy json.RawMessage `json:"runPolicy,omitempty"`
	// ElasticPolicy is kept as it came: optimus writes none.
	ElasticPolicy       json.RawMessage         `json:"elasticPolicy,omitempty"`
	PyTorchReplicaSpecs map[string]*ReplicaSpec `json:"pytorchReplicaSpecs"`
	// NprocPerNode is the processes torchrun starts in each pod (the
	// operator's PET_NPROC_PER_NODE; WORLD_SIZE is replicas times it).
	NprocPerNode *string `json:"nprocPerNode,omitempty"`
}

// ReplicaSpec is the operator's ReplicaSpec.
type ReplicaSpec struct {
	Replicas      *int32                 `json:"replicas,omitempty"`
	Template      corev1.PodTemplateSpec `json:"template,omitempty"`
	RestartPolicy string                 `json:"restartPolicy,omitempty"`
}

// PyTorchJobList is a list of PyTorchJobs.
type PyTorchJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PyTorchJob `json:"items"`
}

// AddToScheme registers the two types (kubeclient.Group).
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &PyTorchJob{}, &PyTorchJobList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

// DeepCopyInto copies j into out.
func (j *PyTorchJob) DeepCopyInto(out *PyTorchJob) {
	*out = *j
	j.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status = cloneRaw(j.Status)
	out.Spec.RunPolicy = cloneRaw(j.Spec.RunPolicy)
	out.Spec.ElasticPolicy = cloneRaw(j.Spec.ElasticPolicy)
	if j.Spec.NprocPerNode != nil {
		v := *j.Spec.NprocPerNode
		out.Spec.NprocPerNode = &v
	}
	if j.Spec.PyTorchReplicaSpecs != nil {
		out.Spec.PyTorchReplicaSpecs = make(map[string]*ReplicaSpec, len(j.Spec.PyTorchReplicaSpecs))
		for k, r := range j.Spec.PyTorchReplicaSpecs {
			if r == nil {
				out.Spec.PyTorchReplicaSpecs[k] = nil
				continue
			}
			c := &ReplicaSpec{RestartPolicy: r.RestartPolicy}
			if r.Replicas != nil {
				n := *r.Replicas
				c.Replicas = &n
			}
			r.Template.DeepCopyInto(&c.Template)
			out.Spec.PyTorchReplicaSpecs[k] = c
		}
	}
}

// DeepCopy copies the job.
func (j *PyTorchJob) DeepCopy() *PyTorchJob {
	if j == nil {
		return nil
	}
	out := new(PyTorchJob)
	j.DeepCopyInto(out)
	return out
}

// DeepCopyObject is runtime.Object's.
func (j *PyTorchJob) DeepCopyObject() runtime.Object { return j.DeepCopy() }

// DeepCopyObject is runtime.Object's.
func (l *PyTorchJobList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &PyTorchJobList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]PyTorchJob, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
