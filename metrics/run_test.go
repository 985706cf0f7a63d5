package metrics

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// run decodes as next and event do: on files of TF1 scalars of several
// tags (steps crossing varint lengths, walls not finite, a tag not UTF-8),
// TF2 tensors and other records among them, with bytes flipped anywhere
// (headers, data, CRCs) and files cut short, and on files longer than the
// read buffer (records across its end). Points, warnings (with offsets)
// and errors must be the same with run on and off.
func TestRunSameAsNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tags := []string{"loss", "loss", "loss", "acc1", "val/loss", "lo\xffss", ""}
	type out struct {
		points []string
		warns  []string
		err    string
	}
	read := func(b []byte, off bool) out {
		runOff = off
		defer func() { runOff = false }()
		var o out
		err := eventReader{}.ReadFile("f", bytes.NewReader(b), int64(len(b)), func(tag string, p Point) {
			o.points = append(o.points, tag+" "+fmtPoints([]Point{p})[0])
		}, func(e *Error) { o.warns = append(o.warns, e.Error()) })
		if err != nil {
			o.err = err.Error()
		}
		return o
	}
	taken := 0
	for i := range 400 {
		n := 1 + rng.IntN(300)
		if i < 2 {
			n = 27000 + rng.IntN(1000) // past readBuffer
		}
		b := fileVersion(nil, "brain.Event:2")
		step := int64(rng.IntN(200))
		if rng.IntN(3) == 0 {
			step = int64(1)<<(7*rng.IntN(9)) - int64(rng.IntN(50))
		}
		tag := tags[rng.IntN(len(tags))]
		for range n {
			if rng.IntN(20) == 0 {
				tag = tags[rng.IntN(len(tags))]
			}
			step += int64(rng.IntN(3))
			wall := 1.7e9 + float64(step)
			switch rng.IntN(40) {
			case 0:
				wall = math.NaN()
			case 1:
				wall = math.Inf(-1)
			}
			at := len(b)
			switch rng.IntN(30) {
			case 0:
				b = appendEvent(b, wall, step, summaryOf(tensorValue(tag, tensor(dtFloat, nil, tensorContent, f32(rng.Float32())))))
			case 1:
				b = appendEvent(b, wall, step, summaryOf(simpleValue(tag, 1), simpleValue("acc1", 2)))
			case 2:
				b = appendEvent(b, wall, step, nil)
			default:
				b = appendEvent(b, wall, step, simpleValue(tag, math.Float32frombits(rng.Uint32())))
			}
			if rng.IntN(25) == 0 {
				// A byte of the Event changed before framing: the CRCs
				// match, the decoding decides.
				data := bytes.Clone(b[at+recordHeader : len(b)-recordFooter])
				data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
				b = AppendRecord(b[:at], data)
			}
		}
		for range rng.IntN(4) {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		if rng.IntN(4) == 0 {
			b = b[:rng.IntN(len(b)+1)]
		}
		on, off := read(b, false), read(b, true)
		if !reflect.DeepEqual(on, off) {
			t.Fatalf("file %d (%d bytes): run on gives %d points, %q, %q; off %d points, %q, %q", i, len(b), len(on.points), on.warns, on.err, len(off.points), off.warns, off.err)
		}
		taken += len(on.points)
	}
	if taken < 30000 {
		t.Errorf("%d points in all: the files are not what the test means", taken)
	}
}
