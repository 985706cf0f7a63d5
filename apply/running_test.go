package apply_test

import (
	"reflect"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
)

// Running keeps what each result says runs: the new tasks of a change that
// was done, the old ones of a change that failed or was only planned, and
// a skipped job's tasks as they were.
func TestRunning(t *testing.T) {
	task := func(job, role string, i int, node string) executor.Task {
		return executor.Task{Job: job, Role: role, Index: i, Node: node, Resources: map[string]float64{"gpu": 1}}
	}
	kept := task("d", executor.RoleWorker, 0, "n1")
	kept.Kept = true
	change := func(job, action, outcome string, from, to []executor.Task) executor.Result {
		return executor.Result{Change: executor.Change{Job: executor.Job{Job: job}, Action: action, From: from, To: to}, Outcome: outcome}
	}
	r := &apply.Report{
		Results: []executor.Result{
			change("a", executor.ActionStart, executor.OutcomeDone, nil,
				[]executor.Task{task("a", executor.RoleWorker, 1, "n2"), task("a", executor.RolePS, 0, "n1"), task("a", executor.RoleWorker, 0, "n1")}),
			change("b", executor.ActionResize, executor.OutcomeFailed,
				[]executor.Task{task("b", executor.RoleWorker, 0, "n1")},
				[]executor.Task{task("b", executor.RoleWorker, 0, "n1"), task("b", executor.RoleWorker, 1, "n2")}),
			change("c", executor.ActionStop, executor.OutcomeDone, []executor.Task{task("c", executor.RoleWorker, 0, "n3")}, nil),
			change("e", executor.ActionMove, executor.OutcomePlanned,
				[]executor.Task{task("e", executor.RoleWorker, 0, "n1")}, []executor.Task{task("e", executor.RoleWorker, 0, "n2")}),
		},
		Skipped: []executor.Result{
			change("d", executor.ActionStart, executor.OutcomeSkipped, []executor.Task{task("d", executor.RoleWorker, 0, "n1")}, []executor.Task{kept}),
			change("0", executor.ActionStop, executor.OutcomeSkipped, []executor.Task{task("0", executor.RoleWorker, 0, "n4")}, nil),
		},
	}
	var got []string
	for _, t := range r.Running() {
		if t.Kept {
			got = append(got, "KEPT ")
		}
		got = append(got, t.Name()+"@"+t.Node)
	}
	want := []string{
		"0-worker-0@n4",                               // not in the plan, left running
		"a-ps-0@n1", "a-worker-0@n1", "a-worker-1@n2", // started: its new tasks, PS first
		"b-worker-0@n1", // resize failed: as before
		"d-worker-0@n1", // running as planned, its kept mark cleared
		"e-worker-0@n1", // only planned: where it is
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("running\n %v\nwant\n %v", got, want)
	}
	if r.Done() != 2 {
		t.Errorf("Done %d, want 2", r.Done())
	}
}
