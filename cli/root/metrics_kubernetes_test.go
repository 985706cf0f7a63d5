package root

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
)

// loopJobs are the jobs of the loop test: two synchronous MXNet ResNet-50
// jobs of one image, with epoch budgets (so that their remaining work is
// the budget less the progress their logs show).
const loopJobs = `job,model,mode,global_batch,epoch_steps,arrival_s,weight,epoch_budget,progress_steps,ps,workers,image,command,worker_gpu,worker_cpu,worker_memory_gb,worker_net_gbps,ps_gpu,ps_cpu,ps_memory_gb,ps_net_gbps
resnet-a,resnet-50,sync,32,1000,0,1,40,0,0,0,example.com/optimus/mxnet-train:1.9,python train_imagenet.py --network resnet --num-layers 50 --kv-store dist_sync,1,2,8,1,0,3,9,2
resnet-b,resnet-50,sync,32,1000,0,1,12,0,0,0,example.com/optimus/mxnet-train:1.9,python train_imagenet.py --network resnet --num-layers 50 --kv-store dist_sync,1,2,8,1,0,3,9,2
`

// trueSpeed is how fast the loop test's jobs train at (p, w): Optimus'
// synchronous model, which its logs follow and fit must find again.
var trueSpeed = fit.SpeedModel{Mode: fit.Sync, GlobalBatch: 32, Theta: [5]float64{0.01, 0.02, 0.03, 0.005, 0.005}}

// speedometer writes MXNet Speedometer lines (the format of the shared
// mxnet-speedometer-resnet50.log: Python logging's time, Epoch[E] Batch
// [a-b], samples/s, accuracy) for the steps from+20 to to, every 20
// batches, at the job's true speed at (p, w) from start; it returns the
// lines and the time of each.
func speedometer(from, to int64, p, w int, start time.Time) ([]string, []time.Time) {
	return speedometerEvery(from, to, p, w, start, 20)
}

// speedometerEvery is speedometer logging every `every` batches (the
// Speedometer's frequent).
func speedometerEvery(from, to int64, p, w int, start time.Time, every int64) ([]string, []time.Time) {
	f := trueSpeed.Speed(p, w)
	var lines []string
	var times []time.Time
	for s := from + every; s <= to; s += every {
		at := start.Add(time.Duration(float64(s-from) / f * float64(time.Second))).Truncate(time.Millisecond)
		epoch := (s - 1) / 1000
		batch := s - epoch*1000
		acc := 0.76 - 0.7/(1+float64(s)/4000)
		lines = append(lines, fmt.Sprintf("%s,%03d Node[0] Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec\taccuracy=%.6f",
			at.UTC().Format("2006-01-02 15:04:05"), at.Nanosecond()/1e6, epoch, batch-every, batch, f*32, acc))
		times = append(times, at)
	}
	return lines, times
}

