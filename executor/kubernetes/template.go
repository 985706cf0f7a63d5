package kubernetes

// Pod templates: what a job's pods carry besides optimus' placement,
// resources, labels and peer environment (docs/kubernetes.md, "Pod
// templates").

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/optimus-sched/optimus/executor"
)

// DefaultTemplate is the template file (without extension) of every job
// that has neither a template of its own nor one of its model family.
const DefaultTemplate = "default"

// TaskContainer is the name of the container optimus runs a task in. A
// template's container of that name is merged with it; the template's other
// containers run beside it as they are.
const TaskContainer = "task"

// CheckpointVolume is the volume a template names for checkpoints. When the
// template has it, the task container mounts it (at CheckpointMount unless
// the template mounts it elsewhere) and OPTIMUS_CHECKPOINT_DIR tells the job
// its own directory there, to write before it is stopped and to resume from
// after a resize or a move.
const (
	CheckpointVolume = "checkpoint"
	CheckpointMount  = "/checkpoint"
	CheckpointEnv    = "OPTIMUS_CHECKPOINT_DIR"
)

// templateExts are the file extensions of template files.
var templateExts = []string{".yaml", ".yml"}

// Templates are the pod templates of a directory, by file name without its
// extension: a job's own (<job>.yaml), its model family's (<model>.yaml),
// or DefaultTemplate's. The zero value (or nil) has none: pods are optimus'
// alone.
type Templates struct {
	Dir    string
	byName map[string]*Template
}

// Template is one template file's PodTemplateSpec.
type Template struct {
	File string
	Spec corev1.PodTemplateSpec
}

// LoadTemplates reads every .yaml and .yml file of dir as a pod template:
// either a bare PodTemplateSpec (metadata and spec) or a v1 PodTemplate
// object (its template). Decoding is strict, so an unknown or duplicate
// field is an error naming the file and the field, and so are the fields
// optimus sets itself (name, namespace, nodeName, hostname, subdomain,
// optimus' labels). The file names are matched to job and model names as
// they are, so no path is ever built from a name.
func LoadTemplates(dir string) (*Templates, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, executor.Usagef("--pod-templates: %v", err)
	}
	ts := &Templates{Dir: dir, byName: map[string]*Template{}}
	for _, ent := range entries {
		ext := filepath.Ext(ent.Name())
		if ent.IsDir() || !containsString(templateExts, ext) {
			continue
		}
		name := strings.TrimSuffix(ent.Name(), ext)
		file := filepath.Join(dir, ent.Name())
		if prev, dup := ts.byName[name]; dup {
			return nil, executor.Usagef("pod template %s: %s names the same template", file, prev.File)
		}
		tpl, err := ReadTemplate(file)
		if err != nil {
			return nil, err
		}
		ts.byName[name] = tpl
	}
	return ts, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// templateDecoder is apimachinery's strict YAML decoder, for files that are
// PodTemplate objects, over a scheme of core/v1 alone: a PodTemplate is all
// it decodes, and client-go's full scheme (every API group) would be linked
// and registered at every start of the binary for it. Built when first used.
var templateDecoder = sync.OnceValues(func() (*kjson.Serializer, error) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		return nil, err
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s,
		kjson.SerializerOptions{Yaml: true, Strict: true}), nil
})

