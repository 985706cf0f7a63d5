package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// may says whether Apply may make a write: not once it was interrupted,
// lost its Lease or (tests) was killed.
func (e *Executor) may(ctx context.Context, write string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.killed != nil {
		return e.killed
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	if e.beforeWrite != nil {
		if err := e.beforeWrite(write); err != nil {
			e.killed = err
			return err
		}
	}
	return context.Cause(ctx)
}

// wasKilled is the error that stopped Apply as a SIGKILL would (tests).
func (e *Executor) wasKilled() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.killed
}

// eachJob calls f for each job's work, Options.Writers jobs at a time, in
// the order of work, and returns when every call has. A job's own writes
// stay in order (f makes them one after another), so what each job's
// result says and its rollback are as in a serial apply; only how jobs'
// writes interleave differs. The client's rate limiter (--qps, --burst)
// paces the requests of all of them together.
func (e *Executor) eachJob(work []*jobWork, f func(w *jobWork)) {
	n := min(e.opts.Writers, len(work))
	if n <= 1 {
		for _, w := range work {
			f(w)
		}
		return
	}
	next := make(chan *jobWork)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for w := range next {
				f(w)
			}
		})
	}
	for _, w := range work {
		next <- w
	}
	close(next)
	wg.Wait()
}

// cleanup is the context clean-up writes (rollbacks, journals) run on: not
// the apply's, which an interrupt cancels, but one of its own bounded by
// RollbackTimeout. ok is false when no clean-up may be written: the Lease
// was lost (another apply owns the namespace now) or Apply was killed.
func (e *Executor) cleanup(ctx context.Context) (c context.Context, cancel context.CancelFunc, ok bool) {
	var lost *kubeclient.LostError
	if e.wasKilled() != nil || errors.As(context.Cause(ctx), &lost) {
		return nil, nil, false
	}
	c, cancel = context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
	return c, cancel, true
}

// halt marks what is left of a job's writes as not done, saying why.
func (w *jobWork) halt(why string) {
	if w.halted == "" {
		w.halted = why
		w.notes = append(w.notes, why)
	}
	w.failed = true
	for _, p := range w.del {
		if w.tasks[p.Name] == "" {
			w.tasks[p.Name] = "not deleted: " + why
		}
	}
	for _, p := range w.create {
		if !strings.Contains(w.tasks[p.Name], "created on") {
			w.tasks[p.Name] = joinStep(w.tasks[p.Name], "not created: "+why)
		}
	}
}

func (e *Executor) deleteOptions(uid types.UID) metav1.DeleteOptions {
	return metav1.DeleteOptions{GracePeriodSeconds: e.opts.GracePeriod, Preconditions: &metav1.Preconditions{UID: &uid}}
}

// journalAll records each job's change on its Service before the job's
// first pod write, creating the Service of a start with it.
func (e *Executor) journalAll(ctx context.Context, work []*jobWork) {
	e.eachJob(work, func(w *jobWork) { e.journalJob(ctx, w) })
}

func (e *Executor) journalJob(ctx context.Context, w *jobWork) {
	if !w.writes() || len(w.wantPods) == 0 {
		return
	}
	if w.createSvc != nil {
		e.createJournaledService(ctx, w)
		return
	}
	if err := e.may(ctx, "journal on service "+w.svc.Name); err != nil {
		w.halt(kubeclient.HaltReason(err))
		return
	}
	got, err := e.setJournal(ctx, w.svc, e.journalOf(w))
	if err != nil {
		w.failed = true
		why := "recording the change on service " + w.svc.Name + " (the journal) failed: " + e.writeError(ctx, err, "update", "services", w.svc.Name, w.change.Job.Job)
		w.notes = append(w.notes, why)
		for _, p := range w.del {
			w.tasks[p.Name] = "not deleted: the journal could not be written"
		}
		for _, p := range w.create {
			w.tasks[p.Name] = "not created: the journal could not be written"
		}
		return
	}
	w.journal = got
}

// createJournaledService creates a starting job's Service with the journal
// already on it, so the first pod write always follows a recorded change.
func (e *Executor) createJournaledService(ctx context.Context, w *jobWork) {
	if err := e.may(ctx, "create service "+w.createSvc.Name); err != nil {
		w.halt(kubeclient.HaltReason(err))
		return
	}
	svc := w.createSvc.DeepCopy()
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[AnnotJournal] = e.journalOf(w)
	got, err := e.client.Services(e.namespace).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		w.failed = true
		w.notes = append(w.notes, "creating service "+svc.Name+" failed: "+e.writeError(ctx, err, "create", "services", svc.Name, w.change.Job.Job))
		for _, p := range w.create {
			w.tasks[p.Name] = joinStep(w.tasks[p.Name], "not created: the job's Service could not be created")
		}
		for _, p := range w.del {
			w.tasks[p.Name] = "not deleted: the job's Service could not be created"
		}
		return
	}
	w.journal = got
	w.notes = append(w.notes, "created service "+svc.Name)
}

