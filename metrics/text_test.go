package metrics

import (
	"math"
	"os"
	"strings"
	"testing"
)

// lineRead reads a text file with line readers, as ReadJob does.
func lineRead(t testing.TB, path string, lrs ...LineReader) readOut {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	out := readOut{points: map[string][]Point{}}
	warn := func(e *Error) { out.warns = append(out.warns, e) }
	out.err = scanLines(path, f, st.Size(), warn, func(line []byte, no int) error {
		for _, lr := range lrs {
			ok, err := lr.ReadLine(line, func(tag string, p Point) { out.points[tag] = append(out.points[tag], p) })
			if err != nil {
				warn(&Error{File: path, Line: no, Msg: err.Error()})
				return nil
			}
			if ok {
				return nil
			}
		}
		return nil
	})
	return out
}

// The shared MXNet log (an MLPerf v0.6 ResNet-50 run): its Speedometer and
// epoch lines, and the MLPerf lines interleaved with them, read as the
// README counts them.
func TestSharedMXNetLog(t *testing.T) {
	path := sharedFile(t, "logs/mxnet-speedometer-resnet50.log")
	out := lineRead(t, path, mllogReader{}, mxnetReader{})
	if out.err != nil || len(out.warns) > 0 {
		t.Fatalf("err %v, warnings %v", out.err, out.warns)
	}
	acc := out.points["accuracy"]
	if len(acc) != 2280 {
		t.Errorf("%d Speedometer accuracy points, want 2280", len(acc))
	}
	val := out.points["Validation-accuracy"]
	if len(val) != 15 {
		t.Fatalf("%d Validation-accuracy points, want 15", len(val))
	}
	// Epoch[3] Validation-accuracy=0.368480 ... Epoch[59] Validation-accuracy=0.764320:
	// the end of the 4th and of the 60th epoch.
	if v := val[0]; v.Step != -1 || v.Epoch != 4 || v.Value != 0.368480 {
		t.Errorf("first validation point %+v", v)
	}
	if v := val[14]; v.Epoch != 60 || v.Value != 0.764320 {
		t.Errorf("last validation point %+v", v)
	}
	// Epoch[0] Batch [0-20] at 2019-06-18 18:15:38,827 (UTC as read).
	if a := acc[0]; a.Epoch != 0 || a.Batch != 20 || a.Value != 0.001145 || a.Wall != 1560881738.827 {
		t.Errorf("first Speedometer point %+v", a)
	}
	if _, ok := out.points["Time cost"]; ok {
		t.Error("Time cost read as a metric")
	}
	ev := out.points["eval_accuracy"]
	if len(ev) != 15 || ev[0].Epoch != 4 || ev[0].Value != 0.36176 || ev[0].Wall != 1560882199.301 {
		t.Errorf("MLPerf eval_accuracy: %d points, first %+v", len(ev), ev[0])
	}
	if _, ok := out.points["global_batch_size"]; ok {
		t.Error("a setting logged once (global_batch_size) read as a metric")
	}
}

// The shared Lightning CSVLogger file: its sparse rows.
func TestSharedLightningCSV(t *testing.T) {
	out := readWith(t, csvReader{}, sharedFile(t, "logs/lightning-csvlogger-metrics.csv"))
	if out.err != nil || len(out.warns) > 0 {
		t.Fatalf("err %v, warnings %v", out.err, out.warns)
	}
	ep := out.points["train_loss_epoch"]
	if len(ep) != 30 {
		t.Fatalf("%d train_loss_epoch points, want 30", len(ep))
	}
	// Its last line: ,5879,,,29,,,,,0.05159620940685272,0.9825999736785889
	if l := ep[29]; l.Step != 5879 || l.Value != 0.05159620940685272 {
		t.Errorf("last train_loss_epoch %+v", l)
	}
	if lr := out.points["lr-SGD"][0]; lr.Step != 49 || lr.Value != 0.013604144351877035 {
		t.Errorf("first lr-SGD %+v", lr)
	}
	if _, ok := out.points["epoch"]; ok {
		t.Error("the epoch column read as a metric")
	}
	rows := 0
	for _, ps := range out.points {
		rows += len(ps)
	}
	if rows < 1494 {
		t.Errorf("%d cells from 1494 rows", rows)
	}
}

