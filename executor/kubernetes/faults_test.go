package kubernetes_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// pauser is a beforeWrite hook that, at the nth pod create, calls at once
// (in the apply's goroutine) and then makes the apply wait until resumed.
type pauser struct {
	n       int
	creates int
	paused  chan struct{}
	resume  chan struct{}
	at      func()
	mu      sync.Mutex
	writes  []string
}

func newPauser(n int, at func()) *pauser {
	return &pauser{n: n, paused: make(chan struct{}), resume: make(chan struct{}), at: at}
}

func (p *pauser) hook(write string) error {
	p.mu.Lock()
	p.writes = append(p.writes, write)
	p.mu.Unlock()
	if !strings.HasPrefix(write, "create pod ") {
		return nil
	}
	p.creates++
	if p.creates == p.n {
		if p.at != nil {
			p.at()
		}
		close(p.paused)
		<-p.resume
	}
	return nil
}

// podWrites are the pod and Service writes a counter saw.
func podWrites(c *ktest.Counter) []string {
	var out []string
	for _, w := range c.Writes() {
		if strings.Contains(w, "/pods") || strings.Contains(w, "/services") {
			out = append(out, w)
		}
	}
	return out
}

// jobsOnCluster counts each job's pods and notes its Service's journal.
func (e *env) jobsOnCluster() (pods map[string]int, services map[string]string) {
	e.t.Helper()
	pods = map[string]int{}
	for _, p := range e.pods() {
		pods[p.Labels[k8s.LabelJob]]++
	}
	list, err := e.admin.CoreV1().Services(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	services = map[string]string{}
	for _, s := range list.Items {
		services[s.Name] = s.Annotations[k8s.AnnotJournal]
	}
	return pods, services
}

// wantPods counts the pods each job of the plan has (schedulers too).
func (e *env) wantPods(p apply.Plan) map[string]int {
	e.t.Helper()
	changes, _ := apply.Diff(p, nil, e.jobs, apply.Options{})
	out := map[string]int{}
	for _, c := range changes {
		ps, err := k8s.Pods(c, k8s.ManifestOptions{Namespace: e.ns})
		if err != nil {
			e.t.Fatal(err)
		}
		out[c.Job.Job] = len(ps)
	}
	return out
}

// A live apply renews its Lease: paused between writes for 2 s over the
// Lease's duration, a second apply still cannot take the namespace, and
// is told when the Lease expires; the first then finishes. The duration
// is 5 s: the holder gives up after 2/3 of it without a renewal, and a
// loaded CI machine has kept the API server from answering for a second.
func TestLeaseRenewedWhileApplyWrites(t *testing.T) {
	e := setupParallel(t)
	// The apply pauses in its first job; a second job is written after.
	e.keepJobs("dssm-a", "inception-a")
	const dur = 5 * time.Second
	first, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseDuration = "first", dur })
	p := newPauser(5, nil)
	k8s.SetBeforeWrite(first, p.hook)
	var rs []executor.Result
	var err error
	done := make(chan struct{})
	go func() { defer close(done); rs, err = e.run(first, e.plan, false) }()
	<-p.paused
	time.Sleep(dur + 2*time.Second)

	second, c2 := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseWait, o.LeaseDuration = "second", -1, dur })
	_, err2 := e.run(second, e.plan, false)
	var held *kubeclient.HeldError
	if !errors.As(err2, &held) || held.Holder != "first" {
		t.Errorf("second apply while the first writes: %v", err2)
	} else {
		t.Logf("second apply: %v", err2)
		if left := time.Until(held.Expires); left <= 0 || left > dur+time.Second || !strings.Contains(err2.Error(), "expires at "+held.Expires.UTC().Format(time.RFC3339)) {
			t.Errorf("expiry %s (in %s) in %q", held.Expires, left, err2)
		}
	}
	if w := podWrites(c2); len(w) > 0 {
		t.Errorf("the second apply wrote %v", w)
	}
	l, lerr := e.admin.CoordinationV1().Leases(e.ns).Get(context.Background(), k8s.LeaseName, metav1.GetOptions{})
	if lerr != nil || l.Spec.RenewTime.Sub(l.Spec.AcquireTime.Time) < dur {
		t.Errorf("lease not renewed: %+v %v", l, lerr)
	}
	close(p.resume)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	allDone(t, rs, len(e.plan.Jobs))
	pods, _ := e.jobsOnCluster()
	for job, n := range e.wantPods(e.plan) {
		if pods[job] != n {
			t.Errorf("job %s: %d pods (want %d)", job, pods[job], n)
		}
	}
}

