package print_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	execexec "github.com/optimus-sched/optimus/executor/exec"
	printexec "github.com/optimus-sched/optimus/executor/print"
	"github.com/optimus-sched/optimus/pipeline/adapt/adapttest"
)

// apply.Run with the print and exec executors. These tests were apply's;
// they moved here while the print executor linked client-go (its
// manifests), which apply's own test binary need not link; since the
// Kubernetes client moved to optimus-kubernetes (executor/allkube), print
// links none, and apply's package stays free of its executors.

// testbed is apply/testdata's testbed plan and jobs.
func testbed(t *testing.T) (apply.Plan, map[string]executor.Job) { return adapttest.Testbed(t) }

// moved puts one task on another node.
func moved(p apply.Plan, name, node string) apply.Plan {
	out := apply.Plan{Jobs: p.Jobs, Tasks: append([]executor.Task(nil), p.Tasks...)}
	for i, t := range out.Tasks {
		if t.Name() == name {
			out.Tasks[i].Node = node
		}
	}
	return out
}

// Run applies the testbed plan without a command line: fresh, it plans a
// start per job; given what runs now, it leaves the jobs running as planned
// alone and moves the one task that moved.
func TestRunPrint(t *testing.T) {
	plan, jobs := testbed(t)
	ctx := context.Background()
	fresh, err := printexec.New(printexec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := apply.Run(ctx, fresh, plan, jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "apply (print, generation " + apply.Generation(plan) + "): 9 jobs: 9 start, 0 stop, 0 resize, 0 move, 0 unchanged; changes: 0 done, 9 planned, 0 failed"; r.Summary() != want {
		t.Errorf("summary %q\nwant    %q", r.Summary(), want)
	}
	if r.Err() != nil || r.Failed() != 0 || len(r.All()) != 9 {
		t.Errorf("err %v, %d failed, %d results", r.Err(), r.Failed(), len(r.All()))
	}

	running, err := printexec.New(printexec.Options{Current: moved(plan, "seq2seq-a-worker-1", "gpu-04").Tasks})
	if err != nil {
		t.Fatal(err)
	}
	r, err = apply.Run(ctx, running, plan, jobs, apply.RunOptions{Options: apply.Options{Generation: "cron-7"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 || r.Results[0].Change.Action != executor.ActionMove || r.Results[0].Change.Job.Job != "seq2seq-a" ||
		r.Results[0].Change.Generation != "cron-7" || len(r.Skipped) != 8 {
		t.Errorf("results %+v, %d skipped; want one move of seq2seq-a in generation cron-7 and 8 skipped", r.Results, len(r.Skipped))
	}
}

// A plan the executor rejects changes nothing and comes back as an invalid
// plan; a change that fails is a result, and Err counts it.
func TestRunInvalidAndFailed(t *testing.T) {
	plan, jobs := testbed(t)
	ctx := context.Background()
	small, err := printexec.New(printexec.Options{Capacity: map[string]map[string]float64{"gpu-01": {"gpu": 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Run(ctx, small, plan, jobs, apply.RunOptions{}); !errors.Is(err, executor.ErrInvalidPlan) || strings.HasPrefix(err.Error(), "print: ") {
		t.Errorf("plan on unknown nodes: %v; want an invalid plan, not prefixed", err)
	}
	failing, err := execexec.New(execexec.Options{Program: "false"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := apply.Run(ctx, failing, plan, jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() != 9 || r.Err() == nil || r.Err().Error() != "9 of 9 changes failed (see the actions table); apply the plan again to retry them" {
		t.Errorf("%d failed, err %v", r.Failed(), r.Err())
	}
	if msg := r.Results[0].Message; msg != "exit status 1" {
		t.Errorf("first message %q", msg)
	}
}
