package metrics

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func allReaders(t testing.TB) []Reader {
	t.Helper()
	rs, err := NewReaders(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// link puts a shared file under a job's tree.
func link(t testing.TB, root, rel, shared string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, p); err != nil {
		t.Fatal(err)
	}
}

func readReduce(t testing.TB, root string, epochSteps int64, o Options) map[string]*Result {
	t.Helper()
	rs := allReaders(t)
	jobs, err := Discover(root, rs, func(p, why string) { t.Errorf("skipped %s: %s", p, why) })
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Result{}
	for _, jl := range jobs {
		jr, err := ReadJob(jl, rs, func(e *Error) { t.Errorf("warning %v", e) })
		if err != nil {
			t.Fatal(err)
		}
		if err := jr.Resolve(epochSteps); err != nil {
			t.Fatal(err)
		}
		if out[jl.Job], err = Reduce(jr, o); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Speed measured from the logs' steps and times against what the writers
// measured themselves: TensorFlow's StepCounterHook (global_step/sec) and
// MXNet's Speedometer (samples/sec over the log's global_batch_size of
// 1664).
func TestSpeedAgainstTheWritersOwn(t *testing.T) {
	root := t.TempDir()
	est := sharedFile(t, "events/tensorboard-estimator-train.tfevents")
	mx := sharedFile(t, "logs/mxnet-speedometer-resnet50.log")
	link(t, root, "est/ps1-w2/events.out.tfevents.1476472047.localhost", est)
	link(t, root, "mx/gen0-w8/train.log", mx)
	res := readReduce(t, root, 770, Options{})

	e := res["est"]
	if len(e.Speed) != 1 || e.Speed[0].Configuration != (Configuration{PS: 1, Workers: 2}) {
		t.Fatalf("estimator speed %+v", e.Speed)
	}
	// The hook's harmonic mean over the same steps: total steps / total
	// time of its intervals (100 steps each).
	sec := readWith(t, eventReader{}, est).points["global_step/sec"]
	var steps, secs float64
	for _, p := range sec[1:] { // the first interval holds the start
		steps, secs = steps+100, secs+100/p.Value
	}
	if hook := steps / secs; !near(e.Speed[0].Speed, hook, 0.15) {
		t.Errorf("estimator speed %.1f steps/s, the hook's %.1f", e.Speed[0].Speed, hook)
	}
	if e.Progress != 2901 || e.Metric != "loss" || e.HigherIsBetter || e.Loss.Len() != 30 {
		t.Errorf("estimator: progress %d, metric %q (higher %v), %d points", e.Progress, e.Metric, e.HigherIsBetter, e.Loss.Len())
	}

	m := res["mx"]
	if len(m.Speed) != 1 || m.Speed[0].Configuration != (Configuration{Workers: 8}) {
		t.Fatalf("mxnet speed %+v", m.Speed)
	}
	f, _ := os.ReadFile(mx)
	var sum float64
	n := 0
	for _, line := range strings.Split(string(f), "\n") {
		if _, rest, ok := strings.Cut(line, "Speed: "); ok {
			v, _, _ := strings.Cut(rest, " ")
			sum += mustFloat(t, v)
			n++
		}
	}
	if own := sum / float64(n) / 1664; !near(m.Speed[0].Speed, own, 0.03) {
		t.Errorf("mxnet speed %.3f steps/s, Speedometer's %.3f", m.Speed[0].Speed, own)
	}
	if m.Metric != "eval_accuracy" || !m.HigherIsBetter || m.Progress != 60*770 || m.Loss.Len() != 15 || m.Loss.At(0).Step != 4*770 {
		t.Errorf("mxnet: metric %q (higher %v), progress %d, points %+v", m.Metric, m.HigherIsBetter, m.Progress, m.Loss.Points())
	}
}

func mustFloat(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A job restarted from a checkpoint: its second event file repeats steps
// 300 to 400 with other values. The later points win for the loss; speed
// is measured per run, each at its own configuration, the restart interval
// left out.
func TestRestartFromCheckpoint(t *testing.T) {
	root := t.TempDir()
	run := func(t0 float64, from, to int64, speed float64, loss float64) []byte {
		b := fileVersion(nil, "brain.Event:2")
		for s := from; s <= to; s += 50 {
			b = appendEvent(b, t0+float64(s-from)/speed, s, simpleValue("loss", float32(loss)))
		}
		return b
	}
	// 10 steps/s with 1 PS and 2 workers until step 400, then resized
	// (restarted from the checkpoint at step 300) to 2 PS and 4 workers at
	// 25 steps/s; the first point after the restart came 60 s late.
	writeFile(t, root, "job-a/gen0-ps1-w2/events.out.tfevents.1700000000.host", run(1.7e9, 0, 400, 10, 1))
	late := run(1.7e9+100, 300, 1000, 25, 0.5)
	writeFile(t, root, "job-a/gen1-ps2-w4/events.out.tfevents.1700000100.host", late)
	res := readReduce(t, root, 0, Options{})["job-a"]
	if res.Progress != 1000 || res.Restarts != 1 || res.Superseded != 3 {
		t.Errorf("progress %d, restarts %d, superseded %d", res.Progress, res.Restarts, res.Superseded)
	}
	var steps []int64
	for _, p := range res.Loss.Points() {
		steps = append(steps, p.Step)
		if want := map[bool]float64{true: 1, false: 0.5}[p.Step < 300]; p.Value != want {
			t.Errorf("step %d: value %v, want %v", p.Step, p.Value, want)
		}
	}
	if len(steps) != 21 || steps[0] != 0 || steps[20] != 1000 {
		t.Errorf("steps %v", steps)
	}
	want := []SpeedSample{{Configuration{1, 2}, 10, 50, 400}, {Configuration{2, 4}, 25, 350, 1000}}
	if !speedsNear(res.Speed, want) {
		t.Errorf("speed %+v, want %+v", res.Speed, want)
	}

	// The same from a config_changes history instead of directory names:
	// the job ran with 1 PS and 2 workers from 1.7e9, 2 and 4 from
	// 1.7e9+90; with a restart skip of 30 s, the points of the first 30 s
	// after each change are not measured.
	root2 := t.TempDir()
	writeFile(t, root2, "job-a/events.out.tfevents.1700000000.host", run(1.7e9, 0, 400, 10, 1))
	writeFile(t, root2, "job-a/events.out.tfevents.1700000100.host", late)
	res = readReduce(t, root2, 0, Options{RestartSkip: 30, Changes: []ConfigChange{{1.7e9, Configuration{1, 2}}, {1.7e9 + 90, Configuration{2, 4}}}})["job-a"]
	want = []SpeedSample{{Configuration{1, 2}, 10, 300, 400}, {Configuration{2, 4}, 25, 800, 1000}}
	if !speedsNear(res.Speed, want) {
		t.Errorf("speed with changes %+v, want %+v", res.Speed, want)
	}
}

func speedsNear(got, want []SpeedSample) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Configuration != want[i].Configuration || got[i].From != want[i].From || got[i].To != want[i].To || !near(got[i].Speed, want[i].Speed, 1e-6) {
			return false
		}
	}
	return true
}

func TestLatest(t *testing.T) {
	pts := func(steps ...int64) []Sample {
		var s []Sample
		for i, st := range steps {
			s = append(s, Sample{Point: Point{Step: st, Wall: float64(i), Value: float64(i)}})
		}
		return s
	}
	for _, c := range []struct {
		in            []int64
		want          []int64
		sup, restarts int
	}{
		{[]int64{1, 2, 3}, []int64{1, 2, 3}, 0, 0},
		{[]int64{1, 2, 2, 3}, []int64{1, 2, 3}, 1, 0},             // logged twice: the later
		{[]int64{1, 2, 3, 4, 2, 3, 5}, []int64{1, 2, 3, 5}, 3, 1}, // a restart from step 2
		{[]int64{5, 1}, []int64{1}, 1, 1},
	} {
		got, sup, rs := Latest(pts(c.in...))
		var steps []int64
		for _, g := range got {
			steps = append(steps, g.Step)
		}
		if !reflect.DeepEqual(steps, c.want) || sup != c.sup || rs != c.restarts {
			t.Errorf("Latest(%v) = %v, %d superseded, %d restarts; want %v, %d, %d", c.in, steps, sup, rs, c.want, c.sup, c.restarts)
		}
	}
	// Several files of one run interleave by wall time.
	a := []Sample{{Point: Point{Step: 1, Wall: 10}}, {Point: Point{Step: 3, Wall: 30}}, {Point: Point{Step: 2, Wall: 20}}}
	if got, sup, _ := Latest(a); len(got) != 3 || sup != 0 || got[1].Step != 2 {
		t.Errorf("by wall time: %+v", got)
	}
}

func TestConfigFromPath(t *testing.T) {
	for path, want := range map[string]*Configuration{
		"ps2-w4/events.out.tfevents.1":         {2, 4},
		"gen3-ps2-w4/train/events":             {2, 4},
		"p1w8/x.log":                           {1, 8},
		"ps2_workers16/a/b.log":                {2, 16},
		"w8/metrics.jsonl":                     {0, 8},
		"workers4-gen2/log.txt":                {0, 4},
		"version_0/events.out.tfevents.1":      nil,
		"ps2-w4/w8/x.log":                      {0, 8}, // the deepest wins
		"events.out.tfevents.1.ps2-w4":         nil,    // the file's own name is not a run directory
		"new-w0/x.log":                         nil,
		"lightning_logs/version_3/metrics.csv": nil,
	} {
		got := ConfigFromPath(strings.Split(path, "/"))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ConfigFromPath(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"job-b/train/events.out.tfevents.2", "job-b/validation/events.out.tfevents.2", "job-b/ckpt/model.ckpt",
		"job-a/logs/train.log.1", "job-a/logs/train.log", "job-a/logs/train.log.2", "job-c.log", ".hidden/x.log", "job-d/.git/x.log",
		"bad\x01name/x.log"} {
		writeFile(t, root, p, nil)
	}
	var skipped []string
	jobs, err := Discover(root, allReaders(t), func(p, why string) { skipped = append(skipped, filepath.Base(p)+": "+why) })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, j := range jobs {
		for _, f := range j.Files {
			rel, _ := filepath.Rel(filepath.Join(root, j.Job), f.Path)
			got[j.Job] = append(got[j.Job], f.Prefix+"|"+rel)
		}
	}
	want := map[string][]string{
		"job-a": {"|logs/train.log.2", "|logs/train.log.1", "|logs/train.log"},
		"job-b": {"train/|train/events.out.tfevents.2", "validation/|validation/events.out.tfevents.2"},
		"job-c": {"|../job-c.log"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs %v, want %v", got, want)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "control characters") {
		t.Errorf("skipped %v", skipped)
	}
	if _, err := Discover(filepath.Join(root, "job-c.log"), allReaders(t), nil); err == nil {
		t.Error("a file as the root is not an error")
	}
}

func TestResolveNeedsEpochSteps(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "k/training.csv", []byte("epoch,loss\n0,0.5\n1,0.4\n"))
	rs := allReaders(t)
	jobs, _ := Discover(root, rs, nil)
	jr, err := ReadJob(jobs[0], rs, func(*Error) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := jr.Resolve(0); err == nil || !strings.Contains(err.Error(), "training.csv") || !strings.Contains(err.Error(), "epoch_steps") {
		t.Errorf("error %v", err)
	}
	if err := jr.Resolve(100); err != nil {
		t.Fatal(err)
	}
	if s := jr.Series[0].Points(); s[0].Step != 100 || s[1].Step != 200 {
		t.Errorf("steps %+v", s)
	}
	if !math.IsNaN(jr.Series[0].Points()[0].Wall) {
		t.Error("a CSV without time has a time")
	}
}
