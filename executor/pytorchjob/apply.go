package pytorchjob

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
)

// Writes Apply makes to a job's PyTorchJob.
const (
	opCreate = "create"
	opUpdate = "update"
	opDelete = "delete"
)

// work is what one change needs written, from the live PyTorchJobs.
type work struct {
	change executor.Change
	reason string      // non-empty: nothing is done for this job, it fails
	want   *PyTorchJob // nil for a stop
	have   *PyTorchJob // the job's managed PyTorchJob, when it exists
	op     string      // "": nothing to write
	why    string      // what differs, for an update
	err    string      // the write failed
}

// plan works out a change against the live PyTorchJobs, reading nothing.
func (e *Executor) plan(c executor.Change, live map[string]*PyTorchJob) *work {
	w := &work{change: c}
	job := c.Job.Job
	want, err := Build(c, e.manifestOptions())
	if err != nil {
		w.reason = err.Error()
		return w
	}
	w.want = want
	have := live[job]
	switch {
	case have != nil && have.Labels[k8s.LabelManagedBy] != k8s.ManagedByValue:
		if want == nil {
			return w // a stop leaves a foreign PyTorchJob of that name alone
		}
		w.reason = fmt.Sprintf("conflict: PyTorchJob %s exists and is not managed by optimus (no label %s=%s): left alone; rename the job or remove that PyTorchJob", job, k8s.LabelManagedBy, k8s.ManagedByValue)
		return w
	case have != nil && have.Labels[k8s.LabelJob] != job:
		w.reason = fmt.Sprintf("conflict: PyTorchJob %s belongs to optimus job %q: left alone", job, have.Labels[k8s.LabelJob])
		return w
	}
	w.have = have
	switch {
	case want == nil && have != nil:
		w.op = opDelete
	case want != nil && have == nil:
		w.op = opCreate
	case want != nil:
		if w.why = differs(have, want); w.why != "" {
			w.op = opUpdate
		}
	}
	return w
}

func (e *Executor) planAll(changes []executor.Change, live map[string]*PyTorchJob) []*work {
	out := make([]*work, len(changes))
	for i, c := range changes {
		out[i] = e.plan(c, live)
	}
	return out
}

// Apply carries the changes out, one PyTorchJob write per changed job
// (docs/kubernetes.md, "PyTorchJob executor"):
//
//  1. From one list of the namespace's PyTorchJobs it works out each
//     change: create (start), update of replica counts, node affinity and
//     template (resize, move, or a spec the jobs table changed), delete
//     (stop). A PyTorchJob of the job's name that optimus does not manage,
//     a PS job, or a job whose Worker replicas would need different
//     resources fails that job alone, with its reason, and nothing of it
//     is touched. When nothing needs writing Apply makes no write.
//  2. Before its first write it checks every permission it needs
//     (CheckAccess) and takes the namespace's Lease (the pod executor's),
//     renewed until Apply returns, and lists again under it. Should the
//     Lease be lost, or Apply be interrupted, it makes no further write
//     and says so for each job left.
//  3. Each job is one write of one object, so a job is never half changed:
//     no journal or rollback is needed. An update carries the
//     resourceVersion it read: a PyTorchJob changed meanwhile is a
//     conflict for that job, retried by the next apply.
//
// The operator's controller, when it runs, makes the pods; Apply does not
// wait for them.
func (e *Executor) Apply(ctx context.Context, changes []executor.Change, dryRun bool) ([]executor.Result, error) {
	live, err := e.list(ctx, "")
	if err != nil {
		return nil, err
	}
	ws := e.planAll(changes, live)
	anyWrite := false
	for _, w := range ws {
		anyWrite = anyWrite || w.op != ""
	}
	if dryRun || !anyWrite {
		return e.results(ws, dryRun), nil
	}
	if err := e.CheckAccess(ctx); err != nil {
		return nil, err
	}
	hold, err := e.hold(ctx)
	if err != nil {
		return nil, err
	}
	defer hold.Release()
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		select {
		case <-hold.Lost():
			stop(hold.Err())
		case <-wctx.Done():
		}
	}()
	if live, err = e.list(ctx, ""); err != nil { // another apply may have run meanwhile
		return nil, err
	}
	ws = e.planAll(changes, live)
	for _, w := range ws {
		if w.op == "" {
			continue
		}
		if err := context.Cause(wctx); err != nil {
			w.err = "not done: apply " + kubeclient.HaltReason(err)
			continue
		}
		e.write(wctx, w)
	}
	return e.results(ws, false), nil
}

