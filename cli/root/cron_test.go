package root

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/io/schema"
)

// cronScript returns the ```sh block of the document (a path from the
// repository's root) that holds marker, with its `cd /var/lib/optimus`
// pointed at dir: the script the document shows, run as written.
func cronScript(t *testing.T, doc, marker, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", doc))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(raw), "```sh\n")
	for _, b := range blocks[1:] {
		script, _, ok := strings.Cut(b, "\n```")
		if !ok || !strings.Contains(script, marker) {
			continue
		}
		const home = "\ncd /var/lib/optimus"
		if !strings.Contains(script, home) {
			t.Fatalf("%s: the cron script does not %q", doc, home[1:])
		}
		return strings.Replace(script, home, "\ncd "+shellQuote(dir)+" #", 1) + "\n"
	}
	t.Fatalf("%s has no sh block with %q", doc, marker)
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// bashWithOptimus runs script with bash, `optimus` on its PATH being this
// test binary (TestMain runs optimus' main under OPTIMUS_TEST_MAIN=1), and
// returns its standard error; a non-zero exit fails t.
func bashWithOptimus(t *testing.T, script string, env ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "optimus")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), append([]string{"OPTIMUS_TEST_MAIN=1", "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}, env...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the cron script: %v\n%s\nscript:\n%s", err, stderr.String(), script)
	}
	return stderr.String()
}

// The cron job of docs/apply.md, run as written on the testbed with the
// exec executor from a state where nothing runs (optimus init), twice:
// the first round starts every job and records them in the state, the
// second finds them running (the jobs' ps/workers included) and calls the
// launcher for none.
func TestDocsCronExec(t *testing.T) {
	dir := exportTestbed(t)
	calls := filepath.Join(dir, "calls.log")
	launch := "#!/usr/bin/env bash\nset -eu\ncat >/dev/null\necho \"$*\" >> " + shellQuote(calls) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "launch"), []byte(launch), 0o755); err != nil {
		t.Fatal(err)
	}
	script := cronScript(t, "docs/apply.md", "optimus snapshot state", dir)
	if code, _, stderr := run(t, nil, "init", filepath.Join(dir, "state.parquet")); code != 0 {
		t.Fatal(stderr)
	}

	if stderr := bashWithOptimus(t, script); strings.Contains(stderr, "disagree") {
		t.Errorf("round 1: %s", stderr)
	}
	first, _ := os.ReadFile(calls)
	lines := strings.Split(strings.TrimSpace(string(first)), "\n")
	starts := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "start ") {
			starts++
		}
	}
	if starts == 0 || starts != len(lines) {
		t.Fatalf("round 1 called the launcher with\n%s\nwant only starts", first)
	}
	state := taskLines(t, filepath.Join(dir, "state.parquet"))
	if want := taskLines(t, filepath.Join(dir, "plan.parquet")); strings.Join(state, "\n") != strings.Join(want, "\n") {
		t.Errorf("round 1's state\n %v\nis not its plan\n %v", state, want)
	}
	t.Logf("round 1: %d jobs started, %d tasks in the state", starts, len(state))

	if stderr := bashWithOptimus(t, script); strings.Contains(stderr, "disagree") {
		t.Errorf("round 2: %s", stderr)
	}
	if again, _ := os.ReadFile(calls); string(again) != string(first) {
		t.Errorf("round 2 called the launcher again:\n%s", strings.TrimPrefix(string(again), string(first)))
	}
	jobs := mustRead(t, filepath.Join(dir, "snap/jobs.parquet"), schema.Jobs)
	ps, ws := column(jobs, jobs.Int64s, "ps"), column(jobs, jobs.Int64s, "workers")
	plan := mustRead(t, filepath.Join(dir, "state.parquet"), schema.Plan)
	pps, pws := column(plan, plan.Int64s, "job_ps"), column(plan, plan.Int64s, "job_workers")
	for j := range pps {
		if ps[j] != pps[j] || ws[j] != pws[j] {
			t.Errorf("round 2: snap/jobs.parquet says %s runs %d ps %d workers, the state %d and %d", j, ps[j], ws[j], pps[j], pws[j])
		}
	}
	if planned := mustRead(t, filepath.Join(dir, "planned.csv"), schema.Actions); planned.NumRows() != len(pps) {
		t.Errorf("round 2's preview: %d rows for %d running jobs", planned.NumRows(), len(pps))
	} else {
		for i, o := range planned.Strings("outcome") {
			if o != "skipped" {
				t.Errorf("round 2's preview: %s %s %s, want nothing to do", planned.Strings("job")[i], planned.Strings("action")[i], o)
			}
		}
	}
}

