package metrics

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedFile is a file of shared/data/tfevents, found next to the
// repository (from this directory up) or under $OPTIMUS_SHARED_DATA; the
// test is skipped without it.
func sharedFile(t testing.TB, rel string) string {
	t.Helper()
	root := os.Getenv("OPTIMUS_SHARED_DATA")
	if root == "" {
		for dir, _ := filepath.Abs("."); ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "shared", "data", "tfevents")); err == nil {
				root = filepath.Join(dir, "shared", "data")
				break
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	p := filepath.Join(root, "tfevents", rel)
	if _, err := os.Stat(p); root == "" || err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	return p
}

type readOut struct {
	points map[string][]Point
	warns  []*Error
	err    error
}

func readWith(t testing.TB, fr FileReader, path string) readOut {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	out := readOut{points: map[string][]Point{}}
	out.err = fr.ReadFile(path, f, st.Size(), func(tag string, p Point) {
		out.points[tag] = append(out.points[tag], p)
	}, func(e *Error) { out.warns = append(out.warns, e) })
	return out
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// The shared event files, read as their README describes them (its
// numbers come from the writers' own projects).
func TestSharedEventFiles(t *testing.T) {
	for _, c := range []struct {
		file                string
		tag                 string
		n                   int
		firstStep, lastStep int64
		first, last         float64 // 0: not checked
	}{
		{"tensorboard-estimator-train.tfevents", "loss", 30, 1, 2901, 0.693, 0.00059},
		{"tensorboard-estimator-train.tfevents", "global_step/sec", 28, 101, 2901, 0, 0},
		{"katib-tf2-train.tfevents", "loss", 10, 0, 9, 0.205, 0.036},
		{"katib-tf2-train.tfevents", "accuracy", 10, 0, 9, 0, 0},
		{"lightning-cifar10-30epochs.tfevents", "train_loss_step", 117, 49, 5849, 0, 0},
		{"lightning-cifar10-30epochs.tfevents", "val_loss_step", 1200, 0, 1199, 0, 0},
		{"lightning-cifar10-30epochs.tfevents", "train_loss_epoch", 30, 195, 5879, 1.62, 0.051},
		{"keras-tf1-callback.tfevents", "batch_loss", 17, 0, 16, 0, 0},
		{"keras-tf1-callback.tfevents", "epoch_val_loss", 17, 0, 16, 0, 0},
		{"tiny-scalar-with-metadata.tfevents", "hello", 1, 0, 0, 1, 1},
		{"torch-duplicate-steps.tfevents", "dup_steps/foo", 210, 0, 199, 0, 0},
	} {
		t.Run(c.file+"/"+c.tag, func(t *testing.T) {
			out := readWith(t, eventReader{}, sharedFile(t, "events/"+c.file))
			if out.err != nil || len(out.warns) > 0 {
				t.Fatalf("err %v, warnings %v", out.err, out.warns)
			}
			ps := out.points[c.tag]
			if len(ps) != c.n {
				t.Fatalf("%d points, want %d", len(ps), c.n)
			}
			if ps[0].Step != c.firstStep || ps[len(ps)-1].Step != c.lastStep {
				t.Errorf("steps %d..%d, want %d..%d", ps[0].Step, ps[len(ps)-1].Step, c.firstStep, c.lastStep)
			}
			if c.first != 0 && !near(ps[0].Value, c.first, 0.02) || c.last != 0 && !near(ps[len(ps)-1].Value, c.last, 0.02) {
				t.Errorf("values %v..%v, want about %v..%v", ps[0].Value, ps[len(ps)-1].Value, c.first, c.last)
			}
			for _, p := range ps {
				if math.IsNaN(p.Wall) || p.Wall < 1.4e9 {
					t.Fatalf("point %+v has no wall time", p)
				}
			}
		})
	}
}

// Scalars in every form TensorFlow writes them; non-scalars skipped.
func TestEventScalarForms(t *testing.T) {
	b := fileVersion(nil, "brain.Event:2")
	b = appendEvent(b, 1.7e9+1, 1, simpleValue("tf1", 0.5))
	b = appendEvent(b, 1.7e9+2, 2, summaryOf(tensorValue("content_float", tensor(dtFloat, nil, tensorContent, f32(0.25)))))
	b = appendEvent(b, 1.7e9+3, 3, summaryOf(tensorValue("float_val", tensor(dtFloat, nil, tensorFloat, f32(0.125)))))
	b = appendEvent(b, 1.7e9+4, 4, summaryOf(tensorValue("double", tensor(dtDouble, nil, tensorContent, f64(1.0/3)))))
	b = appendEvent(b, 1.7e9+5, 5, summaryOf(tensorValue("double_val", tensor(dtDouble, nil, tensorDouble, f64(2.5)))))
	// 0x3c00 is 1.0 and 0xc000 is -2.0 in binary16.
	b = appendEvent(b, 1.7e9+6, 6, summaryOf(tensorValue("half", tensor(dtHalf, nil, tensorContent, []byte{0x00, 0x3c}))))
	b = appendEvent(b, 1.7e9+7, 7, summaryOf(tensorValue("half_val", tensor(dtHalf, nil, tensorHalf, []byte{0x80, 0x80, 0x03}))))
	b = appendEvent(b, 1.7e9+8, 8, summaryOf(tensorValue("shape_1x1", tensor(dtFloat, []int64{1, 1}, tensorContent, f32(4)))))
	// Not scalars: a vector, a histogram-like matrix, a string.
	b = appendEvent(b, 1.7e9+9, 9, summaryOf(tensorValue("vector", tensor(dtFloat, []int64{2}, tensorContent, append(f32(1), f32(2)...)))))
	b = appendEvent(b, 1.7e9+10, 10, summaryOf(tensorValue("text", tensor(7, nil, 8, []byte("hello")))))
	// Two values in one summary, as merged TF1 summaries are.
	b = appendEvent(b, 1.7e9+11, 11, summaryOf(
		append(append([]byte{0x0a, 1, 'a'}, 0x15), f32(1)...),
		append(append([]byte{0x0a, 1, 'b'}, 0x15), f32(2)...)))
	out := readWith(t, eventReader{}, writeFile(t, t.TempDir(), "events.out.tfevents.1", b))
	if out.err != nil || len(out.warns) > 0 {
		t.Fatalf("err %v, warnings %v", out.err, out.warns)
	}
	want := map[string]float64{"tf1": 0.5, "content_float": 0.25, "float_val": 0.125, "double": 1.0 / 3, "double_val": 2.5,
		"half": 1, "half_val": -2, "shape_1x1": 4, "a": 1, "b": 2}
	for tag, v := range want {
		ps := out.points[tag]
		if len(ps) != 1 || ps[0].Value != v {
			t.Errorf("%s: %+v, want one point of %v", tag, ps, v)
		}
	}
	for tag := range out.points {
		if _, ok := want[tag]; !ok {
			t.Errorf("%s read, but is not a scalar", tag)
		}
	}
}

func TestHalfToFloat(t *testing.T) {
	for bits, want := range map[uint16]float64{0x3c00: 1, 0xc000: -2, 0x3555: 0.333251953125, 0x0001: math.Ldexp(1, -24), 0x7c00: math.Inf(1), 0x7bff: 65504} {
		if got := halfToFloat(bits); got != want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", bits, got, want)
		}
	}
	if !math.IsNaN(halfToFloat(0x7e00)) {
		t.Error("0x7e00 is NaN")
	}
}