// An apply whose Lease another holder takes makes no further pod write and
// says why in the actions table.
func TestApplyStopsWritingWhenLeaseTaken(t *testing.T) {
	e := setupParallel(t)
	// The Lease is taken in the first job; two jobs come after it.
	e.keepJobs("dssm-a", "inception-a", "inception-b")
	const dur = 3 * time.Second
	x, c := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseDuration = "first", dur })
	ctx := context.Background()
	p := newPauser(3, func() {
		leases := e.admin.CoordinationV1().Leases(e.ns)
		l, err := leases.Get(ctx, k8s.LeaseName, metav1.GetOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		intruder, now := "intruder", metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.AcquireTime, l.Spec.RenewTime = &intruder, &now, &now
		if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
		time.Sleep(dur / 2) // a renewal (every dur/3) sees it
	})
	go func() { <-p.paused; close(p.resume) }()
	var before int
	k8s.SetBeforeWrite(x, func(w string) error {
		if err := p.hook(w); err != nil {
			return err
		}
		if p.creates == p.n && before == 0 {
			before = len(podWrites(c))
		}
		return nil
	})
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	if after := podWrites(c); len(after) != before {
		t.Errorf("%d pod/service writes after the Lease was taken: %v", len(after)-before, after[before:])
	}
	lost := 0
	for _, r := range rs {
		if r.Outcome == executor.OutcomeFailed && strings.Contains(r.Message, `lost Lease `+e.ns+`/optimus-apply: it is now held by "intruder"`) {
			lost++
		}
	}
	if lost == 0 {
		t.Errorf("no result says the Lease was lost: %v", outcomes(rs))
	}
	l, _ := e.admin.CoordinationV1().Leases(e.ns).Get(ctx, k8s.LeaseName, metav1.GetOptions{})
	if *l.Spec.HolderIdentity != "intruder" {
		t.Errorf("the apply released a Lease it no longer held: holder %q", *l.Spec.HolderIdentity)
	}
}