// countingProxy serves the API server on plain loopback HTTP, counting the
// writes that pass (ktest.Counter), so that a command run as a separate
// process is counted like a client in the test.
func countingProxy(t *testing.T, srv *ktest.Server, c *ktest.Counter) string {
	t.Helper()
	cfg := c.Wrap(srv.Config(ktest.AdminToken))
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(srv.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(target)
	p.Transport = rt
	p.FlushInterval = -1
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = target.Host
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// The README's cron script, run as written with bash against a real API
// server from a cluster where nothing runs, twice in a row, every write
// its commands make counted: the first round starts both jobs (pods and
// Services created), the second finds them running as planned and makes
// no write at all.
func TestReadmeCronAgainstKubernetes(t *testing.T) {
	srv, admin, ns := ktest.Exclusive(t)
	specs := []ktest.NodeSpec{
		{Name: "gpu-1", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64, "net_gbps": 10}},
		{Name: "cpu-1", Capacity: map[string]float64{"cpu": 32, "memory_gb": 128, "net_gbps": 10}},
	}
	ktest.AddNodes(t, admin, specs)
	kl := srv.StartLogKubelet(t)
	kl.Register(t, admin, "gpu-1", "cpu-1")
	stop := ktest.Kubelet(admin)
	defer stop()
	counter := &ktest.Counter{}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: countingProxy(t, srv, counter)}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{Token: ktest.AdminToken}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy", Namespace: ns}
	cfg.CurrentContext = "proxy"
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}

	// /var/lib/optimus: the user's jobs table and the profiling runs' logs
	// (fit suggest's, at arrival), nothing else.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte(loopJobs), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "convert", "-i", filepath.Join(dir, "jobs.csv"), "-o", filepath.Join(dir, "jobs.parquet")); code != 0 {
		t.Fatal(stderr)
	}
	os.Remove(filepath.Join(dir, "jobs.csv"))
	writeProfilingRuns(t, filepath.Join(dir, "logs"), []string{"resnet-a", "resnet-b"}, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))

	script := cronScript(t, "README.md", "optimus snapshot kubernetes", dir)
	actions := func() map[string]string {
		a := mustRead(t, filepath.Join(dir, "actions.parquet"), schema.Actions)
		out := map[string]string{}
		for i, j := range a.Strings("job") {
			out[j] += a.Strings("action")[i] + " " + a.Strings("outcome")[i] + ";"
		}
		return out
	}

	bashWithOptimus(t, script, "KUBECONFIG="+kubeconfig)
	first := ktest.Summary(counter.Writes())
	t.Logf("round 1: %s; actions %v", first, actions())
	if !strings.Contains(first, "POST pods: ") || !strings.Contains(first, "POST services: 2") {
		t.Errorf("round 1 wrote %q, want the jobs' pods and Services created", first)
	}
	for _, job := range []string{"resnet-a", "resnet-b"} {
		if a := actions()[job]; !strings.HasPrefix(a, "start done;") || strings.Contains(a, "failed") {
			t.Errorf("round 1: %s: %q, want started", job, a)
		}
	}
	planned := mustRead(t, filepath.Join(dir, "planned.csv"), schema.Actions)
	if planned.NumRows() == 0 || strings.Count(strings.Join(planned.Strings("outcome"), " "), "planned") != planned.NumRows() {
		t.Errorf("round 1's preview: %v, want every task planned", planned.Strings("outcome"))
	}

	counter.Reset()
	bashWithOptimus(t, script, "KUBECONFIG="+kubeconfig)
	if w := counter.Writes(); len(w) != 0 {
		t.Errorf("round 2 wrote %d times: %s", len(w), ktest.Summary(w))
	}
	for job, a := range actions() {
		if a != "start skipped;" {
			t.Errorf("round 2: %s: %q, want nothing done", job, a)
		}
	}
	planned = mustRead(t, filepath.Join(dir, "planned.csv"), schema.Actions)
	for i, o := range planned.Strings("outcome") {
		if o != "skipped" {
			t.Errorf("round 2's preview: %s %s %s, want what apply did: nothing", planned.Strings("job")[i], planned.Strings("action")[i], o)
		}
	}
}

