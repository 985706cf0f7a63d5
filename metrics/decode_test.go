package metrics

import (
	"fmt"
	"math"
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
			for _, x := range s.Points() {
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

// fastScalar's records decode as the general decoder decodes them: on
// scalars of every step size and tag length, and on the same records with
// bytes changed, cut or added (where fastScalar declines, general is
// what runs anyway).
func TestFastScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type got struct {
		tag    string
		points []Point
		err    string
	}
	run := func(b []byte, decode func(*eventDecoder, []byte, Emit) error) got {
		d := eventDecoder{name: "f", tags: map[string]string{}}
		var g got
		err := decode(&d, b, func(tag string, p Point) {
			g.tag = tag
			g.points = append(g.points, p)
		})
		if err != nil {
			g.err = err.Error()
		}
		return g
	}
	fast, accepted := 0, 0
	for i := range 100000 {
		step := int64(rng.Uint64() >> rng.IntN(64))
		tag := string(make([]byte, rng.IntN(20)))
		tag = "loss"[:rng.IntN(5)] + tag[:len(tag)/4]
		var rec []byte
		switch i % 3 {
		case 0:
			rec = appendEvent(nil, rng.Float64()*2e9, step, simpleValue(tag, rng.Float32()))
		case 1:
			rec = appendEvent(nil, math.Float64frombits(rng.Uint64()), step, simpleValue(tag, math.Float32frombits(rng.Uint32())))
		default:
			rec = appendEvent(nil, 1.7e9, step, simpleValue("loss", 0.5))
		}
		data := rec[recordHeader : len(rec)-recordFooter]
		switch rng.IntN(4) {
		case 1:
			data[rng.IntN(len(data))] = byte(rng.IntN(256))
		case 2:
			data = data[:rng.IntN(len(data))]
		case 3:
			data = append(data, byte(rng.IntN(256)), byte(rng.IntN(256)))
		}
		if _, _, _, _, ok := fastScalar(data); ok {
			accepted++
		}
		a := run(data, (*eventDecoder).event)
		b := run(data, (*eventDecoder).general)
		if !reflect.DeepEqual(fmtPoints(a.points), fmtPoints(b.points)) || a.tag != b.tag || a.err != b.err {
			t.Fatalf("record %x: fast path gives %+v, general %+v", data, a, b)
		}
		fast++
	}
	if accepted < fast/4 {
		t.Errorf("fastScalar took %d of %d records", accepted, fast)
	}
}

// fmtPoints compares NaNs by their bits.
func fmtPoints(ps []Point) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d %d %x %x %d", p.Step, p.Epoch, math.Float64bits(p.Wall), math.Float64bits(p.Value), p.Batch))
	}
	return out
}