// SIGINT or SIGTERM mid-apply: the half-started job is rolled back on a
// context of its own (its Service too), the jobs after it are not started,
// the ones before it are whole, no journal is left, and every job's reason
// is in the results.
func TestInterruptedApplyRollsBack(t *testing.T) {
	e := setupParallel(t)
	x, _ := e.executor(ktest.AdminToken, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := newPauser(3, cancel)
	k8s.SetBeforeWrite(x, p.hook)
	go func() { <-p.paused; close(p.resume) }()
	changes, _ := apply.Diff(e.plan, nil, e.jobs, apply.Options{Generation: apply.Generation(e.plan)})
	rs, err := x.Apply(ctx, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	want := e.wantPods(e.plan)
	pods, svcs := e.jobsOnCluster()
	rolled := ""
	for _, r := range rs {
		job := r.Change.Job.Job
		switch {
		case r.Outcome == executor.OutcomeDone:
			if pods[job] != want[job] {
				t.Errorf("done job %s has %d of %d pods", job, pods[job], want[job])
			}
		case strings.Contains(r.Message, "rolled back"):
			rolled = job
			if !strings.Contains(r.Message, "interrupted (SIGINT or SIGTERM)") || !strings.Contains(r.Message, "removed service "+job+" again") {
				t.Errorf("rolled-back job %s: %s", job, r.Message)
			}
			fallthrough
		default:
			if r.Outcome != executor.OutcomeFailed || pods[job] != 0 || !strings.Contains(r.Message, "interrupted") {
				t.Errorf("job %s: %s with %d pods: %s", job, r.Outcome, pods[job], r.Message)
			}
			if _, ok := svcs[job]; ok {
				t.Errorf("job %s not started but its Service is left", job)
			}
		}
	}
	if rolled == "" {
		t.Error("no job was rolled back")
	}
}

var errKilled = errors.New("killed (test)")

// SIGKILL between writes leaves a half-started job and a journal; the
// Lease lapses after its duration (the refusal says when). A re-apply of a
// plan that no longer names the job finishes it from the journal; then
// the whole plan again writes nothing.
func TestKilledApplyFinishedFromJournal(t *testing.T) {
	e := setupParallel(t)
	// Killed in the first job; two jobs not started yet.
	e.keepJobs("dssm-a", "inception-a", "resnet50-a")
	const dur = 2 * time.Second
	x, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseDuration = "killed", dur })
	creates := 0
	k8s.SetBeforeWrite(x, func(w string) error {
		if strings.HasPrefix(w, "create pod ") {
			if creates++; creates == 3 {
				return errKilled
			}
		}
		return nil
	})
	if _, err := e.run(x, e.plan, false); !errors.Is(err, errKilled) {
		t.Fatalf("killed apply: %v", err)
	}
	want := e.wantPods(e.plan)
	pods, svcs := e.jobsOnCluster()
	var half string
	for job, n := range pods {
		if n != want[job] {
			half = job
		}
	}
	if half == "" || pods[half] != 2 || svcs[half] == "" {
		t.Fatalf("after the kill: pods %v, services %v", pods, svcs)
	}
	t.Logf("killed with %d of %d pods of %s", pods[half], want[half], half)

	now, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.LeaseWait = -1 })
	_, err := e.run(now, e.plan, false)
	var held *kubeclient.HeldError
	if !errors.As(err, &held) || held.Holder != "killed" || time.Until(held.Expires) > dur || !strings.Contains(err.Error(), "expires at") {
		t.Errorf("at once after the kill: %v", err)
	}

	next, c := e.executor(ktest.AdminToken, nil)
	rep, err := apply.Run(context.Background(), next, without(e.plan, half), e.jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.All()
	logResults(t, rs)
	found := false
	for _, r := range rs {
		if r.Change.Job.Job != half {
			continue
		}
		if found {
			t.Errorf("two results for %s", half)
		}
		found = true
		if r.Outcome != executor.OutcomeDone || !strings.Contains(r.Message, `apply "killed" began`) {
			t.Errorf("%s: %s %s", half, r.Outcome, r.Message)
		}
	}
	if !found {
		t.Errorf("no result for %s", half)
	}
	pods, _ = e.jobsOnCluster()
	var jobs []string
	for job := range want {
		jobs = append(jobs, job)
	}
	sort.Strings(jobs)
	for _, job := range jobs {
		if pods[job] != want[job] {
			t.Errorf("job %s: %d of %d pods", job, pods[job], want[job])
		}
	}
	c.Reset()
	if _, err := e.run(next, e.plan, false); err != nil {
		t.Fatal(err)
	}
	if w := c.Writes(); len(w) > 0 {
		t.Errorf("the plan again wrote %v", w)
	}
}