// write makes the job's one write.
func (e *Executor) write(ctx context.Context, w *work) {
	var err error
	name := w.change.Job.Job
	switch w.op {
	case opCreate:
		_, err = e.jobs().Create(ctx, w.want, metav1.CreateOptions{})
	case opUpdate:
		_, err = e.jobs().Update(ctx, merged(w.have, w.want), metav1.UpdateOptions{})
	case opDelete:
		uid := w.have.UID
		err = e.jobs().Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	}
	if err != nil {
		w.err = fmt.Sprintf("%s PyTorchJob %s failed: %v", w.op, name, e.client.APIError(err, w.op, Resource+"."+GroupVersion.Group))
	}
}

// Drift checks the jobs apply's diff found running as planned against
// their PyTorchJobs (apply.Repairer): a job whose PyTorchJob is missing,
// runs another spec than the plan and the jobs table make now, or whose
// replica counts or node affinity were changed by hand, is returned to be
// repaired. It makes no write.
func (e *Executor) Drift(ctx context.Context, running []executor.Change) ([]executor.Change, map[string]string, error) {
	live, err := e.list(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	var repair []executor.Change
	for _, c := range running {
		if w := e.plan(c, live); w.reason == "" && w.op != "" {
			repair = append(repair, c)
		}
	}
	return repair, nil, nil
}

// summary says what the job's PyTorchJob asks for.
func summary(j *PyTorchJob) string {
	s := fmt.Sprintf("Master 1 on %s", strings.Join(Nodes(j, Master), ", "))
	if n := Replicas(j, Worker); n > 0 {
		s += fmt.Sprintf(", Worker %d on nodes %s", n, strings.Join(Nodes(j, Worker), ", "))
	}
	return s
}

// results turns the work into one Result per change, with one TaskResult
// per task concerned.
func (e *Executor) results(ws []*work, dryRun bool) []executor.Result {
	out := make([]executor.Result, len(ws))
	for i, w := range ws {
		r := executor.Result{Change: w.change}
		tasks := w.change.To
		if len(tasks) == 0 {
			tasks = w.change.From
		}
		name := w.change.Job.Job
		var outcome, msg, taskMsg string
		switch {
		case w.reason != "":
			outcome, msg, taskMsg = executor.OutcomeFailed, w.reason+"; nothing was done for this job", "not done"
		case w.op == "" && w.want == nil:
			outcome, msg, taskMsg = executor.OutcomeSkipped, "no PyTorchJob "+name+" to delete", "not running"
		case w.op == "":
			outcome, msg, taskMsg = executor.OutcomeSkipped, "already as planned", "runs as planned on "
		case w.err != "":
			outcome, msg, taskMsg = executor.OutcomeFailed, w.err, "not done"
		case dryRun:
			outcome, taskMsg = executor.OutcomePlanned, "would be "
			msg = map[string]string{opCreate: "would create", opUpdate: "would update", opDelete: "would delete"}[w.op] + " PyTorchJob " + name
		default:
			outcome = executor.OutcomeDone
			msg = map[string]string{opCreate: "created", opUpdate: "updated", opDelete: "deleted"}[w.op] + " PyTorchJob " + name
		}
		switch {
		case w.op == opUpdate && w.why != "spec" && w.reason == "":
			msg += " (" + w.why + ")"
		}
		if w.want != nil && w.reason == "" && w.op != "" {
			msg += ": " + summary(w.want)
		}
		r.Outcome, r.Message = outcome, msg
		for _, t := range tasks {
			tm := taskMsg
			switch {
			case outcome == executor.OutcomeSkipped && w.want != nil:
				tm += t.Node
			case outcome == executor.OutcomeSkipped:
			case outcome == executor.OutcomeFailed:
			case w.op == opDelete:
				tm += "deleted with PyTorchJob " + name
			default:
				rt := Worker
				if t.Index == 0 {
					rt = Master
				}
				tm += fmt.Sprintf("a replica of type %s of PyTorchJob %s, planned on %s", rt, name, t.Node)
			}
			r.Tasks = append(r.Tasks, executor.TaskResult{Task: t, Outcome: outcome, Message: tm})
		}
		out[i] = r
	}
	return out
}
