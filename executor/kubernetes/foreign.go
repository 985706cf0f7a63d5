package kubernetes

// What else runs on the nodes and what they refuse: the requests of pods
// optimus does not manage (subtracted from each node's allocatable by
// Validate and snapshot), taints and node selectors (checked against the
// pods' tolerations), and the namespace itself (docs/kubernetes.md,
// "Validate: before any write").

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// foreignPageSize is how many pods one list request returns while the
// cluster's pods are read.
const foreignPageSize = 500

// Foreign is what pods optimus does not manage request on each node, in
// the plan's units (node -> resource -> amount), and how many such pods
// run on how many nodes.
type Foreign struct {
	Use   map[string]map[string]float64
	Pods  int
	Nodes int
	// Left is what the namespace's optimus jobs that the plan leaves
	// running request on each node (LeaveRunning: not in the plan, no
	// --prune), LeftPods and LeftJobs how many pods of how many jobs.
	Left     map[string]map[string]float64
	LeftPods int
	LeftJobs int
}

// LeaveRunning tells the next Validate which jobs the plan leaves running
// (apply.Keeper): their pods keep their requests on their nodes, so they
// count against the capacity as foreign pods do. It holds for that one
// Validate, and a job the plan places is never left running. nil: none.
func (e *Executor) LeaveRunning(left func(job string) bool) { e.leftRunning = left }

// reserved is what the plan cannot use of each node: the foreign pods'
// requests and those of the jobs left running, and who they are.
func (f Foreign) reserved() (map[string]map[string]float64, string) {
	if f.LeftPods == 0 {
		return f.Use, "pods optimus does not manage"
	}
	out := map[string]map[string]float64{}
	for _, m := range []map[string]map[string]float64{f.Use, f.Left} {
		for n, use := range m {
			if out[n] == nil {
				out[n] = map[string]float64{}
			}
			for r, v := range use {
				out[n][r] += v
			}
		}
	}
	by := "optimus jobs the plan leaves running (not in the plan; --prune stops them)"
	if f.Pods > 0 {
		by = "pods optimus does not manage and " + by
	}
	return out, by
}

