package kubernetes

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/optimus-sched/optimus/executor"
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
	for _, name := range names {
		ex := st.pods[name]
		existing[name] = true
		if p := wanted[name]; p != nil && ex.DeletionTimestamp == nil && ex.Annotations[AnnotSpecHash] == p.Annotations[AnnotSpecHash] {
			w.skip = append(w.skip, ex)
			continue
		}
		w.del = append(w.del, ex)
		if p := wanted[name]; p != nil {
			w.create = append(w.create, p)
		}
	}
	for _, p := range want {
		if !existing[p.Name] {
			w.create = append(w.create, p)
		}
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

// Apply carries the changes out (docs/kubernetes.md, "Partial failure"):
//
//  1. It works out, from one read of the namespace's pods and Services, what
//     each change needs written. A pod or Service in the way that optimus
//     does not manage is a conflict: that job is failed and nothing of it is
//     touched. When nothing needs writing, Apply returns without a write.
//  2. Before its first write it checks every permission it needs
//     (CheckAccess) and takes the namespace's Lease, then reads the state
//     again under the Lease.
//  3. It deletes what goes (stopped jobs; obsolete and replaced pods of
//     resized and moved jobs) and waits, up to Timeout, until those pods are
//     gone.
//  4. It creates, job by job, the Services and pods that are missing. When a
//     create fails (a ResourceQuota, an admission webhook), it deletes the
//     pods it created for that job in this apply, so no job is left half
//     started, and goes on with the next job.
//  5. It waits, up to Timeout, for the pods it created to run, and fails the
//     tasks that do not, saying why (pending on a node that vanished, an image
//     that does not pull). Those pods stay.
//
// Running Apply again with the same plan converges: it redoes only what is
// missing.
func (e *Executor) Apply(ctx context.Context, changes []executor.Change, dryRun bool) ([]executor.Result, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	st, err := e.readState(ctx)
	if err != nil {
		return nil, err
	}
	work := make([]*jobWork, len(changes))
	anyWrite := false
	for i, c := range changes {
		work[i] = e.plan(c, st)
		anyWrite = anyWrite || work[i].writes()
	}
	if dryRun || !anyWrite {
		return e.results(work, dryRun), nil
	}
	if err := e.CheckAccess(ctx); err != nil {
		return nil, err
	}
	release, err := e.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if st, err = e.readState(ctx); err != nil { // another apply may have run meanwhile
		return nil, err
	}
	for i, c := range changes {
		work[i] = e.plan(c, st)
	}
	e.deleteAll(ctx, work)
	created := e.createAll(ctx, work)
	e.waitRunning(ctx, work, created)
	return e.results(work, false), nil
}

func (e *Executor) deleteOptions(uid types.UID) metav1.DeleteOptions {
	return metav1.DeleteOptions{GracePeriodSeconds: e.opts.GracePeriod, Preconditions: &metav1.Preconditions{UID: &uid}}
}

// deleteAll deletes what goes and waits for the pods to be gone.
func (e *Executor) deleteAll(ctx context.Context, work []*jobWork) {
	pods := e.client.Pods(e.namespace)
	gone := map[types.UID]*jobWork{}
	for _, w := range work {
		if !w.writes() {
			continue
		}
		for _, p := range w.del {
			if p.DeletionTimestamp == nil {
				err := pods.Delete(ctx, p.Name, e.deleteOptions(p.UID))
				if err != nil && !apierrors.IsNotFound(err) {
					w.failed = true
					w.tasks[p.Name] = "failed: delete from " + p.Spec.NodeName + ": " + e.apiError(err, "delete", "pods").Error()
					continue
				}
			}
			w.tasks[p.Name] = "deleted from " + p.Spec.NodeName
			gone[p.UID] = w
		}
		if w.delSvc != nil {
			err := e.client.Services(e.namespace).Delete(ctx, w.delSvc.Name, e.deleteOptions(w.delSvc.UID))
			if err != nil && !apierrors.IsNotFound(err) {
				w.failed = true
				w.notes = append(w.notes, "deleting service "+w.delSvc.Name+" failed: "+e.apiError(err, "delete", "services").Error())
			} else {
				w.notes = append(w.notes, "deleted service "+w.delSvc.Name)
			}
		}
	}
	if len(gone) == 0 {
		return
	}
	uids := map[types.UID]bool{}
	for uid := range gone {
		uids[uid] = true
	}
	for uid := range e.waitGone(ctx, uids) {
		w := gone[uid]
		w.notes = append(w.notes, fmt.Sprintf("old pods still terminating after %s", e.goneTimeout()))
	}
}

func (e *Executor) goneTimeout() time.Duration {
	if e.opts.Timeout < 0 {
		return DefaultTimeout
	}
	return e.opts.Timeout
}

// waitGone waits, up to Timeout (DefaultTimeout when that is negative),
// until no managed pod has one of the UIDs, and returns those still there.
func (e *Executor) waitGone(ctx context.Context, uids map[types.UID]bool) map[types.UID]bool {
	deadline := time.Now().Add(e.goneTimeout())
	left := uids
	for {
		if list, err := e.managedPods(ctx); err == nil {
			left = map[types.UID]bool{}
			for i := range list {
				if uids[list[i].UID] {
					left[list[i].UID] = true
				}
			}
			if len(left) == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) || sleep(ctx, pollEvery) != nil {
			return left
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// createAll creates each job's Service and pods; a job whose create fails
// has the pods created for it in this apply deleted again. It returns the
// created pods by UID.
func (e *Executor) createAll(ctx context.Context, work []*jobWork) map[types.UID]*jobWork {
	pods := e.client.Pods(e.namespace)
	created := map[types.UID]*jobWork{}
	for _, w := range work {
		if !w.writes() || w.failed {
			for _, p := range w.create {
				if w.conflict == "" {
					w.tasks[p.Name] = joinStep(w.tasks[p.Name], "not created: deleting old pods failed")
				}
			}
			continue
		}
		if w.createSvc != nil {
			_, err := e.client.Services(e.namespace).Create(ctx, w.createSvc, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				w.failed = true
				w.notes = append(w.notes, "creating service "+w.createSvc.Name+" failed: "+e.apiError(err, "create", "services").Error())
				for _, p := range w.create {
					w.tasks[p.Name] = joinStep(w.tasks[p.Name], "not created: the job's Service could not be created")
				}
				continue
			}
			w.notes = append(w.notes, "created service "+w.createSvc.Name)
		}
		var mine []*corev1.Pod
		for i, p := range w.create {
			got, err := pods.Create(ctx, p, metav1.CreateOptions{})
			if err == nil {
				mine = append(mine, got)
				w.tasks[p.Name] = joinStep(w.tasks[p.Name], "created on "+p.Spec.NodeName)
				continue
			}
			w.failed = true
			why := e.apiError(err, "create", "pods").Error()
			if apierrors.IsAlreadyExists(err) {
				why = "an old pod of that name is still terminating"
			}
			w.tasks[p.Name] = joinStep(w.tasks[p.Name], "create on "+p.Spec.NodeName+" rejected: "+why)
			for _, q := range w.create[i+1:] {
				w.tasks[q.Name] = joinStep(w.tasks[q.Name], "not created: an earlier task of the job was rejected")
			}
			var undone []string
			rolled := map[types.UID]bool{}
			for _, q := range mine {
				err := pods.Delete(ctx, q.Name, e.deleteOptions(q.UID))
				if err != nil && !apierrors.IsNotFound(err) {
					w.tasks[q.Name] = joinStep(w.tasks[q.Name], "rolling back failed: "+err.Error())
					continue
				}
				w.tasks[q.Name] = joinStep(w.tasks[q.Name], "deleted again (rollback)")
				undone = append(undone, q.Name)
				rolled[q.UID] = true
			}
			if len(undone) > 0 {
				w.notes = append(w.notes, "rolled back (deleted again) "+strings.Join(undone, ", "))
				if left := e.waitGone(ctx, rolled); len(left) > 0 {
					w.notes = append(w.notes, fmt.Sprintf("%d of them still terminating after %s", len(left), e.goneTimeout()))
				}
			}
			mine = nil
			break
		}
		for _, p := range mine {
			created[p.UID] = w
		}
	}
	return created
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
		if time.Now().After(deadline) || sleep(ctx, pollEvery) != nil {
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
