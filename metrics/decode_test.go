package metrics

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// consumeTag and consumeBytes agree with protowire's on any input.
func TestConsumeFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		b := make([]byte, rng.IntN(6))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 {
				b[i] &= 0x7f
			}
		}
		n1, t1, l1 := consumeTag(b)
		n2, t2, l2 := protowire.ConsumeTag(b)
		if (l1 < 0) != (l2 < 0) || l1 >= 0 && (n1 != n2 || t1 != t2 || l1 != l2) {
			t.Fatalf("consumeTag(%x) = %d %d %d, protowire says %d %d %d", b, n1, t1, l1, n2, t2, l2)
		}
		v1, m1 := consumeBytes(b)
		v2, m2 := protowire.ConsumeBytes(b)
		if (m1 < 0) != (m2 < 0) || m1 >= 0 && (m1 != m2 || string(v1) != string(v2)) {
			t.Fatalf("consumeBytes(%x) = %x %d, protowire says %x %d", b, v1, m1, v2, m2)
		}
	}
}

// Records larger than the read buffer: an image-sized one is decoded from
// its own buffer, one past maxDecoded is checked by streaming and skipped,
// and the scalars around them are read; a corrupted large record is
// skipped and counted.
func TestEventLargeRecords(t *testing.T) {
	image := func(size int) []byte {
		var v []byte
		v = protowire.AppendTag(v, valueTag, protowire.BytesType)
		v = protowire.AppendString(v, "image")
		v = protowire.AppendTag(v, 4, protowire.BytesType) // Summary.Value.image
		v = protowire.AppendBytes(v, make([]byte, size))
		return summaryOf(v)
	}
	b := fileVersion(nil, "brain.Event:2")
	b = appendEvent(b, 1.7e9, 0, simpleValue("loss", 1))
	b = appendEvent(b, 1.7e9+1, 1, image(3*readBuffer/2))
	b = appendEvent(b, 1.7e9+2, 2, simpleValue("loss", 0.5))
	b = appendEvent(b, 1.7e9+3, 3, image(maxDecoded+readBuffer/3))
	b = appendEvent(b, 1.7e9+4, 4, simpleValue("loss", 0.25))
	at := len(b)
	b = appendEvent(b, 1.7e9+5, 5, image(2*readBuffer))
	b[at+12+readBuffer] ^= 1 // inside the data: its CRC fails
	b = appendEvent(b, 1.7e9+6, 6, simpleValue("loss", 0.125))
	out := readWith(t, eventReader{}, writeFile(t, t.TempDir(), "events.out.tfevents.1", b))
	if out.err != nil || len(out.warns) != 1 || out.warns[0].Offset != int64(at) {
		t.Fatalf("err %v, warnings %v, want one at offset %d", out.err, out.warns, at)
	}
	var got []float64
	for _, p := range out.points["loss"] {
		got = append(got, float64(p.Step), p.Value)
	}
	if want := []float64{0, 1, 2, 0.5, 4, 0.25, 6, 0.125}; !reflect.DeepEqual(got, want) {
		t.Errorf("loss (step, value) %v, want %v", got, want)
	}
	if len(out.points) != 1 {
		t.Errorf("tags %v, want loss only", out.points)
	}
}

// ReadJob's series: tags of several files, a file's prefix, tags that
// alternate record by record, and buffers reused after Release give the
// same series as a plain per-tag grouping.
func TestReadJobSeries(t *testing.T) {
	root := t.TempDir()
	files := map[string][]string{ // file -> tags, record by record
		"job/train/events.out.tfevents.1":      {"loss", "acc", "loss", "acc", "lr", "loss"},
		"job/validation/events.out.tfevents.2": {"loss", "acc", "acc", "loss"},
		"job/run/events.out.tfevents.3":        {"acc", "loss", "validation/loss"}, // its validation/loss is the validation file's
	}
	want := map[string][]Point{}
	for _, name := range []string{"job/run/events.out.tfevents.3", "job/train/events.out.tfevents.1", "job/validation/events.out.tfevents.2"} {
		b := fileVersion(nil, "brain.Event:2")
		prefix := map[string]string{"job/train/events.out.tfevents.1": "train/", "job/validation/events.out.tfevents.2": "validation/"}[name]
		for i, tag := range files[name] {
			p := Point{Step: int64(i), Wall: 1.7e9 + float64(i), Value: float64(float32(1 / float64(i+len(name))))}
			b = appendEvent(b, p.Wall, p.Step, simpleValue(tag, float32(p.Value)))
			want[prefix+tag] = append(want[prefix+tag], p)
		}
		writeFile(t, root, name, b)
	}
	rs := allReaders(t)
	jobs, err := Discover(root, rs, nil)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("%v, %v", jobs, err)
	}
	for round := range 3 {
		jr, err := ReadJob(jobs[0], rs, func(e *Error) { t.Error(e) })
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]Point{}
		var tags []string
		for _, s := range jr.Series {
			tags = append(tags, s.Tag)
			for _, x := range s.Samples {
				got[s.Tag] = append(got[s.Tag], x.Point)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round %d: series %v, want %v", round, got, want)
		}
		if want := []string{"acc", "loss", "train/acc", "train/loss", "train/lr", "validation/acc", "validation/loss"}; !reflect.DeepEqual(tags, want) {
			t.Errorf("round %d: tags %q, want %q", round, tags, want)
		}
		jr.Release()
		if jr.Series != nil {
			t.Error("Release left the series")
		}
	}
}