func TestKerasCSVLogger(t *testing.T) {
	path := writeFile(t, t.TempDir(), "training.csv", []byte("epoch,accuracy,loss,val_accuracy,val_loss\n"+
		"0,0.81,0.62,0.85,0.51\n1,0.88,0.41,0.87,0.45\n2,0.9,nan,0.88,inf\n"))
	out := readWith(t, csvReader{}, path)
	if out.err != nil || len(out.warns) > 0 {
		t.Fatalf("err %v, warnings %v", out.err, out.warns)
	}
	loss := out.points["loss"]
	if len(loss) != 3 || loss[0].Step != -1 || loss[0].Epoch != 1 || loss[2].Epoch != 3 || !math.IsNaN(loss[2].Value) {
		t.Errorf("loss %+v", loss)
	}
	if v := out.points["val_loss"][2].Value; !math.IsInf(v, 1) {
		t.Errorf("val_loss inf read as %v", v)
	}
}

func TestJSONLines(t *testing.T) {
	path := writeFile(t, t.TempDir(), "metrics.jsonl", []byte(
		`{"step": 100, "loss": 0.52, "lr": 1e-3, "time": 1700000000.5, "phase": "train", "extra": {"a": [1, 2]}}`+"\n"+
			`{"global_step": 200, "loss": NaN, "timestamp": 1700000010500}`+"\n"+
			`{"epoch": 0, "val_loss": 0.61, "time": "2023-11-14T22:13:40Z"}`+"\n"+
			`{"step": 300, "loss": 0.4`+"\n"+ // a broken line: skipped
			`not json at all`+"\n"+
			`{"step": -1, "loss": 0.3}`+"\n"+
			`{"step": 400, "loss": 0.35}`+"\n"+
			`{"step": 500, "loss": 0.3`)) // still being written: left for the next run
	out := lineRead(t, path, jsonLines{})
	if out.err != nil {
		t.Fatal(out.err)
	}
	if len(out.warns) != 2 || out.warns[0].Line != 4 || out.warns[1].Line != 6 {
		t.Errorf("warnings %v, want lines 4 and 6", out.warns)
	}
	loss := out.points["loss"]
	if len(loss) != 3 || loss[0].Step != 100 || loss[0].Wall != 1700000000.5 || !math.IsNaN(loss[1].Value) ||
		loss[1].Wall != 1700000010.5 || loss[2].Step != 400 || !math.IsNaN(loss[2].Wall) {
		t.Errorf("loss %+v", loss)
	}
	if v := out.points["val_loss"]; len(v) != 1 || v[0].Epoch != 1 || v[0].Wall != 1700000020 {
		t.Errorf("val_loss %+v", v)
	}
	if _, ok := out.points["phase"]; ok {
		t.Error("a string read as a metric")
	}
}

func TestRegex(t *testing.T) {
	for _, c := range []struct {
		pattern, err string
	}{
		{`loss (?P<value>\S+)`, "no group named step or epoch"},
		{`step (?P<step>\d+)`, "no metric group"},
		{`step (?P<step>\d+`, "missing closing )"},
		{``, "empty"},
	} {
		if _, err := newRegexReader(map[string]string{"pattern": c.pattern, "tag": "loss"}); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.pattern, err, c.err)
		}
	}
	r, err := newRegexReader(map[string]string{"tag": "loss",
		"pattern": `^(?P<time>\S+ \S+) .*step (?P<step>\d+) loss (?P<value>\S+) acc (?P<acc>\S+)`})
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "train.log", []byte("2024-01-02 03:04:05,250 INFO step 10 loss 0.9 acc 0.1\n"+
		"noise\n2024-01-02 03:04:06,250 INFO step 20 loss x acc 0.2\n2024-01-02 03:04:07,250 INFO step 30 loss 0.7 acc 0.3\n"))
	out := lineRead(t, path, r.(LineReader))
	if len(out.warns) != 1 || out.warns[0].Line != 3 {
		t.Errorf("warnings %v, want line 3", out.warns)
	}
	if l := out.points["loss"]; len(l) != 2 || l[0].Step != 10 || l[0].Wall != 1704164645.25 || l[1].Value != 0.7 {
		t.Errorf("loss %+v", l)
	}
	if a := out.points["acc"]; len(a) != 2 || a[1].Value != 0.3 {
		t.Errorf("acc %+v", a)
	}
}

// A 10 MB line is skipped and counted without being held whole, and the
// lines around it are read.
func TestLongLine(t *testing.T) {
	long := `{"step": 2, "loss": 0.5, "pad": "` + strings.Repeat("x", 10<<20) + `"}`
	path := writeFile(t, t.TempDir(), "m.jsonl", []byte(`{"step": 1, "loss": 0.9}`+"\n"+long+"\n"+`{"step": 3, "loss": 0.4}`+"\n"))
	out := lineRead(t, path, jsonLines{})
	if len(out.warns) != 1 || out.warns[0].Line != 2 || !strings.Contains(out.warns[0].Msg, "longer than") {
		t.Errorf("warnings %v", out.warns)
	}
	if l := out.points["loss"]; len(l) != 2 || l[1].Step != 3 {
		t.Errorf("loss %+v", l)
	}
}