// deleteAll deletes what goes and waits for the pods to be gone.
func (e *Executor) deleteAll(ctx context.Context, work []*jobWork) {
	pods := e.client.Pods(e.namespace)
	gone := map[types.UID]*jobWork{}
	var mu sync.Mutex
	e.eachJob(work, func(w *jobWork) {
		if !w.writes() || w.failed {
			return
		}
		for _, p := range w.del {
			if p.DeletionTimestamp == nil {
				if err := e.may(ctx, "delete pod "+p.Name); err != nil {
					w.halt(kubeclient.HaltReason(err))
					break
				}
				err := pods.Delete(ctx, p.Name, e.deleteOptions(p.UID))
				if err != nil && !apierrors.IsNotFound(err) {
					w.failed = true
					w.tasks[p.Name] = "failed: delete from " + p.Spec.NodeName + ": " + e.writeError(ctx, err, "delete", "pods", p.Name, w.change.Job.Job)
					continue
				}
			}
			w.wrote = true
			w.tasks[p.Name] = "deleted from " + p.Spec.NodeName
			mu.Lock()
			gone[p.UID] = w
			mu.Unlock()
		}
		if w.delSvc != nil && w.halted == "" {
			if err := e.may(ctx, "delete service "+w.delSvc.Name); err != nil {
				w.halt(kubeclient.HaltReason(err))
				return
			}
			err := e.client.Services(e.namespace).Delete(ctx, w.delSvc.Name, e.deleteOptions(w.delSvc.UID))
			if err != nil && !apierrors.IsNotFound(err) {
				w.failed = true
				w.notes = append(w.notes, "deleting service "+w.delSvc.Name+" failed: "+e.writeError(ctx, err, "delete", "services", w.delSvc.Name, w.change.Job.Job))
			} else {
				w.notes = append(w.notes, "deleted service "+w.delSvc.Name)
			}
		}
	})
	if len(gone) == 0 {
		return
	}
	uids := map[types.UID]bool{}
	for uid := range gone {
		uids[uid] = true
	}
	for uid := range e.waitGone(ctx, uids, ManagedSelector) {
		w := gone[uid]
		if context.Cause(ctx) == nil {
			w.notes = append(w.notes, fmt.Sprintf("old pods still terminating after %s", e.goneTimeout()))
		}
	}
}

func (e *Executor) goneTimeout() time.Duration {
	if e.opts.Timeout < 0 {
		return DefaultTimeout
	}
	return e.opts.Timeout
}

