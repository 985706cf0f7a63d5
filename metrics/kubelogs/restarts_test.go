package kubelogs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/metrics"
)

// Containers restarted in their pods between two reads, through the real
// API server's pods/log (previous=true) and the stand-in kubelet's
// Restart, each job's worker 0 logging JSON lines {"step", "loss"} whose
// losses the test makes up and keeps (a step logged again after a
// checkpoint restore gets another loss):
//   - bert, restarted once: the steps its ended instance logged after the
//     last read come from the previous log, none lost; after resolution
//     each step has the loss logged last;
//   - gpt, restarted twice: a warning counts the one instance whose lines
//     after the last read are gone, the rest is kept, the run goes on;
//   - t5, never restarted: previous=true is never asked;
//   - mae, restarted before it logged anything: previous asked once;
//   - opt, whose status says restarted but whose kubelet has no previous
//     instance: the kubelet's error becomes a warning;
//   - vit, restarted with a previous log larger than limitBytes: read over
//     several runs, the current log only once the previous one is had;
//   - xlm, crashed and waiting to restart (CrashLoopBackOff) at a read:
//     the previous log is the ended instance's, and once it was read whole
//     two later restarts lose nothing and warn of nothing.
//
// Each .podlog file holds exactly the lines not lost, in order, and a read
// with nothing new asks nothing again and changes nothing.
func TestCollectAcrossRestarts(t *testing.T) {
	t.Parallel() // a namespace, node and log kubelet of its own
	srv := ktest.Shared(t)
	admin := srv.Admin()
	ctx := context.Background()
	ns := ktest.Namespace(t, admin)
	ktest.AddNodes(t, admin, []ktest.NodeSpec{{Name: "restarts-node", Capacity: map[string]float64{"gpu": 8, "cpu": 32, "memory_gb": 128}}})
	kl := srv.StartLogKubelet(t)
	kl.Register(t, admin, "restarts-node")
	jobs := []string{"bert", "gpt", "mae", "opt", "t5", "vit", "xlm"}
	for _, j := range jobs {
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, pod(ns, j, "g1", "worker", 0, "restarts-node"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// What the test logged: per job, each line as the file keeps it, its
	// step and loss, and whether it is lost (its instance's log gone).
	type entry struct {
		line, loss string
		step       int64
		lost       bool
	}
	logged := map[string][]entry{}
	clock := map[string]time.Time{}
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	for _, j := range jobs {
		clock[j] = t0
	}
	instance := map[string]int{}
	logSteps := func(job string, steps ...int64) {
		t.Helper()
		for _, s := range steps {
			clock[job] = clock[job].Add(1300 * time.Millisecond)
			loss := strconv.FormatFloat(float64(1000+instance[job])/float64(s+7), 'f', 6, 64)
			text := fmt.Sprintf(`{"step": %d, "loss": %s}`, s, loss)
			kl.Log(t, ns, job+"-worker-0", "task", clock[job], text)
			logged[job] = append(logged[job], entry{line: clock[job].Format(time.RFC3339Nano) + " " + text, loss: loss, step: s})
		}
	}
	restart := func(job string) {
		t.Helper()
		clock[job] = clock[job].Add(2 * time.Second)
		kl.Restart(t, ns, job+"-worker-0", "task", clock[job])
		instance[job]++
	}
	crash := func(job string) {
		t.Helper()
		clock[job] = clock[job].Add(2 * time.Second)
		kl.Crash(t, ns, job+"-worker-0", "task", clock[job])
	}
	lastKept := func(job string) string { // the time of the last line of the file
		e := logged[job]
		return strings.SplitN(e[len(e)-1].line, " ", 2)[0]
	}
	c := &Collector{Conn: kubeclient.Options{RESTConfig: srv.Config(ktest.AdminToken), Namespace: ns}, Roles: map[string]bool{"worker": true}, Index: 0,
		LimitBytes: 64 << 20, Timeout: time.Minute}
	root := t.TempDir()
	file := func(job string) string {
		return filepath.Join(root, job, "gen-g1", "w1", job+"-worker-0.task"+metrics.PodLogSuffix)
	}
	previousAsked := func(job string) int {
		n := 0
		for _, r := range kl.Requests() {
			if strings.HasPrefix(r, "/containerLogs/"+ns+"/"+job+"-worker-0/task?") && strings.Contains(r, "previous=true") {
				n++
			}
		}
		return n
	}
	// check compares each job's file with the lines not lost, and the
	// losses the metrics readers resolve (the later of a step logged
	// twice) with the ones the test logged last for each step.
	check := func(when string) {
		t.Helper()
		readers, err := metrics.NewReaders([]string{"kubernetes"}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		found, err := metrics.Discover(root, readers, func(p, why string) { t.Errorf("%s: skipped %s: %s", when, p, why) })
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, jl := range found {
			jr, err := metrics.ReadJob(jl, readers, func(e *metrics.Error) { t.Errorf("%s: %v", when, e) })
			if err != nil {
				t.Fatal(err)
			}
			if err := jr.Resolve(0); err != nil {
				t.Fatal(err)
			}
			res, err := metrics.Reduce(jr, metrics.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, p := range res.Loss.Points() {
				fmt.Fprintf(&b, "%d:%s ", p.Step, strconv.FormatFloat(p.Value, 'f', 6, 64))
			}
			got[jl.Job] = b.String()
		}
		for _, j := range jobs {
			var lines strings.Builder
			last := map[int64]string{}
			for _, e := range logged[j] {
				if !e.lost {
					lines.WriteString(e.line + "\n")
					last[e.step] = e.loss
				}
			}
			if lines.Len() == 0 {
				continue
			}
			b, err := os.ReadFile(file(j))
			if err != nil || string(b) != lines.String() {
				t.Errorf("%s: %s's file (%v):\n%s\nwant\n%s", when, j, err, b, lines.String())
			}
			steps := make([]int64, 0, len(last))
			for s := range last {
				steps = append(steps, s)
			}
			sort.Slice(steps, func(a, b int) bool { return steps[a] < steps[b] })
			var want strings.Builder
			for _, s := range steps {
				fmt.Fprintf(&want, "%d:%s ", s, last[s])
			}
			if got[j] != want.String() {
				t.Errorf("%s: %s's losses\n got %s\nwant %s", when, j, got[j], want.String())
			}
		}
	}

	// Read 1.
	restart("mae") // before it logged anything
	logSteps("bert", 10, 20, 30, 40, 50)
	logSteps("gpt", 10, 20, 30)
	logSteps("t5", 10, 20)
	logSteps("opt", 10, 20)
	logSteps("vit", 10, 20)
	logSteps("xlm", 10, 20)
	warns := collect(t, c, root)
	if want := "pod " + ns + "/mae-worker-0 container task: no log lines yet"; len(warns) != 1 || warns[0] != want {
		t.Errorf("first read: warnings %q, want %q", warns, want)
	}
	check("first read")

	// Between the reads. bert: two steps, a crash, the restart from the
	// checkpoint at step 50 logs 60 and 70 again. gpt: two steps, a crash,
	// the restart from the checkpoint at 50 logs 60 and 70, a crash, the
	// restart from 70 logs 80; what the first instance logged since the
	// read (40, 50) is gone with its log.
	logSteps("bert", 60, 70)
	restart("bert")
	logSteps("bert", 60, 70, 80)
	gptLast := lastKept("gpt")
	logSteps("gpt", 40, 50)
	for i := range logged["gpt"][3:] {
		logged["gpt"][3+i].lost = true
	}
	restart("gpt")
	logSteps("gpt", 60, 70)
	restart("gpt")
	logSteps("gpt", 80)
	logSteps("t5", 30)
	logSteps("mae", 10, 20)
	// opt: restarted by the status, but the kubelet kept no instance
	// before the running one (its container removed): what it logged
	// after the read is lost, and its current log goes on.
	optLast := lastKept("opt")
	p, err := admin.CoreV1().Pods(ns).Get(ctx, "opt-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "task", Image: "example.com/train", RestartCount: 1, ContainerID: "containerd://opt-1",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(clock["opt"])}}}}
	if _, err := admin.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	logSteps("opt", 30)
	// xlm: a step, a crash, the restart from 20 logs 30 again and 40, and
	// crashes: the kubelet waits to restart it. The first instance's 30 is
	// gone.
	xlmLast := lastKept("xlm")
	logSteps("xlm", 30)
	logged["xlm"][2].lost = true
	restart("xlm")
	logSteps("xlm", 30, 40)
	crash("xlm")

	// Read 2.
	warns = collect(t, c, root)
	wantWarns := []string{
		"pod " + ns + "/gpt-worker-0 container task: restarted 2 times since the last read (restartCount 2, was 0): the kubelet keeps the log of the last ended instance only, so what 1 earlier instance logged after " + gptLast + " is lost",
		"pod " + ns + "/opt-worker-0 container task: the previous instance's log is gone (previous terminated container \"task\" in pod \"opt-worker-0\" not found): what it logged after " + optLast + " is lost",
		"pod " + ns + "/xlm-worker-0 container task: restarted 1 time since the last read (restartCount 1, was 0): the kubelet keeps the log of the last ended instance only, so what 1 earlier instance logged after " + xlmLast + " is lost",
	}
	if strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") {
		t.Errorf("second read: warnings\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(wantWarns, "\n"))
	}
	check("second read")
	for j, n := range map[string]int{"bert": 1, "gpt": 1, "mae": 1, "opt": 1, "t5": 0, "vit": 0, "xlm": 1} {
		if got := previousAsked(j); got != n {
			t.Errorf("second read: %s's previous log asked %d times, want %d", j, got, n)
		}
	}
	var bertPrev string
	for _, r := range kl.Requests() {
		if strings.Contains(r, "/bert-worker-0/task?") && strings.Contains(r, "previous=true") {
			bertPrev = r
		}
	}
	if !strings.Contains(bertPrev, "sinceTime=2026-12-02T08%3A00%3A06Z") {
		t.Errorf("bert's previous log was asked as %q: want from the second of its last line kept (08:00:06.5)", bertPrev)
	}
	bertPod, err := admin.CoreV1().Pods(ns).Get(ctx, "bert-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	restartsFile := func(job string) string {
		b, err := os.ReadFile(filepath.Join(root, job, "gen-g1", "w1", "."+job+"-worker-0.task.restarts"))
		if err != nil {
			t.Errorf("%s's restarts file: %v", job, err)
		}
		return string(b)
	}
	if got := restartsFile("bert"); got != string(bertPod.UID)+" 1 running\n" {
		t.Errorf("bert's restarts file: %q", got)
	}
	if got := restartsFile("xlm"); !strings.HasSuffix(got, " 1 ended\n") {
		t.Errorf("xlm's restarts file: %q, want restart count 1, read whole", got)
	}

	// vit: six steps, a crash, the restart from 80 logs 90 and 100; read
	// 200 bytes (three lines and a half, the first the last one kept) a
	// run: the previous log takes several runs, and the current one is
	// not asked until the previous one came whole.
	logSteps("vit", 30, 40, 50, 60, 70, 80)
	restart("vit")
	logSteps("vit", 90, 100)
	before := len(kl.Requests())
	small := *c
	small.LimitBytes = 200
	for range 6 {
		collect(t, &small, root)
	}
	check("vit, 200 bytes a run")
	var order string
	for _, r := range kl.Requests()[before:] {
		if strings.HasPrefix(r, "/containerLogs/"+ns+"/vit-worker-0/task?") {
			order += map[bool]string{true: "P", false: "C"}[strings.Contains(r, "previous=true")]
		}
	}
	// One request a run, two in the run where the previous log ends.
	if rest := strings.TrimLeft(order, "P"); len(order)-len(rest) < 2 || strings.Trim(rest, "C") != "" || len(order) != 7 {
		t.Errorf("vit's requests in six runs of 200 bytes: %s (P previous, C current), want PP..., then C only, seven in all", order)
	}

	// xlm restarted (the ended instance already read whole: previous not
	// asked), crashed again and read while waiting, then restarted twice:
	// the instance before the last ended one was read whole, so nothing is
	// lost and nothing warned.
	restart("xlm")
	logSteps("xlm", 50, 60)
	if warns := collect(t, c, root); len(warns) != 0 {
		t.Errorf("xlm restarted: warnings %q", warns)
	}
	if n := previousAsked("xlm"); n != 1 {
		t.Errorf("xlm restarted after its crashed instance was read whole: previous asked %d times in all, want 1", n)
	}
	crash("xlm")
	if warns := collect(t, c, root); len(warns) != 0 {
		t.Errorf("xlm crashed again: warnings %q", warns)
	}
	if got := restartsFile("xlm"); !strings.HasSuffix(got, " 2 ended\n") {
		t.Errorf("xlm's restarts file after a read while it waited: %q, want restart count 2, read whole", got)
	}
	restart("xlm")
	logSteps("xlm", 70)
	restart("xlm")
	logSteps("xlm", 80)
	if warns := collect(t, c, root); len(warns) != 0 {
		t.Errorf("xlm restarted twice after a read while it waited: warnings %q, want none (nothing lost)", warns)
	}
	if n := previousAsked("xlm"); n != 2 {
		t.Errorf("xlm: previous asked %d times in all, want 2", n)
	}
	check("xlm restarted twice")

	// Nothing new: nothing asked again, no file changed.
	asked := map[string]int{}
	for _, j := range jobs {
		asked[j] = previousAsked(j)
	}
	if warns := collect(t, c, root); len(warns) != 0 {
		t.Errorf("a read with nothing new warned %q", warns)
	}
	check("a read with nothing new")
	for _, j := range jobs {
		if got := previousAsked(j); got != asked[j] {
			t.Errorf("a read with nothing new asked %s's previous log again", j)
		}
	}
}