// The scheduling loop closed on a real API server, pod logs through
// pods/log: each round runs snapshot kubernetes, metrics (the pods' logs
// and the profiling runs' log files), fit, predict, solve, place and apply
// --executor kubernetes in-process, as the README's cron job does. Between
// rounds the jobs' worker 0 logs Speedometer lines at their true speed for
// the configuration they run; resnet-b's log shows it close to its budget,
// so the next plan resizes it down and resnet-a up; a round with no new log
// line changes nothing.
func TestMetricsLoopAgainstKubernetes(t *testing.T) {
	srv, admin, ns := ktest.Exclusive(t)
	ctx := context.Background()
	var nodes []string
	var specs []ktest.NodeSpec
	for _, n := range []ktest.NodeSpec{
		{Name: "gpu-1", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64, "net_gbps": 10}},
		{Name: "cpu-1", Capacity: map[string]float64{"cpu": 32, "memory_gb": 128, "net_gbps": 10}},
	} {
		specs, nodes = append(specs, n), append(nodes, n.Name)
	}
	ktest.AddNodes(t, admin, specs)
	kl := srv.StartLogKubelet(t)
	kl.Register(t, admin, nodes...)
	stop := ktest.Kubelet(admin)
	defer stop()
	kubeconfig, err := srv.WriteKubeconfig(t.TempDir(), ktest.AdminToken, ns)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(p("jobs.csv"), []byte(loopJobs), 0o644); err != nil {
		t.Fatal(err)
	}

	// The profiling runs at arrival (fit suggest's), one configuration
	// after another from the last checkpoint, were collected as files:
	// LOGS/JOB/profiling/psP-wW/speedometer.log.
	logs := p("logs")
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	progress := map[string]int64{}
	for _, job := range []string{"resnet-a", "resnet-b"} {
		at := clock
		for _, c := range [][2]int{{1, 1}, {1, 2}, {2, 2}, {1, 3}, {2, 4}, {3, 3}} {
			lines, times := speedometer(progress[job], progress[job]+200, c[0], c[1], at)
			d := filepath.Join(logs, job, "profiling", fmt.Sprintf("ps%d-w%d", c[0], c[1]))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "speedometer.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			progress[job] += 200
			at = times[len(times)-1].Add(30 * time.Second) // the restart
		}
	}
	clock = clock.Add(time.Hour)

	step := func(args ...string) string {
		t.Helper()
		code, _, stderr := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("optimus %s: exit %d:\n%s", strings.Join(args, " "), code, stderr)
		}
		return stderr
	}
	k := []string{"--kubeconfig", kubeconfig, "--timeout", "30s"}
	// round runs one cron round into DIR/rN and returns its metrics'
	// standard error.
	round := func(n int) string {
		t.Helper()
		r := func(name string) string { return p(fmt.Sprintf("r%d/%s", n, name)) }
		step(append([]string{"snapshot", "kubernetes", "--jobs", p("jobs.csv"), "-o", r("snap")}, k...)...)
		metricsErr := step("metrics", logs, "--source", "kubernetes", "--kubernetes-kubeconfig", kubeconfig,
			"--jobs", r("snap/jobs.parquet"), "-o", r("m"))
		step("fit", "-i", r("m/loss.parquet"), "--speed", r("m/speed.parquet"), "--jobs", r("m/jobs.parquet"), "-o", r("models.parquet"))
		step("predict", "-i", r("m/jobs.parquet"), "--models", r("models.parquet"), "-o", r("predictions.parquet"))
		step("solve", "--cluster", r("snap/cluster.parquet"), "-i", r("predictions.parquet"), "-o", r("allocation.parquet"))
		step("place", "--cluster", r("snap/cluster.parquet"), "--current", r("snap/plan.parquet"), "-i", r("allocation.parquet"), "-o", r("plan.parquet"))
		step(append([]string{"apply", "-i", r("plan.parquet"), "--jobs", r("m/jobs.parquet"), "--executor", "kubernetes", "-o", r("actions.parquet")}, k...)...)
		return metricsErr
	}
	config := func(n int) map[string][2]int {
		plan := mustRead(t, p(fmt.Sprintf("r%d/plan.parquet", n)), schema.Plan)
		ps, ws := column(plan, plan.Int64s, "job_ps"), column(plan, plan.Int64s, "job_workers")
		out := map[string][2]int{}
		for j := range ps {
			out[j] = [2]int{int(ps[j]), int(ws[j])}
		}
		return out
	}
	actions := func(n int) map[string]string {
		a := mustRead(t, p(fmt.Sprintf("r%d/actions.parquet", n)), schema.Actions)
		out := map[string]string{}
		for i, j := range a.Strings("job") {
			out[j] = a.Strings("action")[i] + " " + a.Strings("outcome")[i]
		}
		return out
	}
	// grow makes every job's worker 0 log its steps up to target at the
	// configuration it runs; warmup delays every line after the first (the
	// first interval after a restart from a checkpoint is slow: the
	// restart, the warm-up). The pods log every 100 batches, not 20 as the
	// profiling runs do: the stand-in kubelet asks the API server for the
	// pod at each line (ktest.LogKubelet.Log), and a fifth of the lines
	// still give each configuration's speed over many intervals and the
	// first interval after the resize.
	grow := func(cfg map[string][2]int, target map[string]int64, warmup time.Duration) {
		t.Helper()
		for job, c := range cfg {
			to := target[job]
			lines, times := speedometerEvery(progress[job], to, c[0], c[1], clock, 100)
			for i, l := range lines {
				at := times[i]
				if i > 0 {
					at = at.Add(warmup)
				}
				kl.Log(t, ns, job+"-worker-0", "task", at, l)
			}
			progress[job] = to
		}
		clock = clock.Add(3 * time.Hour)
	}

	// Round 1: nothing runs yet; the profiling runs' speeds and progress.
	round(1)
	cfg1 := config(1)
	t.Logf("round 1: %v, actions %v", cfg1, actions(1))
	for _, job := range []string{"resnet-a", "resnet-b"} {
		if actions(1)[job] != "start "+executor.OutcomeDone {
			t.Errorf("round 1: %s: %q, want started", job, actions(1)[job])
		}
	}

	// The jobs train: resnet-a to 8,000 steps of its 40,000, resnet-b to
	// 11,400 of its 12,000.
	grow(cfg1, map[string]int64{"resnet-a": 8000, "resnet-b": 11400}, 0)
	round(2)
	var tree []string
	filepath.WalkDir(logs, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(logs, path)
			tree = append(tree, rel)
		}
		return nil
	})
	t.Logf("round 2: the logs:\n%s", strings.Join(tree, "\n"))
	t.Logf("round 2: speed.parquet:\n%s", strings.Join(speedRows(t, p("r2/m/speed.parquet")), "\n"))
	m2 := mustRead(t, p("r2/m/progress.parquet"), schema.Progress)
	if got := column(m2, m2.Int64s, "progress_steps"); got["resnet-a"] != 8000 || got["resnet-b"] != 11400 {
		t.Errorf("round 2 progress %v, want the steps logged: 8000 and 11400", got)
	}
	sp := mustRead(t, p("r2/m/speed.parquet"), schema.Speed)
	measured := 0
	for i, j := range sp.Strings("job") {
		c := [2]int{int(sp.Int64s("ps")[i]), int(sp.Int64s("workers")[i])}
		if c == cfg1[j] {
			measured++
			want := trueSpeed.Speed(c[0], c[1])
			if got := sp.Float64s("speed")[i]; math.Abs(got/want-1) > 0.002 {
				t.Errorf("round 2: %s at %v measured %.4f steps/s from its pod log, want %.4f", j, c, got, want)
			}
		}
	}
	if measured != 2 {
		t.Errorf("round 2: %d speed samples at the configurations of round 1, want one per job", measured)
	}
	cfg2 := config(2)
	t.Logf("round 2: %v, actions %v", cfg2, actions(2))
	if cfg2["resnet-b"][1] >= cfg1["resnet-b"][1] || cfg2["resnet-a"][1] <= cfg1["resnet-a"][1] {
		t.Errorf("round 2 plan %v after %v: resnet-b, near its end, should shrink and resnet-a grow", cfg2, cfg1)
	}
	for _, job := range []string{"resnet-a", "resnet-b"} {
		if actions(2)[job] != "resize "+executor.OutcomeDone {
			t.Errorf("round 2: %s: %q, want resized", job, actions(2)[job])
		}
	}
	pods, err := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: k8s.ManagedSelector})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("round 2: %d pods", len(pods.Items))

	// Round 3: no new line (the new pods have not logged yet): the same
	// plan, nothing done.
	stderr := round(3)
	if !strings.Contains(stderr, "no log yet") {
		t.Errorf("round 3 metrics: the new pods without logs are not named:\n%s", stderr)
	}
	if got, want := taskLines(t, p("r3/plan.parquet")), taskLines(t, p("r2/plan.parquet")); !reflect.DeepEqual(got, want) {
		t.Errorf("round 3 with no new log line planned\n %v\nnot round 2's\n %v", got, want)
	}
	for job, a := range actions(3) {
		if !strings.HasSuffix(a, " "+executor.OutcomeSkipped) {
			t.Errorf("round 3: %s: %q, want nothing done", job, a)
		}
	}
	if got, want := speedRows(t, p("r3/m/speed.parquet")), speedRows(t, p("r2/m/speed.parquet")); !reflect.DeepEqual(got, want) {
		t.Errorf("round 3 with no new log line measured\n %v\nnot round 2's\n %v", got, want)
	}

	// Round 4: the resized jobs log again, their first interval 90 s
	// longer (the restart after the resize); it is not measured.
	grow(cfg2, map[string]int64{"resnet-a": 12000, "resnet-b": 12000}, 90*time.Second)
	round(4)
	found := 0
	for _, r := range speedRows(t, p("r4/m/speed.parquet")) {
		var job string
		var c [2]int
		var got float64
		fmt.Sscanf(r, "%s %d %d %g", &job, &c[0], &c[1], &got)
		if c == cfg2[job] {
			found++
			if want := trueSpeed.Speed(c[0], c[1]); math.Abs(got/want-1) > 0.002 {
				t.Errorf("round 4: %s at %v measured %.4f steps/s after its restart, want %.4f (the restart left out)", job, c, got, want)
			}
		}
	}
	if found != 2 {
		t.Errorf("round 4: %d speed samples at the configurations of round 2, want one per job", found)
	}
}

// speedRows are a speed table's rows as "job ps workers speed".
func speedRows(t *testing.T, path string) []string {
	sp := mustRead(t, path, schema.Speed)
	var out []string
	for i, j := range sp.Strings("job") {
		out = append(out, fmt.Sprintf("%s %d %d %.9g", j, sp.Int64s("ps")[i], sp.Int64s("workers")[i], sp.Float64s("speed")[i]))
	}
	return out
}
