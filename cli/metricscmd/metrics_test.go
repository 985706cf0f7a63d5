package metricscmd_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/metricscmd"
	"github.com/optimus-sched/optimus/cli/root"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// sharedDir is shared/data/tfevents next to the repository, or the test
// is skipped.
func sharedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("OPTIMUS_SHARED_DATA"); d != "" {
		return filepath.Join(d, "tfevents")
	}
	for dir, _ := filepath.Abs("."); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if p := filepath.Join(dir, "shared", "data", "tfevents"); exists(p) {
			return p
		}
	}
	t.Skip("shared/data/tfevents absent")
	return ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func put(t *testing.T, root, rel, src string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// logsTree lays the shared files out as a cluster's log directory: one
// directory per job, runs named for their configuration.
func logsTree(t *testing.T) (string, string) {
	sh := sharedDir(t)
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	put(t, logs, "estimator/gen0-ps1-w2/events.out.tfevents.1476472047.localhost", filepath.Join(sh, "events/tensorboard-estimator-train.tfevents"))
	put(t, logs, "katib/train/events.out.tfevents.1637681485.2d662933d616.19.0.v2", filepath.Join(sh, "events/katib-tf2-train.tfevents"))
	put(t, logs, "lightning/version_0/events.out.tfevents.1697013884.b422b77d2f01.7345.0", filepath.Join(sh, "events/lightning-cifar10-30epochs.tfevents"))
	put(t, logs, "keras/events.out.tfevents.1585769947.cvp", filepath.Join(sh, "events/keras-tf1-callback.tfevents"))
	put(t, logs, "resnet/w8/result_0.txt", filepath.Join(sh, "logs/mxnet-speedometer-resnet50.log"))
	put(t, logs, "lightning-csv/lightning_logs/version_0/metrics.csv", filepath.Join(sh, "logs/lightning-csvlogger-metrics.csv"))
	jobs := filepath.Join(dir, "jobs.csv")
	// Running now: estimator with 1 PS and 2 workers, lightning with 1
	// and 4 (its log's run directory names no configuration).
	if err := os.WriteFile(jobs, []byte("job,model,mode,global_batch,epoch_steps,progress_steps,ps,workers\n"+
		"estimator,logreg,sync,100,1000,0,1,2\nkatib,mnist,sync,100,600,0,0,0\nlightning,resnet-18,sync,256,196,0,1,4\n"+
		"keras,cnn,sync,32,1,0,0,0\nresnet,resnet-50,allreduce,1664,770,0,0,8\nlightning-csv,resnet-18,sync,256,196,0,0,0\n"+
		"waiting,vgg-16,sync,64,100,7,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return logs, jobs
}

func read(t *testing.T, path string, want *schema.Table) *table.Table {
	t.Helper()
	tb, err := table.ReadFile(path, want)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// The shared logs read into tables that fit and predict accept, with the
// points the sources' own numbers say.
func TestRealLogsIntoFitAndPredict(t *testing.T) {
	logs, jobs := logsTree(t)
	out := filepath.Join(t.TempDir(), "m")
	code, _, stderr := root.Run(nil, "metrics", logs, "--jobs", jobs, "-o", out)
	if code != 0 {
		t.Fatalf("metrics: exit %d: %s", code, stderr)
	}
	loss := read(t, filepath.Join(out, "loss.parquet"), schema.Loss)
	byJob := map[string][][2]float64{}
	for i, j := range loss.Strings("job") {
		byJob[j] = append(byJob[j], [2]float64{float64(loss.Int64s("step")[i]), loss.Float64s("value")[i]})
	}
	for _, c := range []struct {
		job                 string
		n                   int
		firstStep, lastStep float64
		first, last         float64
	}{
		{"estimator", 30, 1, 2901, 0.693, 0.00059},               // loss
		{"katib", 10, 0, 9, 0.205, 0.036},                        // train/loss
		{"lightning", 30, 195, 5879, 1.62, 0.051},                // train_loss_epoch
		{"keras", 17, 0, 16, 3.91, 2.93e-5},                      // epoch_loss
		{"resnet", 15, 4 * 770, 60 * 770, 0.36176, 0},            // MLPerf eval_accuracy
		{"lightning-csv", 30, 195, 5879, 0, 0.05159620940685272}, // train_loss_epoch
	} {
		pts := byJob[c.job]
		if len(pts) != c.n {
			t.Errorf("%s: %d points, want %d", c.job, len(pts), c.n)
			continue
		}
		f, l := pts[0], pts[len(pts)-1]
		if f[0] != c.firstStep || l[0] != c.lastStep || c.first != 0 && math.Abs(f[1]-c.first) > 0.01*c.first || c.last != 0 && math.Abs(l[1]-c.last) > 0.01*c.last {
			t.Errorf("%s: steps %v..%v values %v..%v, want %v..%v, about %v..%v", c.job, f[0], l[0], f[1], l[1], c.firstStep, c.lastStep, c.first, c.last)
		}
	}
	prog := read(t, filepath.Join(out, "progress.parquet"), schema.Progress)
	got := map[string]string{}
	for i, j := range prog.Strings("job") {
		got[j] = prog.Strings("metric")[i]
	}
	want := map[string]string{"estimator": "loss", "katib": "train/loss", "lightning": "train_loss_epoch", "keras": "epoch_loss",
		"resnet": "eval_accuracy", "lightning-csv": "train_loss_epoch"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metrics %v, want %v", got, want)
	}
	speed := read(t, filepath.Join(out, "speed.parquet"), schema.Speed)
	sp := map[string]float64{}
	for i, j := range speed.Strings("job") {
		sp[j] = speed.Float64s("speed")[i]
		if j == "resnet" && (speed.Int64s("ps")[i] != 0 || speed.Int64s("workers")[i] != 8) {
			t.Errorf("resnet measured at ps %d workers %d, its run directory says w8", speed.Int64s("ps")[i], speed.Int64s("workers")[i])
		}
	}
	// Estimator: TF's own global_step/sec is 80 to 196 steps/s; ResNet-50:
	// Speedometer's 11,100 samples/s over 1,664 a step. lightning's run is
	// attributed to the jobs table's current configuration.
	if s := sp["estimator"]; s < 90 || s > 130 {
		t.Errorf("estimator speed %v", s)
	}
	if s := sp["resnet"]; s < 6.5 || s > 6.9 {
		t.Errorf("resnet speed %v", s)
	}
	if _, ok := sp["lightning"]; !ok || len(sp) != 3 {
		t.Errorf("speed rows %v: want estimator, resnet and lightning (the others name no configuration)", sp)
	}
	jt := read(t, filepath.Join(out, "jobs.parquet"), schema.Jobs)
	for i, j := range jt.Strings("job") {
		want := map[string]int64{"estimator": 2901, "katib": 9, "lightning": 5879, "keras": 16, "resnet": 46200, "lightning-csv": 5879, "waiting": 7}[j]
		if p := jt.Int64s("progress_steps")[i]; p != want {
			t.Errorf("%s: progress_steps %d, want %d", j, p, want)
		}
	}

	models := filepath.Join(t.TempDir(), "models.parquet")
	code, _, stderr = root.Run(nil, "fit", "-i", filepath.Join(out, "loss.parquet"), "--speed", filepath.Join(out, "speed.parquet"),
		"--jobs", filepath.Join(out, "jobs.parquet"), "-o", models)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if m := read(t, models, schema.Models); m.NumRows() != 7 {
		t.Errorf("fit: %d models, want 7", m.NumRows())
	}
	code, _, stderr = root.Run(nil, "predict", "-i", filepath.Join(out, "jobs.parquet"), "--models", models, "-o", filepath.Join(out, "predictions.parquet"))
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
}

// Cron-grade: the same logs give the same bytes; a log a writer appends to
// meanwhile is read up to its last whole record.
func TestSameLogsSameTables(t *testing.T) {
	logs, jobs := logsTree(t)
	var outs [2]map[string][]byte
	for k := range outs {
		out := filepath.Join(t.TempDir(), "m")
		if code, _, stderr := root.Run(nil, "metrics", logs, "--jobs", jobs, "-o", out, "--format", "csv"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs[k] = map[string][]byte{}
		for _, n := range []string{"loss", "speed", "progress", "jobs"} {
			b, err := os.ReadFile(filepath.Join(out, n+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			outs[k][n] = b
		}
	}
	for n, b := range outs[0] {
		if !bytes.Equal(b, outs[1][n]) {
			t.Errorf("%s differs between two runs on the same logs", n)
		}
	}
	// Half a record appended, as by a writer caught mid-write: the same
	// rows.
	f, err := os.OpenFile(filepath.Join(logs, "keras/events.out.tfevents.1585769947.cvp"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{40, 0, 0, 0, 0, 0, 0, 0})
	f.Close()
	out := filepath.Join(t.TempDir(), "m")
	if code, _, stderr := root.Run(nil, "metrics", logs, "--jobs", jobs, "-o", out, "--format", "csv"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "loss.csv")); !bytes.Equal(b, outs[0]["loss"]) {
		t.Error("a half-written last record changed the loss table")
	}
}

// Unusable input: exit 2, a message naming the file and where, nothing
// written.
func TestUnusableInput(t *testing.T) {
	sh := sharedDir(t)
	corrupt := func(t *testing.T) string {
		logs := filepath.Join(t.TempDir(), "logs")
		put(t, logs, "a/events.out.tfevents.1", filepath.Join(sh, "events/katib-tf2-train.tfevents"))
		p := filepath.Join(logs, "a/events.out.tfevents.1")
		b, _ := os.ReadFile(p)
		b[200] ^= 0xff // inside a record's length or data
		os.WriteFile(p, b, 0o644)
		return logs
	}
	notEvents := func(t *testing.T) string {
		logs := filepath.Join(t.TempDir(), "logs")
		os.MkdirAll(filepath.Join(logs, "a"), 0o755)
		os.WriteFile(filepath.Join(logs, "a/events.out.tfevents.1"), []byte("this is a text file, not records\n"), 0o644)
		return logs
	}
	epochs := func(t *testing.T) string {
		logs := filepath.Join(t.TempDir(), "logs")
		os.MkdirAll(filepath.Join(logs, "k"), 0o755)
		os.WriteFile(filepath.Join(logs, "k/training.csv"), []byte("epoch,loss\n0,0.5\n"), 0o644)
		return logs
	}
	for _, c := range []struct {
		name string
		logs func(*testing.T) string
		args []string
		msg  string
	}{
		{"not an event file", notEvents, nil, "a/events.out.tfevents.1: record at offset 0: not an event file"},
		{"regex without a step", epochs, []string{"--regex-pattern", `loss (?P<value>\S+)`}, "no group named step or epoch"},
		{"regex that does not compile", epochs, []string{"--regex-pattern", `(?P<step>\d+`}, "--regex-pattern"},
		{"epochs without epoch_steps", epochs, nil, `k/training.csv: job "k" logs "loss" by epoch`},
		{"unknown source", epochs, []string{"--source", "tfevents,nope"}, `no source "nope"`},
		{"no job read at a time", epochs, []string{"--parallel", "0"}, "--parallel 0: read at least 1 job at a time"},
		{"metric-of without a tag", epochs, []string{"--metric-of", "k"}, "--metric-of"},
		{"a metric the job does not log", epochs, []string{"--metric", "bleu", "--epoch-steps", "10"}, `job "k" logs no metric "bleu"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m")
			code, _, stderr := root.Run(nil, append([]string{"metrics", c.logs(t), "-o", out}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.msg)
			}
			if exists(out) {
				if ents, _ := os.ReadDir(out); len(ents) > 0 {
					t.Errorf("wrote %v", ents)
				}
			}
		})
	}
	// A corrupted record whose framing survives is skipped and counted;
	// one that breaks the framing is an error naming its offset.
	out := filepath.Join(t.TempDir(), "m")
	code, _, stderr := root.Run(nil, "metrics", corrupt(t), "-o", out)
	if code == 0 && !strings.Contains(stderr, "record skipped") || code == 2 && !strings.Contains(stderr, "offset") || code == 1 {
		t.Errorf("corrupted record: exit %d, %s", code, stderr)
	}
}

// The per-source flags come from the registry.
func TestSourceFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *metricscmd.Options
	cmd := metricscmd.NewCmd(ios, func(o *metricscmd.Options) error { got = o; return nil })
	cmd.SetArgs([]string{"logs", "-o", "m", "--regex-pattern", `s(?P<step>\d+) (?P<value>\S+)`, "--regex-tag", "xent", "--csv-files", "*.tsv", "--metric-of", "resnet-50=eval_accuracy:higher"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Root != "logs" || got.SourceOptions["regex"]["tag"] != "xent" || got.SourceOptions["regex"]["pattern"] == "" || got.SourceFiles["csv"] != "*.tsv" ||
		len(got.SourceOptions) != 1 || got.MetricOf[0] != "resnet-50=eval_accuracy:higher" {
		t.Errorf("options %+v", got)
	}
	if comp, ok := cmd.GetFlagCompletionFunc("source"); !ok {
		t.Error("no completion for --source")
	} else if names, _ := comp(cmd, nil, ""); !reflect.DeepEqual(names, []string{"csv", "jsonl", "kubernetes", "mllog", "mxnet", "regex", "tfevents"}) {
		t.Errorf("--source completes %v", names)
	}
	for _, f := range []string{"tfevents-files", "jsonl-files", "mllog-files", "mxnet-files", "regex-pattern", "kubernetes-namespace", "kubernetes-kubeconfig"} {
		if cmd.Flags().Lookup(f) == nil {
			t.Errorf("no --%s", f)
		}
	}
	// A source option's usage follows "the SOURCE source's ": its Doc
	// has no article of its own.
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if strings.Contains(f.Usage, " source's the ") || strings.Contains(f.Usage, " source's a ") {
			t.Errorf("--%s: %q", f.Name, f.Usage)
		}
	})
}

// TestMain runs the tests under clitest.Main (its collector setting).
func TestMain(m *testing.M) { clitest.Main(m) }