// ReadTemplate reads one template file (LoadTemplates).
func ReadTemplate(file string) (*Template, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, executor.Usagef("pod template: %v", err)
	}
	bad := func(format string, args ...any) error {
		return executor.Usagef("pod template %s: %s", file, fmt.Sprintf(format, args...))
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, bad("not YAML: %v", err)
	}
	tpl := &Template{File: file}
	if head.Kind != "" || head.APIVersion != "" {
		if head.Kind != "PodTemplate" || head.APIVersion != "v1" {
			return nil, bad("kind %q, apiVersion %q: want a PodTemplateSpec (metadata and spec) or apiVersion v1, kind PodTemplate", head.Kind, head.APIVersion)
		}
		dec, err := templateDecoder()
		if err != nil {
			return nil, bad("core/v1 scheme: %v", err)
		}
		obj, _, err := dec.Decode(data, nil, &corev1.PodTemplate{})
		if err != nil {
			return nil, bad("%v", strictMessage(err))
		}
		pt, ok := obj.(*corev1.PodTemplate)
		if !ok {
			return nil, bad("decodes to %T, not a PodTemplate", obj)
		}
		if pt.Name != "" || pt.Namespace != "" {
			return nil, bad("metadata.name and metadata.namespace of the PodTemplate are not used: leave them out")
		}
		tpl.Spec = pt.Template
	} else {
		js, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			return nil, bad("%v", err)
		}
		strict, err := sigsjson.UnmarshalStrict(js, &tpl.Spec)
		if err != nil {
			return nil, bad("%v", err)
		}
		if len(strict) > 0 {
			return nil, bad("%v", strictMessage(runtime.NewStrictDecodingError(strict)))
		}
	}
	if err := checkTemplate(&tpl.Spec); err != nil {
		return nil, bad("%v", err)
	}
	return tpl, nil
}

// strictMessage is apimachinery's strict-decoding message without its
// prefix ("unknown field \"spec.tolerations[0].efect\"").
func strictMessage(err error) string {
	if se, ok := runtime.AsStrictDecodingError(err); ok {
		return strings.Join(errorStrings(se.Errors()), "; ")
	}
	return err.Error()
}

func errorStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// checkTemplate refuses what optimus sets itself.
func checkTemplate(t *corev1.PodTemplateSpec) error {
	m := t.ObjectMeta
	switch {
	case m.Name != "" || m.GenerateName != "":
		return fmt.Errorf("metadata.name: optimus names the pods <job>-<role>-<index>: leave it out")
	case m.Namespace != "":
		return fmt.Errorf("metadata.namespace: the pods go to apply's --namespace: leave it out")
	case t.Spec.NodeName != "":
		return fmt.Errorf("spec.nodeName: the plan places the pods: leave it out")
	case t.Spec.Hostname != "" || t.Spec.Subdomain != "":
		return fmt.Errorf("spec.hostname and spec.subdomain: optimus sets them so peers resolve as <pod>.<job>: leave them out")
	}
	for _, kv := range []map[string]string{m.Labels, m.Annotations} {
		for k := range kv {
			if k == LabelManagedBy || strings.HasPrefix(k, "optimus.dev/") {
				return fmt.Errorf("metadata: %s is optimus' own label or annotation: leave it out", k)
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range append(append([]corev1.Container(nil), t.Spec.InitContainers...), t.Spec.Containers...) {
		if c.Name == "" {
			return fmt.Errorf("a container without a name")
		}
		if seen[c.Name] {
			return fmt.Errorf("two containers named %q", c.Name)
		}
		seen[c.Name] = true
	}
	for _, c := range t.Spec.InitContainers {
		if c.Name == TaskContainer {
			return fmt.Errorf("init container %q: that name is the task's container", TaskContainer)
		}
	}
	return nil
}

// For is the template of a job: its own, its model family's, or the
// default; nil when there is none.
func (ts *Templates) For(j executor.Job) *Template {
	if ts == nil {
		return nil
	}
	for _, name := range []string{j.Job, j.Model, DefaultTemplate} {
		if t := ts.byName[name]; t != nil && name != "" {
			return t
		}
	}
	return nil
}

// Names lists the templates by name, sorted.
func (ts *Templates) Names() []string {
	if ts == nil {
		return nil
	}
	out := make([]string, 0, len(ts.byName))
	for n := range ts.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// fill builds a pod from the template (nil: none) and optimus' own parts:
// the template gives everything optimus does not set; optimus' labels,
// annotations, placement, the task container's image, command, resource
// requests and limits of the plan's resources, port and environment win.
func fill(tpl *Template, meta corev1.Pod, task corev1.Container) *corev1.Pod {
	p := meta.DeepCopy()
	if tpl == nil {
		p.Spec.Containers = []corev1.Container{task}
		return p
	}
	spec := tpl.Spec.DeepCopy()
	own := p.Spec
	p.Spec = spec.Spec
	p.Spec.NodeName, p.Spec.Hostname, p.Spec.Subdomain = own.NodeName, own.Hostname, own.Subdomain
	if p.Spec.RestartPolicy == "" {
		p.Spec.RestartPolicy = own.RestartPolicy
	}
	for k, v := range spec.Labels {
		if _, set := p.Labels[k]; !set {
			p.Labels[k] = v
		}
	}
	for k, v := range spec.Annotations {
		if _, set := p.Annotations[k]; !set {
			p.Annotations[k] = v
		}
	}
	var containers []corev1.Container
	merged := false
	for _, c := range spec.Spec.Containers {
		if c.Name == TaskContainer {
			containers = append(containers, mergeTask(c, task))
			merged = true
			continue
		}
		containers = append(containers, c)
	}
	if !merged {
		containers = append([]corev1.Container{mergeTask(corev1.Container{}, task)}, containers...)
	}
	p.Spec.Containers = containers
	checkpoint(p)
	return p
}

// mergeTask lays optimus' task container over the template's: image,
// command (when the job has one: else the template's command and args),
// the plan's requests and limits, optimus' port and environment (its
// variables replace the template's of the same name).
func mergeTask(tc, own corev1.Container) corev1.Container {
	c := tc
	c.Name = TaskContainer
	c.Image = own.Image
	if len(own.Command) > 0 {
		c.Command, c.Args = own.Command, nil
	}
	c.Resources.Requests = mergeList(tc.Resources.Requests, own.Resources.Requests)
	c.Resources.Limits = mergeList(tc.Resources.Limits, own.Resources.Limits)
	hasPort := false
	for _, pt := range c.Ports {
		hasPort = hasPort || pt.ContainerPort == Port
	}
	if !hasPort {
		c.Ports = append(c.Ports, own.Ports...)
	}
	ownEnv := map[string]bool{}
	for _, v := range own.Env {
		ownEnv[v.Name] = true
	}
	var env []corev1.EnvVar
	for _, v := range tc.Env {
		if !ownEnv[v.Name] {
			env = append(env, v)
		}
	}
	c.Env = append(env, own.Env...)
	return c
}

func mergeList(base, over corev1.ResourceList) corev1.ResourceList {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := base.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// checkpoint mounts the template's checkpoint volume in the task container
// and sets OPTIMUS_CHECKPOINT_DIR to the job's directory on it.
func checkpoint(p *corev1.Pod) {
	found := false
	for _, v := range p.Spec.Volumes {
		found = found || v.Name == CheckpointVolume
	}
	if !found {
		return
	}
	c := &p.Spec.Containers[0] // the task container comes first or is merged in place
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == TaskContainer {
			c = &p.Spec.Containers[i]
		}
	}
	mount := ""
	for _, m := range c.VolumeMounts {
		if m.Name == CheckpointVolume {
			mount = m.MountPath
		}
	}
	if mount == "" {
		mount = CheckpointMount
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: CheckpointVolume, MountPath: mount})
	}
	dir := strings.TrimSuffix(mount, "/") + "/" + p.Labels[LabelJob]
	var env []corev1.EnvVar
	for _, v := range c.Env {
		if v.Name != CheckpointEnv {
			env = append(env, v)
		}
	}
	c.Env = append(env, corev1.EnvVar{Name: CheckpointEnv, Value: dir})
}

// String names the template's file, for messages.
func (t *Template) String() string {
	if t == nil {
		return "no pod template"
	}
	return "pod template " + t.File
}