// writeProfilingRuns writes the profiling runs at arrival of each job, one
// configuration after another from the last checkpoint, as files
// LOGS/JOB/profiling/psP-wW/speedometer.log (the metrics loop test's).
func writeProfilingRuns(t *testing.T, logs string, jobs []string, clock time.Time) {
	t.Helper()
	for _, job := range jobs {
		at, progress := clock, int64(0)
		for _, c := range [][2]int{{1, 1}, {1, 2}, {2, 2}, {1, 3}, {2, 4}, {3, 3}} {
			lines, times := speedometer(progress, progress+200, c[0], c[1], at)
			d := filepath.Join(logs, job, "profiling", fmt.Sprintf("ps%d-w%d", c[0], c[1]))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "speedometer.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			progress += 200
			at = times[len(times)-1].Add(30 * time.Second)
		}
	}
}

// An exec apply interrupted (SIGINT, as cron's timeout or an operator
// sends) records what it did: the state holds the jobs whose launch
// succeeded before the signal, not the one interrupted nor those after, so
// the next round asks again for those only.
func TestExecStateAfterInterrupt(t *testing.T) {
	dir := plannedTestbed.Copy(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	if code, _, stderr := run(t, nil, "init", p("state.parquet")); code != 0 {
		t.Fatalf("optimus init: %s", stderr)
	}
	// The launcher hangs on resnet50-a, the fourth job by name.
	calls, hung := p("calls.log"), p("hung")
	launch := "#!/usr/bin/env bash\nset -eu\ncat >/dev/null\necho \"$1 $2\" >> " + shellQuote(calls) + "\n" +
		"if [ \"$2\" = resnet50-a ]; then touch " + shellQuote(hung) + "; sleep 60; fi\n"
	if err := os.WriteFile(p("launch"), []byte(launch), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Started with SIGINT ignored (a script's background job), apply
	// keeps it ignored, and SIGTERM interrupts it the same way.
	for _, ignored := range []bool{false, true} {
		os.Remove(hung)
		os.Remove(p("state.parquet"))
		if code, _, stderr := run(t, nil, "init", p("state.parquet")); code != 0 {
			t.Fatal(stderr)
		}
		applyInterrupted(t, self, p, hung, ignored)
	}
}

// applyInterrupted runs TestExecStateAfterInterrupt's apply, interrupts it
// on its fourth job with SIGINT (or, when SIGINT is ignored from its start,
// with SIGINT and then SIGTERM) and checks the state it records.
func applyInterrupted(t *testing.T, self string, p func(string) string, hung string, ignored bool) {
	argv := []string{self, "apply", "-i", p("plan.parquet"), "--jobs", p("jobs.parquet"), "--executor", "exec",
		"--program", p("launch"), "--state", p("state.parquet"), "-o", p("actions.parquet")}
	if ignored {
		argv = append([]string{"sh", "-c", `trap '' INT; exec "$@"`, "sh"}, argv...)
	}
	apply := exec.Command(argv[0], argv[1:]...)
	apply.Env = append(os.Environ(), "OPTIMUS_TEST_MAIN=1")
	var stderr strings.Builder
	apply.Stderr = &stderr
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	if err := ktest.Eventually(context.Background(), 30*time.Second, func() bool { _, err := os.Stat(hung); return err == nil }); err != nil {
		apply.Process.Kill()
		t.Fatalf("the launcher never reached resnet50-a: %v; %s", err, stderr.String())
	}
	start := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- apply.Wait() }()
	apply.Process.Signal(os.Interrupt)
	if ignored {
		select {
		case <-exited:
			t.Fatalf("SIGINT, ignored from the start, ended apply: %s", stderr.String())
		case <-time.After(500 * time.Millisecond):
		}
		apply.Process.Signal(syscall.SIGTERM)
	}
	err := <-exited
	t.Logf("interrupted apply (SIGINT ignored: %v): %v after %v:\n%s", ignored, err, time.Since(start).Round(time.Millisecond), stderr.String())
	if apply.ProcessState.ExitCode() != 1 {
		t.Errorf("exit %d, want 1 (changes failed)", apply.ProcessState.ExitCode())
	}
	var running []string
	taskJob := regexp.MustCompile(`^(.*)-(ps|worker)-[0-9]+@`)
	for _, l := range taskLines(t, p("state.parquet")) {
		job := taskJob.FindStringSubmatch(l)[1]
		if len(running) == 0 || running[len(running)-1] != job {
			running = append(running, job)
		}
	}
	if want := []string{"dssm-a", "inception-a", "inception-b"}; strings.Join(running, " ") != strings.Join(want, " ") {
		t.Errorf("state after the interrupt: %v, want the jobs launched before it %v", running, want)
	}
}
