// Package apply derives, without any I/O, what must change on a cluster to
// bring it from what runs now to a plan: one change per job (start, stop,
// resize, move), handed to an executor (package executor). Run carries a whole plan out (validate, read what runs now, diff, apply)
// without I/O of its own; the plan, jobs and actions tables are read and
// written in package pipeline/adapt.
package apply

import (
	"fmt"
	"sort"
	"strings"

	"github.com/optimus-sched/optimus/executor"
)

// Plan is what optimus place decided: every job it names, with its tasks.
type Plan struct {
	// Jobs lists every job of the plan in plan order, with its status; a
	// waiting or done job has no tasks.
	Jobs []PlanJob
	// Tasks are the placed tasks, grouped by job in plan order.
	Tasks []executor.Task
}

// PlanJob is one job of a plan.
type PlanJob struct {
	Job    string
	Status string // running, waiting or done
	Reason string
}

// Options steer Diff.
type Options struct {
	// Prune stops jobs that run now but are not in the plan; without it they
	// are left alone (and reported as a skipped stop).
	Prune bool
	// Generation names the plan; every change carries it.
	Generation string
}

// Diff compares the plan with what runs now and returns the changes to make,
// sorted by job, and a skipped Result for each job that needs none. Per job,
// with W the planned tasks and C the running ones, each a set of (role,
// index, node):
//
//   - W == C: nothing to do (skipped), whatever the kept marks say;
//   - C empty, W not: start;
//   - W empty, C not: stop when the plan lists the job as waiting or done (it
//     decided the job yields its resources), or when the job is absent from
//     the plan and Prune is set; an absent job without Prune is left running
//     (skipped);
//   - the number of PS or of workers differs: resize (checkpoint, restart
//     with the new tasks);
//   - same numbers, some task elsewhere: move.
//
// Change.From holds all the job's running tasks and Change.To all its planned
// ones. A planned task marked kept stays untouched by executors; Diff keeps
// the mark only where that task does run on that node now, so that Kept in a
// change always means "running there now, leave it".
func Diff(plan Plan, current []executor.Task, jobs map[string]executor.Job, opts Options) ([]executor.Change, []executor.Result) {
	want := groupByJob(plan.Tasks)
	have := groupByJob(current)
	inPlan := map[string]PlanJob{}
	for _, j := range plan.Jobs {
		inPlan[j.Job] = j
	}
	for name := range want {
		if _, ok := inPlan[name]; !ok {
			inPlan[name] = PlanJob{Job: name, Status: "running"}
		}
	}
	names := make([]string, 0, len(inPlan)+len(have))
	for name := range inPlan {
		names = append(names, name)
	}
	for name := range have {
		if _, ok := inPlan[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)

	var changes []executor.Change
	var skipped []executor.Result
	for _, name := range names {
		job, ok := jobs[name]
		if !ok {
			job = executor.Job{Job: name}
		}
		w, c := want[name], have[name]
		pj, planned := inPlan[name]
		ch := executor.Change{Job: job, From: c, To: markKept(w, c), Generation: opts.Generation}
		skip := func(action, msg string) {
			ch.Action = action
			skipped = append(skipped, executor.Result{Change: ch, Outcome: executor.OutcomeSkipped, Message: msg})
		}
		switch {
		case sameTasks(w, c) && len(w) == 0:
			skip(executor.ActionStop, notRunning(pj))
			continue
		case sameTasks(w, c):
			skip(executor.ActionStart, "already running as planned: "+describe(c))
			continue
		case len(c) == 0:
			ch.Action = executor.ActionStart
		case len(w) == 0 && !planned && !opts.Prune:
			skip(executor.ActionStop, "not in the plan: left running ("+describe(c)+"); --prune stops it")
			continue
		case len(w) == 0:
			ch.Action = executor.ActionStop
		default:
			wp, ww := counts(w)
			cp, cw := counts(c)
			if wp != cp || ww != cw {
				ch.Action = executor.ActionResize
			} else {
				ch.Action = executor.ActionMove
			}
		}
		changes = append(changes, ch)
	}
	return changes, skipped
}

// Describe says in words what a change does, for messages and logs.
func Describe(c executor.Change) string {
	switch c.Action {
	case executor.ActionStart:
		return "start " + describe(c.To)
	case executor.ActionStop:
		return "stop " + describe(c.From)
	case executor.ActionResize:
		return "resize from " + describe(c.From) + " to " + describe(c.To) + " (checkpoint, then restart)"
	case executor.ActionMove:
		return "move from " + describe(c.From) + " to " + describe(c.To) + " (checkpoint, then restart)"
	}
	return c.Action
}

func notRunning(pj PlanJob) string {
	msg := "not running"
	if pj.Status != "" && pj.Status != "running" {
		msg += ", plan says " + pj.Status
	}
	if pj.Reason != "" {
		msg += ": " + pj.Reason
	}
	return msg
}

// describe summarises tasks as "2 ps + 3 workers on gpu-01, gpu-02" (an
// all-reduce job's as "3 workers on gpu-01, gpu-02").
func describe(tasks []executor.Task) string {
	if len(tasks) == 0 {
		return "no tasks"
	}
	p, w := counts(tasks)
	nodes := map[string]bool{}
	var list []string
	for _, t := range tasks {
		if !nodes[t.Node] {
			nodes[t.Node] = true
			list = append(list, t.Node)
		}
	}
	sort.Strings(list)
	workers := "workers"
	if w == 1 {
		workers = "worker"
	}
	if p == 0 {
		return fmt.Sprintf("%d %s on %s", w, workers, strings.Join(list, ", "))
	}
	return fmt.Sprintf("%d ps + %d %s on %s", p, w, workers, strings.Join(list, ", "))
}

func counts(tasks []executor.Task) (ps, workers int) {
	for _, t := range tasks {
		if t.Role == executor.RolePS {
			ps++
		} else {
			workers++
		}
	}
	return ps, workers
}

type taskKey struct {
	role  string
	index int
}

// sameTasks: the same tasks on the same nodes.
func sameTasks(a, b []executor.Task) bool {
	if len(a) != len(b) {
		return false
	}
	at := map[taskKey]string{}
	for _, t := range a {
		at[taskKey{t.Role, t.Index}] = t.Node
	}
	for _, t := range b {
		if n, ok := at[taskKey{t.Role, t.Index}]; !ok || n != t.Node {
			return false
		}
	}
	return true
}

// markKept copies the planned tasks, keeping a task's Kept mark only when the
// same task runs on the same node now.
func markKept(want, have []executor.Task) []executor.Task {
	if len(want) == 0 {
		return nil
	}
	now := map[taskKey]string{}
	for _, t := range have {
		now[taskKey{t.Role, t.Index}] = t.Node
	}
	out := make([]executor.Task, len(want))
	for i, t := range want {
		if t.Kept {
			n, ok := now[taskKey{t.Role, t.Index}]
			t.Kept = ok && n == t.Node
		}
		out[i] = t
	}
	return out
}

// groupByJob groups tasks by job, each job's tasks ps first, then by index.
func groupByJob(tasks []executor.Task) map[string][]executor.Task {
	by := map[string][]executor.Task{}
	for _, t := range tasks {
		by[t.Job] = append(by[t.Job], t)
	}
	for _, ts := range by {
		SortTasks(ts)
	}
	return by
}

// SortTasks orders one job's tasks: PS before workers, then by index.
func SortTasks(ts []executor.Task) {
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].Role != ts[j].Role {
			return ts[i].Role == executor.RolePS
		}
		return ts[i].Index < ts[j].Index
	})
}