// waitGone waits, up to Timeout (DefaultTimeout when that is negative),
// until no pod that selector selects has one of the UIDs, and returns
// those still there. A job's rollback selects its job's pods only: jobs
// roll back at once, and each listing every pod of the namespace four
// times a second would load the API server with little to show.
func (e *Executor) waitGone(ctx context.Context, uids map[types.UID]bool, selector string) map[types.UID]bool {
	deadline := time.Now().Add(e.goneTimeout())
	left := uids
	for {
		if list, err := e.client.Pods(e.namespace).List(ctx, metav1.ListOptions{LabelSelector: selector}); err == nil {
			list := list.Items
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

// jobSelector selects the managed pods of job (a valid label value:
// CheckNames).
func jobSelector(job string) string { return ManagedSelector + "," + LabelJob + "=" + job }

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// createAll creates each job's pods; a job whose create fails, or that an
// interrupt stops, has the pods created for it in this apply deleted again
// (rollback). It returns the created pods by UID.
func (e *Executor) createAll(ctx context.Context, work []*jobWork) map[types.UID]*jobWork {
	pods := e.client.Pods(e.namespace)
	created := map[types.UID]*jobWork{}
	var mu sync.Mutex
	e.eachJob(work, func(w *jobWork) {
		if !w.writes() || w.failed {
			for _, p := range w.create {
				if w.conflict == "" && w.tasks[p.Name] == "" {
					w.tasks[p.Name] = "not created: deleting old pods failed"
				}
			}
			e.removeFailedStart(ctx, w)
			return
		}
		var mine []*corev1.Pod
		for i, p := range w.create {
			if err := e.may(ctx, "create pod "+p.Name); err != nil {
				w.halt(kubeclient.HaltReason(err))
				e.rollback(ctx, w, mine, "")
				mine = nil
				break
			}
			// The create runs to its answer even when an interrupt comes
			// meanwhile (bounded by the request timeout): a create cut off
			// in flight may still have been made, and its pod would escape
			// the rollback. The interrupt stops the next write (may).
			got, err := pods.Create(context.WithoutCancel(ctx), owned(p, w.owner()), metav1.CreateOptions{})
			if err == nil {
				mine = append(mine, got)
				w.wrote = true
				w.tasks[p.Name] = joinStep(w.tasks[p.Name], "created on "+p.Spec.NodeName)
				continue
			}
			w.failed = true
			why := e.writeError(ctx, err, "create", "pods", p.Name, w.change.Job.Job)
			w.tasks[p.Name] = joinStep(w.tasks[p.Name], "create on "+p.Spec.NodeName+" rejected: "+why)
			for _, q := range w.create[i+1:] {
				w.tasks[q.Name] = joinStep(w.tasks[q.Name], "not created: an earlier task of the job was rejected")
			}
			e.rollback(ctx, w, mine, why)
			mine = nil
			break
		}
		mu.Lock()
		for _, p := range mine {
			created[p.UID] = w
		}
		mu.Unlock()
	})
	return created
}

// owner is the job's Service as the API server has it (with its UID): the
// one this apply created or journalled on, else the one it found.
func (w *jobWork) owner() *corev1.Service {
	if w.journal != nil {
		return w.journal
	}
	return w.svc
}

// owned is the pod with the job's Service svc as its controller
// (docs/kubernetes.md, "Owner references"): deleting the Service has the
// garbage collector delete the job's pods, and kubectl drain, which
// refuses pods that declare no controller unless --force, evicts them.
// The template's own references stay, but for any controller of its own
// (a pod has one at most). No blockOwnerDeletion: setting it needs the
// right to update the Service's finalizers, which optimus does not ask
// for.
func owned(p *corev1.Pod, svc *corev1.Service) *corev1.Pod {
	if svc == nil || svc.UID == "" {
		return p
	}
	q := p.DeepCopy()
	refs := q.OwnerReferences[:0]
	for _, r := range q.OwnerReferences {
		if r.Controller == nil || !*r.Controller {
			refs = append(refs, r)
		}
	}
	controller := true
	q.OwnerReferences = append(refs, metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID, Controller: &controller})
	return q
}

// rollback deletes again the pods created for a job in this apply, on a
// context of its own (cleanup), and removes a failed start's Service.
func (e *Executor) rollback(ctx context.Context, w *jobWork, mine []*corev1.Pod, why string) {
	if w.resumed != "" && w.change.Action == executor.ActionStart && len(w.skip) > 0 {
		// A start a killed apply began that cannot be finished is undone
		// whole: its pods too.
		mine = append(append([]*corev1.Pod(nil), mine...), w.skip...)
		w.notes = append(w.notes, "undoing the start the killed apply began")
	}
	if len(mine) == 0 {
		e.removeFailedStart(ctx, w)
		return
	}
	cctx, cancel, ok := e.cleanup(ctx)
	if !ok {
		w.notes = append(w.notes, fmt.Sprintf("%d created pods not rolled back (no writes after a lost Lease)", len(mine)))
		return
	}
	defer cancel()
	pods := e.client.Pods(e.namespace)
	var undone []string
	rolled := map[types.UID]bool{}
	for _, q := range mine {
		err := pods.Delete(cctx, q.Name, e.deleteOptions(q.UID))
		if err != nil && !apierrors.IsNotFound(err) {
			w.tasks[q.Name] = joinStep(w.tasks[q.Name], "rolling back failed: "+e.writeError(cctx, err, "delete", "pods", q.Name, w.change.Job.Job))
			continue
		}
		w.tasks[q.Name] = joinStep(w.tasks[q.Name], "deleted again (rollback)")
		undone = append(undone, q.Name)
		rolled[q.UID] = true
	}
	if len(undone) == len(mine) && len(w.del) == 0 {
		w.wrote = false // nothing of the job's writes is left
	}
	if len(undone) > 0 {
		w.notes = append(w.notes, "rolled back (deleted again) "+strings.Join(undone, ", "))
		if left := e.waitGone(cctx, rolled, jobSelector(w.change.Job.Job)); len(left) > 0 {
			w.notes = append(w.notes, fmt.Sprintf("%d of them still terminating after %s", len(left), e.goneTimeout()))
		}
	}
	e.removeFailedStart(ctx, w)
}

// removeFailedStart deletes the Service this apply created for a start
// that has no pod left.
func (e *Executor) removeFailedStart(ctx context.Context, w *jobWork) {
	if w.createSvc == nil && w.resumed == "" || w.journal == nil || w.wrote || len(w.change.From) > 0 {
		return
	}
	cctx, cancel, ok := e.cleanup(ctx)
	if !ok {
		return
	}
	defer cancel()
	svc := w.journal
	err := e.client.Services(e.namespace).Delete(cctx, svc.Name, e.deleteOptions(svc.UID))
	if err != nil && !apierrors.IsNotFound(err) {
		w.notes = append(w.notes, "removing service "+svc.Name+" of the failed start failed: "+e.writeError(cctx, err, "delete", "services", svc.Name, w.change.Job.Job))
		return
	}
	w.notes = append(w.notes, "removed service "+svc.Name+" again (the start failed)")
	w.journal = nil
}

// closeJournals says which jobs an interrupt left half done: their
// journals stay, and the next apply finishes them. A job whose writes ran
// to their end needs no write: its pods match its journal.
func (e *Executor) closeJournals(work []*jobWork) {
	for _, w := range work {
		if w.journal != nil && w.halted != "" && w.wrote {
			w.notes = append(w.notes, "left half done: the journal on service "+w.journal.Name+" lets the next apply finish the change")
		}
	}
}
