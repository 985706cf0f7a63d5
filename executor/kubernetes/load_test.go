package kubernetes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// An apply that writes for several times its Lease's duration renews it
// all along: a second apply tried again and again meanwhile is refused
// every time, naming the first, and writes nothing. The first apply's
// client is held to 10 requests a second (--qps 10 --burst 20, as a
// cluster's operator may set it), so its 60 pods and 10 Services (with the
// access checks, the journals and the reads, some 90 requests) take about
// 7 s on any machine (the rate limit bounds it below), over twice its
// 3 s Lease. Its renewals have a bucket of their own: when they shared the
// writes', one waited in line past 2 s on a loaded CI machine and the
// apply stopped itself half done.
// (It used to be 1,000 pods at --qps 500, whose duration depended on the
// machine: on a fast one the Lease need not have been renewed; then 200
// pods at --qps 20, as long, with three times the API server's work.)
func TestSecondApplyCannotTakeOverALongApply(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s apply: not with -short")
	}
	// Beside the other tests: it waits on its rate limit most of its 7 s,
	// and its Lease and pods are its namespace's, on a node set of its own.
	e := setupParallel(t)
	const jobs, workers, dur, qps, burst = 10, 6, 3 * time.Second, 10, 20
	base := e.jobs["resnet50-a"]
	plan := apply.Plan{}
	all := map[string]executor.Job{}
	for j := range jobs {
		job := base
		job.Job, job.Mode = fmt.Sprintf("load-%03d", j), "sync"
		all[job.Job] = job
		plan.Jobs = append(plan.Jobs, apply.PlanJob{Job: job.Job, Status: "running"})
		for i := range workers {
			node := e.cluster[(j*workers+i)%len(e.cluster)].Name
			plan.Tasks = append(plan.Tasks, executor.Task{Job: job.Job, Role: executor.RoleWorker, Index: i, Node: node,
				Resources: map[string]float64{"cpu": 0.01, "memory_gb": 0.01}})
		}
	}
	changes, _ := apply.Diff(plan, nil, all, apply.Options{Generation: apply.Generation(plan)})
	ctx := context.Background()
	first, c1 := e.executor(ktest.AdminToken, func(o *k8s.Options) {
		o.Identity, o.LeaseDuration, o.Timeout, o.QPS, o.Burst = "first", dur, -1, qps, burst
	})
	second, c2 := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseDuration, o.LeaseWait = "second", dur, -1 })

	began := time.Now()
	done := make(chan struct{})
	var rs []executor.Result
	var err error
	go func() { defer close(done); rs, err = first.Apply(ctx, changes, false) }()
	// The second apply starts trying once the first holds the Lease (its
	// access checks come first, and take longer on a loaded machine).
	for !holdsLease(c1.Writes()) && !isDone(done) {
		if time.Since(began) > time.Minute {
			t.Fatalf("the first apply took no Lease in a minute: %s", ktest.Summary(c1.Writes()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	tries, refused := 0, 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(500 * time.Millisecond):
			tries++
			rs2, err2 := second.Apply(ctx, changes, false)
			var held *kubeclient.HeldError
			switch {
			case errors.As(err2, &held) && held.Holder == "first":
				refused++
			case err2 == nil && (isDone(done) || nothingDone(rs2)):
				// The first apply has finished, or has made its last write
				// and is giving the Lease back: nothing was left to do (the
				// second's writes are checked below).
			default:
				t.Errorf("second apply, try %d: %v", tries, err2)
			}
		}
	}
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range changes {
		ps, err := k8s.Pods(c, k8s.ManifestOptions{Namespace: e.ns})
		if err != nil {
			t.Fatal(err)
		}
		want += len(ps)
	}
	t.Logf("first apply: %d jobs, %d pods in %s (Lease %s); second apply refused %d of %d tries", jobs, want, took.Round(time.Millisecond), dur, refused, tries)
	for _, r := range rs {
		if r.Outcome != executor.OutcomeDone {
			t.Fatalf("%s: %s %s", r.Change.Job.Job, r.Outcome, r.Message)
		}
	}
	// The rate limit makes this so; without it the test would not show
	// that the Lease is renewed.
	if took < 2*dur {
		t.Errorf("the first apply took %s, less than twice the Lease's %s: renewal was not needed", took, dur)
	}
	renewals := -1 // the last PUT gives the Lease back
	for _, w := range c1.Writes() {
		if strings.HasPrefix(w, "PUT ") && strings.Contains(w, "/leases/") {
			renewals++
		}
	}
	t.Logf("the first apply renewed its Lease %d times", renewals)
	if renewals < 2 {
		t.Errorf("the first apply renewed its Lease %d times in %s (every %s): %s", renewals, took, dur/3, ktest.Summary(c1.Writes()))
	}
	if w := podWrites(c2); len(w) > 0 {
		t.Errorf("the second apply wrote %d pods or Services: %v", len(w), w[:min(len(w), 5)])
	}
	if n := len(e.pods()); n != want || want < jobs*workers {
		t.Errorf("%d pods, want %d (%d or more)", n, want, jobs*workers)
	}
}

// holdsLease reports that the writes include a Lease's creation or update.
func holdsLease(writes []string) bool {
	for _, w := range writes {
		if (strings.HasPrefix(w, "POST ") || strings.HasPrefix(w, "PUT ")) && strings.Contains(w, "/leases") {
			return true
		}
	}
	return false
}

// nothingDone reports that every result is a skip: nothing was written.
func nothingDone(rs []executor.Result) bool {
	for _, r := range rs {
		if r.Outcome != executor.OutcomeSkipped {
			return false
		}
	}
	return true
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
