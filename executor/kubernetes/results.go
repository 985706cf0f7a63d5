package kubernetes

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/optimus-sched/optimus/executor"
)

// results turns the work into one Result per change, with one TaskResult
// per ps and worker pod concerned.
func (e *Executor) results(work []*jobWork, dryRun bool) []executor.Result {
	out := make([]executor.Result, len(work))
	for i, w := range work {
		r := executor.Result{Change: w.change}
		switch {
		case w.conflict != "":
			r.Outcome, r.Message = executor.OutcomeFailed, "conflict: "+w.conflict+"; nothing was done for this job"
			for _, t := range w.change.To {
				r.Tasks = append(r.Tasks, executor.TaskResult{Task: t, Outcome: executor.OutcomeFailed, Message: "not done: conflict"})
			}
		case !w.writes():
			r.Outcome, r.Message = executor.OutcomeSkipped, "already as planned"
			for _, p := range w.skip {
				if t, ok := TaskOf(p); ok {
					r.Tasks = append(r.Tasks, executor.TaskResult{Task: t, Outcome: executor.OutcomeSkipped, Message: "runs as planned on " + t.Node})
				}
			}
		case dryRun:
			r.Outcome = executor.OutcomePlanned
			r.Tasks, r.Message = w.planned()
		default:
			r.Tasks = w.taskResults()
			r.Outcome, r.Message = executor.OutcomeDone, w.summary()
			if w.failed {
				r.Outcome = executor.OutcomeFailed
			}
		}
		out[i] = r
	}
	return out
}

// planned describes what a dry run would do.
func (w *jobWork) planned() ([]executor.TaskResult, string) {
	var trs []executor.TaskResult
	creating := map[string]*corev1.Pod{}
	for _, p := range w.create {
		creating[p.Name] = p
	}
	for _, p := range w.del {
		t, ok := TaskOf(p)
		if !ok {
			continue
		}
		msg := "would delete from " + p.Spec.NodeName
		if q := creating[p.Name]; q != nil {
			msg = "would replace: delete from " + p.Spec.NodeName + ", create on " + q.Spec.NodeName
		}
		trs = append(trs, executor.TaskResult{Task: t, Outcome: executor.OutcomePlanned, Message: msg})
	}
	deleting := map[string]bool{}
	for _, p := range w.del {
		deleting[p.Name] = true
	}
	for _, p := range w.create {
		if t, ok := TaskOf(p); ok && !deleting[p.Name] {
			trs = append(trs, executor.TaskResult{Task: t, Outcome: executor.OutcomePlanned, Message: "would create on " + p.Spec.NodeName})
		}
	}
	for _, p := range w.skip {
		if t, ok := TaskOf(p); ok {
			trs = append(trs, executor.TaskResult{Task: t, Outcome: executor.OutcomeSkipped, Message: "runs as planned on " + t.Node})
		}
	}
	sortResults(trs)
	msg := fmt.Sprintf("would delete %d pods and create %d (%d unchanged)", len(w.del), len(w.create), len(w.skip))
	if w.resumed != "" {
		msg += "; would be " + w.resumed
	}
	if len(w.drift) > 0 {
		msg += "; would repair drift: " + strings.Join(w.drift, ", ")
	}
	return trs, msg
}

// taskResults are the outcomes of the ps and worker pods a change touched.
func (w *jobWork) taskResults() []executor.TaskResult {
	var trs []executor.TaskResult
	seen := map[string]bool{}
	add := func(p *corev1.Pod, outcome, msg string) {
		t, ok := TaskOf(p)
		if !ok || seen[p.Name] {
			return
		}
		seen[p.Name] = true
		trs = append(trs, executor.TaskResult{Task: t, Outcome: outcome, Message: msg})
	}
	for _, p := range append(append([]*corev1.Pod(nil), w.create...), w.del...) { // a replaced pod: the new one
		msg := w.tasks[p.Name]
		outcome := executor.OutcomeDone
		if isFailure(msg) {
			outcome = executor.OutcomeFailed
		}
		add(p, outcome, msg)
	}
	for _, p := range w.skip {
		if msg := w.tasks[p.Name]; msg != "" { // undone
			add(p, executor.OutcomeFailed, msg)
			continue
		}
		add(p, executor.OutcomeSkipped, "runs as planned on "+p.Spec.NodeName)
	}
	sortResults(trs)
	return trs
}

func isFailure(msg string) bool {
	for _, s := range []string{"failed", "rejected", "not created", "not deleted", "not Running", "rollback"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func sortResults(trs []executor.TaskResult) {
	sort.SliceStable(trs, func(a, b int) bool {
		ta, tb := trs[a].Task, trs[b].Task
		if ta.Role != tb.Role {
			return ta.Role < tb.Role
		}
		return ta.Index < tb.Index
	})
}

// summary says in one line what was and was not done for a job.
func (w *jobWork) summary() string {
	var deleted, created, notRunning int
	for _, p := range w.del {
		if strings.HasPrefix(w.tasks[p.Name], "deleted from") {
			deleted++
		}
	}
	for _, p := range w.create {
		msg := w.tasks[p.Name]
		if strings.Contains(msg, "created on") && !strings.Contains(msg, "deleted again") {
			created++
			if strings.Contains(msg, "not Running") {
				notRunning++
			}
		}
	}
	head := fmt.Sprintf("deleted %d pods, created %d of %d", deleted, created, len(w.create))
	if notRunning > 0 {
		head += fmt.Sprintf(" (%d not Running)", notRunning)
	}
	unchanged := 0
	for _, p := range w.skip {
		if w.tasks[p.Name] == "" { // else undone
			unchanged++
		}
	}
	parts := []string{head + fmt.Sprintf(", %d unchanged", unchanged)}
	if w.resumed != "" {
		parts = append(parts, w.resumed)
	}
	if len(w.drift) > 0 {
		parts = append(parts, "repaired drift: "+strings.Join(w.drift, ", "))
	}
	parts = append(parts, w.notes...)
	if w.failed {
		var bad []string
		for _, p := range append(append([]*corev1.Pod(nil), w.del...), w.create...) {
			if msg := w.tasks[p.Name]; isFailure(msg) && !strings.Contains(msg, "deleted again") && !strings.Contains(msg, "not created: an earlier") &&
				(w.halted == "" || !strings.HasSuffix(msg, w.halted)) { // the halt is said once, in the notes
				bad = append(bad, p.Name+": "+msg)
			}
		}
		parts = append(parts, bad...)
		parts = append(parts, "apply again once the cause is fixed")
	}
	return strings.Join(parts, "; ")
}