// Note says what was subtracted, for apply's and snapshot's summaries; ""
// when nothing was.
func (f Foreign) Note() string {
	var parts []string
	if f.Pods > 0 {
		parts = append(parts, fmt.Sprintf("%s optimus does not manage on %s", plural(f.Pods, "pod"), plural(f.Nodes, "node")))
	}
	if f.LeftPods > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s left running (not in the plan, no --prune)", plural(f.LeftPods, "pod"), plural(f.LeftJobs, "job")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "allocatable less the requests of " + strings.Join(parts, " and of ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ForeignUsage reads the pods of every namespace that are bound to a node
// and not finished (phase neither Succeeded nor Failed) and sums, per
// node, the requests of those optimus does not manage in this namespace:
// other schedulers' pods, DaemonSets, and optimus' pods of other
// namespaces (another apply's). Terminating pods
// still hold their node's resources until they are gone, so they count.
func (e *Executor) ForeignUsage(ctx context.Context) (Foreign, error) {
	return e.foreignUsage(ctx, nil)
}

// foreignUsage is ForeignUsage, counting the managed pods of this
// namespace whose job left says into Foreign.Left (nil: none).
func (e *Executor) foreignUsage(ctx context.Context, left func(job string) bool) (Foreign, error) {
	f := Foreign{Use: map[string]map[string]float64{}, Left: map[string]map[string]float64{}}
	leftJobs := map[string]bool{}
	opts := metav1.ListOptions{FieldSelector: "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed", Limit: foreignPageSize}
	for {
		list, err := e.client.Pods(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return Foreign{}, e.apiError(err, "list", "pods (all namespaces)")
		}
		for i := range list.Items {
			p := &list.Items[i]
			if p.Spec.NodeName == "" {
				continue
			}
			into := f.Use
			if p.Namespace == e.namespace && managed(p) {
				if left == nil || !left(p.Labels[LabelJob]) {
					continue // the plan's own, or stopped by it
				}
				into = f.Left
				f.LeftPods++
				leftJobs[p.Labels[LabelJob]] = true
			} else {
				f.Pods++
			}
			use := into[p.Spec.NodeName]
			if use == nil {
				use = map[string]float64{}
				into[p.Spec.NodeName] = use
			}
			for r, v := range PodRequests(p) {
				use[r] += v
			}
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	f.Nodes, f.LeftJobs = len(f.Use), len(leftJobs)
	return f, nil
}

// PodRequests is what a pod requests of the resources ResourceMap knows, in
// the plan's units, as the scheduler counts it: the sum over its containers
// (and sidecars, init containers that keep running), or the largest plain
// init container when that is more, plus the pod's overhead.
func PodRequests(p *corev1.Pod) map[string]float64 {
	out := map[string]float64{}
	for _, m := range ResourceMap {
		var sum, sidecars, initMax float64
		for _, c := range p.Spec.Containers {
			sum += inPlanUnits(c.Resources.Requests, m.Kube, m.Factor)
		}
		for _, c := range p.Spec.InitContainers {
			v := inPlanUnits(c.Resources.Requests, m.Kube, m.Factor)
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				sidecars += v
				continue
			}
			initMax = math.Max(initMax, sidecars+v)
		}
		v := math.Max(sum+sidecars, initMax) + inPlanUnits(p.Spec.Overhead, m.Kube, m.Factor)
		if v > 0 {
			out[m.Plan] = v
		}
	}
	return out
}

func inPlanUnits(l corev1.ResourceList, name corev1.ResourceName, factor float64) float64 {
	q, ok := l[name]
	if !ok {
		return 0
	}
	if factor > 1 {
		return float64(q.Value()) / factor
	}
	return float64(q.MilliValue()) / 1000 / factor
}

// CheckNamespace asks the API server whether the executor's namespace
// exists: a missing one is the user's mistake (exit 2), found before any
// write, by --dry-run and by snapshot too. A user who may not get
// namespaces is not stopped here.
func (e *Executor) CheckNamespace(ctx context.Context) error {
	namespaces := kubeclient.For[corev1.Namespace, *corev1.Namespace, corev1.NamespaceList, *corev1.NamespaceList](e.client, corev1.SchemeGroupVersion, "", "namespaces")
	_, err := namespaces.Get(ctx, e.namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return executor.Usagef("kubernetes: namespace %q does not exist on %s: create it (kubectl create namespace %s) or pick another with --namespace; nothing was changed", e.namespace, e.host, e.namespace)
	}
	if apierrors.IsForbidden(err) {
		// Not allowed to look (an older deploy/rbac.yaml): the namespace
		// is then found missing at the first write, and the permission
		// checks name what is lacking.
		return nil
	}
	if err != nil {
		return e.apiError(err, "get", "namespaces (cluster-wide)")
	}
	return nil
}

// refuses says why a node would not take a pod ("" when it would): a
// NoSchedule or NoExecute taint the pod does not tolerate, or a label its
// nodeSelector wants. Pods are bound by nodeName, so no scheduler checks
// either: a NoExecute taint would evict the pod, a nodeSelector mismatch
// makes the kubelet refuse it, and a NoSchedule taint says the node is kept
// for other pods.
//
// tpl names the job's pod template in the reason ("" when it has none).
// The kubelet admits a pod bound by nodeName only when its nodeSelector
// and its required node affinity match the node (its NodeAffinity
// admission check), so a template whose affinity the planned node does
// not match would fail there, after the writes.
func refuses(n *corev1.Node, p *corev1.Pod, tpl string) string {
	the := "the pod"
	if tpl != "" {
		the = "its pod template " + tpl
	}
	for i := range n.Spec.Taints {
		taint := &n.Spec.Taints[i]
		if !refusing(taint) {
			continue
		}
		if !tolerates(p.Spec.Tolerations, taint) {
			if tpl == "" {
				return fmt.Sprintf("has the taint %s, which the pod does not tolerate (give the job a pod template with a toleration: --pod-templates)", taintString(taint))
			}
			return fmt.Sprintf("has the taint %s, which %s does not tolerate (add a toleration to it)", taintString(taint), the)
		}
	}
	keys := make([]string, 0, len(p.Spec.NodeSelector))
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got, ok := n.Labels[k]; !ok || got != p.Spec.NodeSelector[k] {
			return fmt.Sprintf("lacks the label %s=%s that the nodeSelector of %s wants", k, p.Spec.NodeSelector[k], the)
		}
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ok, err := nodeaffinity.NewLazyErrorNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution).Match(n)
		switch {
		case err != nil:
			return fmt.Sprintf("cannot be matched against the required node affinity of %s: %v", the, err)
		case !ok:
			return fmt.Sprintf("matches none of the nodeSelectorTerms of the required node affinity (requiredDuringSchedulingIgnoredDuringExecution) of %s", the)
		}
	}
	return ""
}

// conditionTaints mirror what NodeOf reads from the node itself (its Ready
// condition, spec.unschedulable), with a clearer reason; the node
// lifecycle controller keeps them in step, and an API server puts
// not-ready on every new node until one does.
var conditionTaints = map[string]bool{
	corev1.TaintNodeNotReady:      true,
	corev1.TaintNodeUnreachable:   true,
	corev1.TaintNodeUnschedulable: true,
}

