package kubernetes

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// pollEvery is how often Apply looks at pods while it waits.
const pollEvery = 250 * time.Millisecond

// state is what runs in the namespace now: every pod and Service by name.
type state struct {
	pods     map[string]*corev1.Pod
	services map[string]*corev1.Service
}

func (e *Executor) readState(ctx context.Context) (*state, error) {
	pods, err := e.client.Pods(e.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, e.apiError(err, "list", "pods")
	}
	svcs, err := e.client.Services(e.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, e.apiError(err, "list", "services")
	}
	st := &state{pods: map[string]*corev1.Pod{}, services: map[string]*corev1.Service{}}
	for i := range pods.Items {
		st.pods[pods.Items[i].Name] = &pods.Items[i]
	}
	for i := range svcs.Items {
		st.services[svcs.Items[i].Name] = &svcs.Items[i]
	}
	return st, nil
}

func managed(m metav1.Object) bool { return m.GetLabels()[LabelManagedBy] == ManagedByValue }

// jobWork is what one change needs written, worked out from the live state.
type jobWork struct {
	change    executor.Change
	conflict  string            // non-empty: nothing is done for this job
	skip      []*corev1.Pod     // existing pods already as wanted
	del       []*corev1.Pod     // existing managed pods to delete: obsolete, or to be replaced
	create    []*corev1.Pod     // wanted pods to create
	createSvc *corev1.Service   // the job's Service, when missing
	delSvc    *corev1.Service   // the job's managed Service, on stop
	tasks     map[string]string // pod name -> what happened, for the task results
	failed    bool
	notes     []string

	wantPods []*corev1.Pod   // every pod the change wants (the journal's)
	svc      *corev1.Service // the job's managed Service, when it exists
	drift    []string        // how what runs differs from what the plan says, besides the tasks
	resumed  string          // non-empty: a killed apply's change, finished from its journal
	journal  *corev1.Service // the Service that carries this apply's journal for the job
	wrote    bool            // a pod of the job was deleted or created (and not rolled back)
	halted   string          // why the job's writes stopped before their end
}

func (w *jobWork) writes() bool {
	return w.conflict == "" && (len(w.del) > 0 || len(w.create) > 0 || w.createSvc != nil || w.delSvc != nil)
}