// Bad event files: what is an error (the file is unusable), what is
// skipped and counted (the rest of the file is good), and what is where a
// file being written ends for now.
func TestEventBadInput(t *testing.T) {
	good := fileVersion(nil, "brain.Event:2")
	for i := range 5 {
		good = appendEvent(good, 1.7e9+float64(i), int64(i), simpleValue("loss", float32(1)/float32(i+1)))
	}
	third := recordOffsets(good)[3] // the record of step 2
	flip := func(at int) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x40
		return b
	}
	hugeLength := func() []byte {
		b := bytes.Clone(good[:third])
		var h [12]byte
		binary.LittleEndian.PutUint64(h[:8], 1<<62)
		binary.LittleEndian.PutUint32(h[8:], MaskedCRC(h[:8]))
		return append(b, h[:]...)
	}
	badTag := fileVersion(nil, "brain.Event:2")
	badTag = appendEvent(badTag, 1.7e9, 0, simpleValue("lo\xffss", 1))
	badTag = appendEvent(badTag, 1.7e9+1, 1, simpleValue("loss", 1))
	nonFinite := fileVersion(nil, "brain.Event:2")
	nonFinite = appendEvent(nonFinite, 1.7e9, 0, simpleValue("loss", float32(math.NaN())))
	nonFinite = appendEvent(nonFinite, 1.7e9+1, 1, simpleValue("loss", float32(math.Inf(1))))
	garbage := fileVersion(nil, "brain.Event:2")
	garbage = AppendRecord(garbage, []byte{0xff, 0xff, 0xff})
	garbage = appendEvent(garbage, 1.7e9+1, 1, simpleValue("loss", 1))

	for _, c := range []struct {
		name   string
		data   []byte
		err    string // "" when the file reads
		warns  int
		points int
	}{
		{"good", good, "", 0, 5},
		{"empty, just created", nil, "", 0, 0},
		{"data CRC mismatch: record skipped", flip(third + 12 + 2), "", 1, 4},
		{"data's stored CRC mismatch: record skipped", flip(recordOffsets(good)[4] - 1), "", 1, 4},
		{"length CRC mismatch mid-file", flip(third), "record at offset " + strconv.Itoa(third) + ": the record length's CRC32C does not match", 0, 2},
		{"length beyond the file, CRC good: being written", hugeLength(), "", 0, 2},
		{"last record cut short: being written", good[:len(good)-3], "", 0, 4},
		{"last header cut short: being written", good[:len(good)-recordOffsetsLen(good)+5], "", 0, 4},
		{"not an event file: text", []byte("step,loss\n1,0.5\n2,0.4\n"), "not an event file", 0, 0},
		{"not an event file: a TFRecord of something else", AppendRecord(nil, []byte("\x08\x01garbage")), "not an event file", 0, 0},
		{"not an event file: another file_version", fileVersion(nil, "other.Event:1"), "not an event file", 0, 0},
		{"non-UTF-8 tag: record skipped", badTag, "", 1, 1},
		{"NaN and infinite values: kept", nonFinite, "", 0, 2},
		{"undecodable record: skipped", garbage, "", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "events.out.tfevents.1", c.data)
			out := readWith(t, eventReader{}, path)
			switch {
			case c.err == "" && out.err != nil:
				t.Fatalf("error %v", out.err)
			case c.err != "" && (out.err == nil || !strings.Contains(out.err.Error(), c.err) || !strings.Contains(out.err.Error(), path)):
				t.Fatalf("error %v, want one naming %s and saying %q", out.err, path, c.err)
			}
			if len(out.warns) != c.warns {
				t.Errorf("warnings %v, want %d", out.warns, c.warns)
			}
			for _, w := range out.warns {
				if w.File != path || w.Offset < 0 {
					t.Errorf("warning %v names no file and offset", w)
				}
			}
			if n := len(out.points["loss"]); out.err == nil && n != c.points {
				t.Errorf("%d points, want %d", n, c.points)
			}
		})
	}
}

func recordOffsets(b []byte) []int {
	var offs []int
	for at := 0; at+12 <= len(b); {
		offs = append(offs, at)
		at += 12 + int(binary.LittleEndian.Uint64(b[at:])) + 4
	}
	return offs
}

func recordOffsetsLen(b []byte) int {
	offs := recordOffsets(b)
	return len(b) - offs[len(offs)-1]
}