// Drift that the tasks do not show is repaired: a deleted scheduler pod
// and a deleted Service are recreated, a changed image is rolled out, each
// said in the job's result; then a re-apply writes nothing. A pod that
// does not run is not reported as running as planned.
func TestDriftRepaired(t *testing.T) {
	e := setupParallel(t)
	// The three jobs with a drift each (the smallest of the testbed for the
	// image rolled out; dssm-a's worker for the failed pod).
	e.keepJobs("dssm-a", "inception-a", "vgg16-a")
	x, c := fresh(t, e)
	ctx := context.Background()
	pods := e.admin.CoreV1().Pods(e.ns)
	zero := int64(0)
	var sched string
	for name, p := range e.pods() {
		if p.Labels[k8s.LabelRole] == k8s.RoleScheduler && p.Labels[k8s.LabelJob] == "vgg16-a" {
			sched = name
		}
	}
	if sched == "" {
		t.Fatal("vgg16-a has no scheduler pod")
	}
	if err := pods.Delete(ctx, sched, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.CoreV1().Services(e.ns).Delete(ctx, "dssm-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	job := e.jobs["inception-a"]
	job.Image += "-v2"
	e.jobs["inception-a"] = job
	time.Sleep(time.Second) // the scheduler pod's deletion lands

	c.Reset()
	rep, err := apply.Run(ctx, x, e.plan, e.jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rep.All())
	got := map[string]executor.Result{}
	for _, r := range rep.All() {
		if _, dup := got[r.Change.Job.Job]; dup {
			t.Errorf("two results for %s", r.Change.Job.Job)
		}
		got[r.Change.Job.Job] = r
	}
	for job, want := range map[string]string{
		"vgg16-a":     "repaired drift: scheduler pod " + sched + " is missing",
		"dssm-a":      "repaired drift: service dssm-a is missing",
		"inception-a": "5 pods run another spec",
	} {
		r := got[job]
		if r.Outcome != executor.OutcomeDone || !strings.Contains(r.Message, want) {
			t.Errorf("%s: %s %q, want %q", job, r.Outcome, r.Message, want)
		}
	}
	if len(rep.Results) != 3 {
		t.Errorf("%d changes, want the 3 repairs: %v", len(rep.Results), outcomes(rep.Results))
	}
	now := e.pods()
	if _, ok := now[sched]; !ok {
		t.Errorf("scheduler pod %s not recreated", sched)
	}
	for _, p := range now {
		if p.Labels[k8s.LabelJob] == "inception-a" && !strings.HasSuffix(p.Spec.Containers[0].Image, "-v2") {
			t.Errorf("pod %s still runs %s", p.Name, p.Spec.Containers[0].Image)
		}
	}
	if _, err := e.admin.CoreV1().Services(e.ns).Get(ctx, "dssm-a", metav1.GetOptions{}); err != nil {
		t.Errorf("service dssm-a not recreated: %v", err)
	}

	c.Reset()
	rep, err = apply.Run(ctx, x, e.plan, e.jobs, apply.RunOptions{})
	if err != nil || len(rep.Results) != 0 || len(c.Writes()) != 0 {
		t.Fatalf("again: %v, %v, writes %v", err, outcomes(rep.Results), c.Writes())
	}

	// A pod that the kubelet reports failed is not running as planned.
	var victim string
	for name, p := range e.pods() {
		if p.Labels[k8s.LabelJob] == "dssm-a" && p.Labels[k8s.LabelRole] == executor.RoleWorker {
			victim = name
			p.Status.Phase = "Failed"
			p.Status.Reason, p.Status.Message = "OutOfnvidia.com/gpu", "Node didn't have enough resource: nvidia.com/gpu"
			if _, err := pods.UpdateStatus(ctx, &p, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	rep, err = apply.Run(ctx, x, e.plan, e.jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Skipped {
		if r.Change.Job.Job == "dssm-a" && !strings.Contains(r.Message, "do not run: "+victim+": Failed, OutOfnvidia.com/gpu") {
			t.Errorf("dssm-a: %s", r.Message)
		}
	}
}

// Job-level reasons reach the results: a create that collides with a pod
// another job made meanwhile names that pod and its job, a connection
// refused names the API server; the Services of the failed starts are
// removed.
func TestWriteFailuresSayWhy(t *testing.T) {
	e := setupParallel(t)
	// A job whose pod collides, one written whole, and the last in
	// job-name order, whose creates are refused.
	e.keepJobs("dssm-a", "inception-a", "vgg16-b")
	ctx := context.Background()
	var refuse atomic.Bool
	cfg := rest.CopyConfig(e.srv.Config(ktest.AdminToken))
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			if refuse.Load() && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/pods") {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
			}
			return rt.RoundTrip(r)
		})
	})
	x, err := k8s.New(ctx, k8s.Options{Namespace: e.ns, RESTConfig: cfg, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	k8s.SetBeforeWrite(x, func(w string) error {
		switch w {
		case "create pod dssm-a-worker-0": // someone else's pod of that name appears
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dssm-a-worker-0", Labels: map[string]string{k8s.LabelManagedBy: k8s.ManagedByValue, k8s.LabelJob: "other-job"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := e.admin.CoreV1().Pods(e.ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Error(err)
			}
		case "create pod vgg16-b-ps-0":
			refuse.Store(true)
		}
		return nil
	})
	rs, err := e.run(x, e.plan, false)
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rs)
	_, svcs := e.jobsOnCluster()
	failed := map[string]bool{}
	for _, r := range rs {
		job := r.Change.Job.Job
		var want string
		switch {
		case job == "dssm-a":
			want = `pod dssm-a-worker-0 exists and belongs to optimus job "other-job"`
		case job >= "vgg16-b":
			want = "cannot reach the API server at " + cfg.Host
		default:
			if r.Outcome != executor.OutcomeDone {
				t.Errorf("%s: %s %s", job, r.Outcome, r.Message)
			}
			continue
		}
		failed[job] = true
		if r.Outcome != executor.OutcomeFailed || !strings.Contains(r.Message, want) || !strings.Contains(r.Message, "removed service "+job+" again") {
			t.Errorf("%s: %s %q, want %q and the Service removed", job, r.Outcome, r.Message, want)
		}
		if _, ok := svcs[job]; ok {
			t.Errorf("the failed start %s left its Service", job)
		}
	}
	if len(failed) < 2 {
		t.Errorf("failed jobs %v", failed)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A start that a killed apply began and that cannot be finished is undone
// whole: its pods, the killed apply's too, and its Service.
func TestKilledStartUndoneWhenItCannotFinish(t *testing.T) {
	e := setupParallel(t)
	// Killed in the first job; one job not started yet.
	e.keepJobs("dssm-a", "inception-a")
	ctx := context.Background()
	x, _ := e.executor(ktest.AdminToken, func(o *k8s.Options) { o.Identity, o.LeaseDuration = "killed", 2*time.Second })
	creates := 0
	k8s.SetBeforeWrite(x, func(w string) error {
		if strings.HasPrefix(w, "create pod ") {
			if creates++; creates == 3 {
				return errKilled
			}
		}
		return nil
	})
	if _, err := e.run(x, e.plan, false); !errors.Is(err, errKilled) {
		t.Fatalf("killed apply: %v", err)
	}
	if pods, _ := e.jobsOnCluster(); pods["dssm-a"] != 2 {
		t.Fatalf("after the kill: %v", pods)
	}
	next, _ := e.executor(ktest.AdminToken, nil)
	k8s.SetBeforeWrite(next, func(w string) error {
		if w == "create pod dssm-a-worker-0" {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dssm-a-worker-0", Labels: map[string]string{k8s.LabelManagedBy: k8s.ManagedByValue, k8s.LabelJob: "other-job"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := e.admin.CoreV1().Pods(e.ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Error(err)
			}
		}
		return nil
	})
	rep, err := apply.Run(ctx, next, without(e.plan, "dssm-a"), e.jobs, apply.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	logResults(t, rep.All())
	for _, r := range rep.All() {
		if r.Change.Job.Job == "dssm-a" && (r.Outcome != executor.OutcomeFailed || !strings.Contains(r.Message, "undoing the start the killed apply began") ||
			!strings.Contains(r.Message, `belongs to optimus job "other-job"`) || !strings.Contains(r.Message, "removed service dssm-a again")) {
			t.Errorf("dssm-a: %s %s", r.Outcome, r.Message)
		}
	}
	pods, svcs := e.jobsOnCluster()
	if _, ok := svcs["dssm-a"]; ok || pods["dssm-a"] != 0 {
		t.Errorf("dssm-a not undone: %d pods, service %v", pods["dssm-a"], ok)
	}
}
