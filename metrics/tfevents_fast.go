package metrics

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The path of nearly every record of an event file: a TF1 scalar (as
// TensorFlow, tensorboardX and PyTorch write them) whose framing repeats
// the record before's. benchmarks/metrics.md has what it saves.

// template is the bytes a TF1 scalar record shares with the next ones of
// its tag: with n bytes of data and a step of k varint bytes, data[10+k :
// n-4] (the summary's, the value's and the tag's keys and lengths, the
// tag, simple_value's key). A record of the same length, with wall_time's
// and step's keys in place, a step of k bytes and those bytes equal,
// decodes as the one that set it did (fastScalar, then scalar), but for
// its wall time, step and value.
type template struct {
	n, k int
	tail [maxTail]byte
	tag  string // interned and checked by scalar
}

const (
	maxTail = 64
	// maxRun is the longest record run decodes: a TF1 scalar of a tag of
	// up to maxTail bytes less its keys.
	maxRun = 1 + 8 + 1 + 9 + maxTail + 4
)

// event decodes one Event and emits its scalars.
func (d *eventDecoder) event(b []byte, emit Emit) error {
	if wall, step, tag, v, ok := fastScalar(b); ok {
		if err := d.scalar(tag, step, wall, float64(v), emit); err != nil {
			return err
		}
		// After the step: six bytes of keys and lengths, the tag,
		// simple_value's key, then the value's four bytes.
		tail := 6 + len(tag) + 1
		k := len(b) - 10 - 4 - tail
		if k <= 9 && tail <= maxTail { // a 10-byte step may overflow: fastScalar's to decide
			d.tmpl.n, d.tmpl.k, d.tmpl.tag = len(b), k, d.last
			copy(d.tmpl.tail[:], b[10+k:len(b)-4])
		}
		return nil
	}
	return d.general(b, emit)
}

// run decodes, without the calls of next and event, every record wholly
// in rr's buffer whose header repeats the one next checked last: it stops
// at the first that does not, whose data's CRC32C does not match, or that
// is out of the buffer, and leaves it to next. The data's CRC is checked
// for every record, as next does. A record that does not match the
// template goes through event, and its errors skip it as ReadFile's do.
func (d *eventDecoder) run(rr *recordReader, emit Emit, warn Warn) {
	if !rr.haveHeader || rr.lastHeader > maxRun {
		return
	}
	n := int(rr.lastHeader)
	total := recordHeader + n + recordFooter
	header, headerCRC := rr.lastHeader, rr.lastHeaderCRC
	buf := rr.buf[:rr.end]
	p := rr.start
	for ; len(buf)-p >= total; p += total {
		rec := buf[p : p+total]
		if binary.LittleEndian.Uint64(rec) != header || binary.LittleEndian.Uint32(rec[8:]) != headerCRC {
			break
		}
		data := rec[recordHeader : recordHeader+n]
		if MaskedCRC(data) != binary.LittleEndian.Uint32(rec[recordHeader+n:]) {
			break // next skips it and warns
		}
		if t := &d.tmpl; t.n == n && data[0] == eventWallTime<<3|byte(protowire.Fixed64Type) && data[9] == eventStep<<3|byte(protowire.VarintType) {
			if step, ok := stepOf(data[10 : 10+t.k]); ok && string(data[10+t.k:n-4]) == string(t.tail[:n-14-t.k]) {
				wall := math.Float64frombits(binary.LittleEndian.Uint64(data[1:9]))
				if math.IsNaN(wall) || math.IsInf(wall, 0) {
					wall = nan
				}
				emit(t.tag, Point{Step: step, Wall: wall, Value: float64(math.Float32frombits(binary.LittleEndian.Uint32(data[n-4:])))})
				continue
			}
		}
		if err := d.event(data, emit); err != nil {
			at := rr.off + int64(p-rr.start)
			warn(&Error{File: d.name, Offset: at, Msg: err.Error() + ": record skipped"})
		}
	}
	rr.off += int64(p - rr.start)
	rr.start = p
}

// runOff leaves every record to next and event (TestRunSameAsNext
// compares the two).
var runOff bool

// stepOf decodes b as a varint of exactly len(b) bytes (1 to 9: no
// overflow, never negative as an int64).
func stepOf(b []byte) (int64, bool) {
	switch len(b) {
	case 1:
		return int64(b[0]), b[0] < 0x80
	case 2:
		return int64(b[0]&0x7f) | int64(b[1])<<7, b[0] >= 0x80 && b[1] < 0x80
	}
	var u uint64
	last := len(b) - 1
	for i, c := range b {
		if (c < 0x80) != (i == last) {
			return 0, false
		}
		u |= uint64(c&0x7f) << (7 * i)
	}
	return int64(u), true
}

// fastScalar decodes the layout of nearly every record of an event file
// (a TF1 scalar, as TensorFlow, tensorboardX and PyTorch write it): an
// Event of wall_time, step and a summary of one value of a tag and a
// simple_value, each field once, in field order, with one-byte lengths.
// ok is false for anything else, which general decodes; for what it
// accepts, it gives what general does (TestFastScalar).
func fastScalar(b []byte) (wall float64, step int64, tag []byte, v float32, ok bool) {
	// 0x09 wall(8) 0x10 step(1-10) 0x2a len 0x0a len 0x0a len tag 0x15 v(4)
	if len(b) < 9+2+2+2+2+5 || b[0] != eventWallTime<<3|byte(protowire.Fixed64Type) || b[9] != eventStep<<3|byte(protowire.VarintType) {
		return
	}
	wall = math.Float64frombits(binary.LittleEndian.Uint64(b[1:9]))
	b = b[10:]
	var u uint64
	switch {
	case b[0] < 0x80:
		u, b = uint64(b[0]), b[1:]
	case b[1] < 0x80:
		u, b = uint64(b[0]&0x7f)|uint64(b[1])<<7, b[2:]
	default:
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return
		}
		u, b = x, b[n:]
	}
	step = int64(u)
	// The summary, its one value and the value's tag, each the rest of
	// what holds it.
	if len(b) < 2 || b[0] != eventSummary<<3|byte(protowire.BytesType) || b[1] >= 0x80 || int(b[1]) != len(b)-2 {
		return
	}
	b = b[2:]
	if len(b) < 2 || b[0] != summaryValue<<3|byte(protowire.BytesType) || b[1] >= 0x80 || int(b[1]) != len(b)-2 {
		return
	}
	b = b[2:]
	if len(b) < 2 || b[0] != valueTag<<3|byte(protowire.BytesType) || b[1] >= 0x80 || int(b[1])+2+5 != len(b) {
		return
	}
	tag, b = b[2:2+int(b[1])], b[2+int(b[1]):]
	if b[0] != valueSimpleValue<<3|byte(protowire.Fixed32Type) || step < 0 {
		return
	}
	if math.IsNaN(wall) || math.IsInf(wall, 0) {
		wall = nan
	}
	return wall, step, tag, math.Float32frombits(binary.LittleEndian.Uint32(b[1:5])), true
}
