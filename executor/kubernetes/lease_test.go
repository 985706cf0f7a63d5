package kubernetes_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

func TestTwoConcurrentAppliesExactlyOneProceeds(t *testing.T) {
	e := setupParallel(t)
	// seq2seq-a is moved and moved back below; dssm-a is a job beside it.
	e.keepJobs("dssm-a", "seq2seq-a")
	ctx := context.Background()
	type outcome struct {
		id   string
		res  []executor.Result
		err  error
		cnt  *ktest.Counter
		exec *k8s.Executor
	}
	var xs []*outcome
	for _, id := range []string{"apply-a", "apply-b"} {
		x, c := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseWait = id, -1 })
		xs = append(xs, &outcome{id: id, cnt: c, exec: x})
	}
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{})
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, o := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			o.res, o.err = o.exec.Apply(ctx, changes, false)
		}()
	}
	close(start)
	wg.Wait()
	var winner, loser *outcome
	for _, o := range xs {
		if o.err == nil {
			winner = o
		} else {
			loser = o
		}
	}
	if winner == nil || loser == nil {
		t.Fatalf("want exactly one apply to proceed: %s: %v; %s: %v", xs[0].id, xs[0].err, xs[1].id, xs[1].err)
	}
	t.Logf("%s proceeded; %s: %v", winner.id, loser.id, loser.err)
	var held *kubeclient.HeldError
	if !errors.As(loser.err, &held) || held.Holder != winner.id {
		t.Errorf("loser's error does not name the holder %s: %v", winner.id, loser.err)
	}
	allDone(t, winner.res, len(e.plan.Jobs))
	for _, w := range loser.cnt.Writes() {
		if strings.Contains(w, "/pods") || strings.Contains(w, "/services") {
			t.Errorf("the apply that did not get the lease wrote %s", w)
		}
	}

	// A held Lease makes a waiting apply wait, then fail naming the holder.
	holder, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity = "cron-on-host-x" })
	release, err := holder.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waiter, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.LeaseWait = 100 * time.Millisecond })
	moved := clonePlan(e.plan)
	for i, task := range moved.Tasks {
		if task.Name() == "seq2seq-a-worker-1" {
			moved.Tasks[i].Node = e.room(moved, task, task.Node)
		}
	}
	_, err = e.run(waiter, moved, false)
	if !errors.As(err, &held) || held.Holder != "cron-on-host-x" || !strings.Contains(err.Error(), `holder "cron-on-host-x"`) {
		t.Errorf("with the Lease held: %v", err)
	}
	release()
	if rs, err := e.run(waiter, moved, false); err != nil {
		t.Errorf("after release: %v", err)
	} else {
		logResults(t, rs)
	}

	// A waiting apply proceeds once the holder lets go within --lease-wait.
	release, err = holder.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seen <-chan struct{}
	patient, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) {
		o.LeaseWait = 30 * time.Second
		o.RESTConfig, seen = ktest.AfterGet(o.RESTConfig, "/leases/")
	})
	go func() { <-seen; release() }() // once the patient apply has found the Lease held
	if rs, err := e.run(patient, e.plan, false); err != nil {
		t.Errorf("waiting for the Lease: %v", err)
	} else {
		for _, r := range rs {
			if r.Change.Job.Job == "seq2seq-a" && (r.Change.Action != executor.ActionMove || r.Outcome != executor.OutcomeDone) {
				t.Errorf("seq2seq-a after waiting: %s %s %s", r.Change.Action, r.Outcome, r.Message)
			}
		}
	}
}