// plan works out a change against the live state, reading nothing.
func (e *Executor) plan(c executor.Change, st *state) *jobWork {
	w := &jobWork{change: c, tasks: map[string]string{}}
	job := c.Job.Job
	want, err := Pods(c, e.manifestOptions())
	if err != nil {
		w.conflict = err.Error()
		return w
	}
	w.wantPods = want
	wanted := map[string]*corev1.Pod{}
	for _, p := range want {
		wanted[p.Name] = p
		if ex := st.pods[p.Name]; ex != nil {
			switch {
			case !managed(ex):
				w.conflict = fmt.Sprintf("pod %s exists and is not managed by optimus (no label %s=%s): left alone; rename the job or remove that pod", p.Name, LabelManagedBy, ManagedByValue)
				return w
			case ex.Labels[LabelJob] != job:
				w.conflict = fmt.Sprintf("pod %s belongs to optimus job %q: left alone", p.Name, ex.Labels[LabelJob])
				return w
			}
		}
	}
	svc := st.services[job]
	if svc != nil && !managed(svc) && len(want) == 0 {
		svc = nil // a stop leaves a foreign Service of that name alone
	}
	if svc != nil && !managed(svc) {
		w.conflict = fmt.Sprintf("service %s exists and is not managed by optimus (no label %s=%s): left alone; rename the job or remove that Service", job, LabelManagedBy, ManagedByValue)
		return w
	}
	w.svc = svc
	if len(want) > 0 && svc == nil {
		w.createSvc = Service(c.Job, e.manifestOptions())
	}
	if len(want) == 0 && svc != nil {
		w.delSvc = svc
	}
	var names []string
	for name, p := range st.pods {
		if managed(p) && p.Labels[LabelJob] == job {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	existing := map[string]bool{}
	var respec []string
	for _, name := range names {
		ex := st.pods[name]
		existing[name] = true
		if p := wanted[name]; p != nil && ex.DeletionTimestamp == nil && ex.Annotations[AnnotSpecHash] == p.Annotations[AnnotSpecHash] {
			w.skip = append(w.skip, ex)
			continue
		} else if p != nil && ex.DeletionTimestamp == nil && ex.Spec.NodeName == p.Spec.NodeName {
			respec = append(respec, name)
		}
		w.del = append(w.del, ex)
		if p := wanted[name]; p != nil {
			w.create = append(w.create, p)
		}
	}
	for _, p := range want {
		if !existing[p.Name] {
			w.create = append(w.create, p)
			if _, task := TaskOf(p); !task && len(names) > 0 {
				w.drift = append(w.drift, "scheduler pod "+p.Name+" is missing")
			}
		}
	}
	if len(respec) > 0 {
		w.drift = append(w.drift, fmt.Sprintf("%d pods run another spec than the plan and jobs make now (image, command, template or environment): %s", len(respec), strings.Join(respec, ", ")))
	}
	if w.createSvc != nil && len(names) > 0 {
		w.drift = append(w.drift, "service "+job+" is missing")
	}
	sort.SliceStable(w.create, func(a, b int) bool { return podLess(w.create[a], w.create[b]) })
	return w
}

// podLess orders pods as tasks are ordered: role (ps, scheduler, worker), index.
func podLess(a, b *corev1.Pod) bool {
	ta, _ := taskOrScheduler(a)
	tb, _ := taskOrScheduler(b)
	if ta.Role != tb.Role {
		return ta.Role < tb.Role
	}
	return ta.Index < tb.Index
}

func taskOrScheduler(p *corev1.Pod) (executor.Task, bool) {
	if t, ok := TaskOf(p); ok {
		return t, true
	}
	var idx int
	fmt.Sscan(p.Labels[LabelIndex], &idx)
	return executor.Task{Job: p.Labels[LabelJob], Role: p.Labels[LabelRole], Index: idx, Node: p.Spec.NodeName}, false
}

// Apply carries the changes out (docs/kubernetes.md, "Partial failure" and
// "Interrupted applies"):
//
//  1. It works out, from one read of the namespace's pods and Services, what
//     each change needs written, and adds the changes that killed applies
//     left half done (journals, AnnotJournal) of jobs no change names. A pod
//     or Service in the way that optimus does not manage is a conflict: that
//     job is failed and nothing of it is touched. When nothing needs
//     writing, Apply returns without a write.
//  2. Before its first write it checks every permission it needs
//     (CheckAccess) and takes the namespace's Lease, renewed in the
//     background until Apply returns; then it reads the state again under
//     the Lease. Should the Lease be lost (taken, or not renewed in time)
//     Apply makes no further write and says so for each job.
//  3. It records each job's change on the job's Service (created now for a
//     start) before the job's first pod write: the journal.
//  4. It deletes what goes (stopped jobs; obsolete and replaced pods of
//     resized and moved jobs) and waits, up to Timeout, until those pods are
//     gone.
//  5. It creates, job by job, the pods that are missing. When a create
//     fails (a ResourceQuota, an admission webhook) or Apply is interrupted
//     (SIGINT, SIGTERM), it deletes the pods it created for that job in this
//     apply (and a failed start's Service), on a context of its own bounded
//     by RollbackTimeout, so no job is left half started, and goes on with
//     the next job (or, interrupted, stops).
//  6. It waits, up to Timeout, for the pods it created to run, and fails the
//     tasks that do not, saying why (pending on a node that vanished, an image
//     that does not pull). Those pods stay.
//
// Running Apply again with the same plan converges: it redoes only what is
// missing.
func (e *Executor) Apply(ctx context.Context, changes []executor.Change, dryRun bool) ([]executor.Result, error) {
	st, err := e.readState(ctx)
	if err != nil {
		return nil, err
	}
	work := e.planAll(changes, st)
	if len(work) == 0 {
		return nil, nil
	}
	anyWrite := false
	for _, w := range work {
		anyWrite = anyWrite || w.writes() || w.resumed != ""
	}
	if dryRun || !anyWrite {
		return e.results(work, dryRun), nil
	}
	if err := e.CheckAccess(ctx); err != nil {
		return nil, err
	}
	hold, err := e.hold(ctx)
	if err != nil {
		return nil, err
	}
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		select {
		case <-hold.Lost():
			stop(hold.Err())
		case <-wctx.Done():
		}
	}()
	defer func() {
		if e.wasKilled() != nil {
			hold.Abandon()
		} else {
			hold.Release()
		}
	}()
	if st, err = e.readState(ctx); err != nil { // another apply may have run meanwhile
		return nil, err
	}
	work = e.planAll(changes, st)
	e.journalAll(wctx, work)
	e.deleteAll(wctx, work)
	created := e.createAll(wctx, work)
	e.waitRunning(wctx, work, created)
	e.closeJournals(work)
	if err := e.wasKilled(); err != nil {
		return nil, err
	}
	return e.results(work, false), nil
}

// planAll plans the changes, then the changes killed applies left half
// done (their journals) of jobs no change names.
func (e *Executor) planAll(changes []executor.Change, st *state) []*jobWork {
	var work []*jobWork
	for _, c := range changes {
		work = append(work, e.plan(c, st))
	}
	for _, j := range unfinished(st, changes) {
		w := e.plan(j.Change, st)
		w.resumed = fmt.Sprintf("finishing the %s of generation %s that apply %q began at %s and did not end (journal on service %s)",
			j.Change.Action, j.Change.Generation, j.Holder, j.Started.UTC().Format(time.RFC3339), j.Change.Job.Job)
		work = append(work, w)
	}
	return work
}

func joinStep(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// waitRunning waits up to Timeout for the created pods to run and fails the
// tasks whose pods do not.
func (e *Executor) waitRunning(ctx context.Context, work []*jobWork, created map[types.UID]*jobWork) {
	if len(created) == 0 || e.opts.Timeout < 0 {
		return
	}
	deadline := time.Now().Add(e.opts.Timeout)
	// Each look lists every managed pod of the namespace: at 10,000 pods
	// that is tens of megabytes, so the looks are spaced out with the
	// number of pods (250 ms up to 1,000 pods, 2.75 s at 10,000).
	every := pollEvery * time.Duration(1+len(created)/1000)
	var pending []*corev1.Pod
	for {
		list, err := e.managedPods(ctx)
		if err == nil {
			pending = pending[:0]
			for i := range list {
				p := &list[i]
				if created[p.UID] != nil && p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodSucceeded {
					pending = append(pending, p)
				}
			}
			if len(pending) == 0 {
				break
			}
		}
		if time.Now().After(deadline) || sleep(ctx, every) != nil {
			break
		}
	}
	nodes := map[string]Node{}
	if ns, err := e.Nodes(ctx); err == nil {
		for _, n := range ns {
			nodes[n.Name] = n
		}
	}
	for _, p := range pending {
		w := created[p.UID]
		w.failed = true
		if err := context.Cause(ctx); err != nil {
			w.tasks[p.Name] = joinStep(w.tasks[p.Name], "not Running yet when apply was "+kubeclient.HaltReason(err)+": "+whyPending(p, nodes))
			continue
		}
		w.tasks[p.Name] = joinStep(w.tasks[p.Name], fmt.Sprintf("not Running after %s: %s", e.opts.Timeout, whyPending(p, nodes)))
	}
	for _, w := range work {
		for _, p := range w.create {
			if msg := w.tasks[p.Name]; strings.HasSuffix(msg, "created on "+p.Spec.NodeName) {
				w.tasks[p.Name] = msg + ", Running"
			}
		}
	}
}

// whyPending says what keeps a pod from running.
func whyPending(p *corev1.Pod, nodes map[string]Node) string {
	phase := string(p.Status.Phase)
	if phase == "" {
		phase = "Pending"
	}
	if n, ok := nodes[p.Spec.NodeName]; !ok {
		return phase + ", node " + p.Spec.NodeName + " does not exist (vanished?)"
	} else if n.Unusable != "" {
		return phase + ", node " + p.Spec.NodeName + " is " + n.Unusable
	}
	if p.Status.Reason != "" { // the kubelet refused it: OutOfcpu, OutOfnvidia.com/gpu, ...
		return phase + ", " + p.Status.Reason + ": " + p.Status.Message
	}
	for _, cs := range p.Status.ContainerStatuses {
		if wt := cs.State.Waiting; wt != nil && wt.Reason != "" {
			return phase + ", " + wt.Reason + ": " + wt.Message
		}
		if t := cs.State.Terminated; t != nil {
			return fmt.Sprintf("%s, container exited %d (%s)", phase, t.ExitCode, t.Reason)
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			return phase + ", " + c.Message
		}
	}
	return phase + " (no kubelet has started it)"
}