// refusing: a NoSchedule or NoExecute taint that NodeOf does not already
// account for.
func refusing(t *corev1.Taint) bool {
	return (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && !conditionTaints[t.Key]
}

func tolerates(ts []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range ts {
		if ts[i].ToleratesTaint(klog.Background(), taint, true) {
			return true
		}
	}
	return false
}

func taintString(t *corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// SnapshotNodes are the nodes as snapshot writes them: the namespace is
// checked first, each node's capacity is its allocatable less what foreign
// pods request there (never below 0), and a node whose NoSchedule or
// NoExecute taints the default pod template (templates' DefaultTemplate;
// none: no toleration) does not tolerate is unusable, so the cluster table
// leaves it out. The note is Foreign.Note.
func (e *Executor) SnapshotNodes(ctx context.Context, templates *Templates) ([]Node, string, error) {
	if err := e.CheckNamespace(ctx); err != nil {
		return nil, "", err
	}
	raw, err := e.listNodes(ctx)
	if err != nil {
		return nil, "", err
	}
	foreign, err := e.ForeignUsage(ctx)
	if err != nil {
		return nil, "", err
	}
	var probe corev1.Pod
	if t := templates.For(executor.Job{}); t != nil {
		probe.Spec.Tolerations = t.Spec.Spec.Tolerations
	}
	nodes := make([]Node, 0, len(raw))
	for i := range raw {
		n, err := NodeOf(&raw[i])
		if err != nil {
			return nil, "", err
		}
		for r, v := range foreign.Use[n.Name] {
			if _, ok := n.Capacity[r]; ok {
				n.Capacity[r] = math.Max(0, math.Round((n.Capacity[r]-v)*1000)/1000)
			}
		}
		if n.Unusable == "" {
			for j := range raw[i].Spec.Taints {
				taint := &raw[i].Spec.Taints[j]
				if refusing(taint) && !tolerates(probe.Spec.Tolerations, taint) {
					n.Unusable = "tainted " + taintString(taint) + ", not tolerated by the default pod template"
					break
				}
			}
		}
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	return nodes, foreign.Note(), nil
}

// validatePods checks, before any write, the pods every planned job would
// run: that they build (names Kubernetes accepts, the job's image, its pod
// template), that their nodes take them (refuses), and it returns the plan's
// tasks with the resources their pods really request (with the template's
// containers, the MinRequests floor, and the MXNet scheduler's counted with
// its job's first PS), for the capacity check.
func (e *Executor) validatePods(plan []executor.Task, jobs map[string]executor.Job, raw map[string]*corev1.Node) ([]executor.Task, error) {
	var order []string
	byJob := map[string][]int{}
	for i, t := range plan {
		if _, ok := byJob[t.Job]; !ok {
			order = append(order, t.Job)
		}
		byJob[t.Job] = append(byJob[t.Job], i)
	}
	eff := make([]executor.Task, len(plan))
	copy(eff, plan)
	mo := e.manifestOptions()
	for _, job := range order {
		c := executor.Change{Job: jobs[job], Action: executor.ActionStart}
		index := map[string]int{}
		for _, i := range byJob[job] {
			c.To = append(c.To, plan[i])
			index[plan[i].Name()] = i
		}
		pods, err := Pods(c, mo)
		if err != nil {
			return nil, executor.Invalidf("%v", err)
		}
		tplName := ""
		if tpl := mo.Templates.For(c.Job); tpl != nil {
			tplName = tpl.File
		}
		firstPS := -1
		for _, p := range pods {
			t, isTask := TaskOf(p)
			req := PodRequests(p)
			if !isTask { // the MXNet scheduler: on its job's first PS's node
				if firstPS >= 0 {
					for r, v := range req {
						eff[firstPS].Resources[r] += v
					}
				}
				continue
			}
			i := index[t.Name()]
			if t.Role == executor.RolePS && firstPS < 0 {
				firstPS = i
			}
			res := make(map[string]float64, len(plan[i].Resources))
			for r, v := range plan[i].Resources {
				res[r] = v
			}
			for _, m := range ResourceMap { // what the pod requests, not what the plan says
				if v, ok := req[m.Plan]; ok {
					res[m.Plan] = v
				}
			}
			eff[i].Resources = res
			if n := raw[p.Spec.NodeName]; n != nil && !plan[i].Kept && NodeUnusable(n) == "" {
				if why := refuses(n, p, tplName); why != "" {
					return nil, executor.Invalidf("job %q, task %s: node %q %s", job, t.Name(), n.Name, why)
				}
			}
		}
	}
	return eff, nil
}

// NodeUnusable is why no new task may go to a node ("" when one may):
// cordoned or not Ready, as NodeOf says.
func NodeUnusable(n *corev1.Node) string {
	got, err := NodeOf(n)
	if err != nil {
		return err.Error()
	}
	return got.Unusable
}

// listedCapacity is a node's capacity for the capacity check: NodeOf's,
// without the Kubernetes resources its allocatable does not list (so they
// are not checked, as for the others).
func listedCapacity(n *corev1.Node, c map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(c))
	for r, v := range c {
		out[r] = v
	}
	for _, m := range ResourceMap {
		if _, ok := n.Status.Allocatable[m.Kube]; !ok {
			delete(out, m.Plan)
		}
	}
	return out
}
