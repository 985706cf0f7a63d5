package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

func init() {
	register(&Source{
		Name:  "tfevents",
		Short: "TensorBoard event files (TensorFlow, Keras, PyTorch's SummaryWriter, tensorboardX, Lightning)",
		Long: `Reads TFRecord files of Event protos: every scalar of every Summary, both TF1-style
simple_value and TF2-style rank-0 tensors (DT_FLOAT, DT_DOUBLE or DT_HALF, in
tensor_content or float_val, double_val or half_val). The step is the Event's step,
the time its wall_time. Graphs, images, histograms, audio and other non-scalar
summaries are skipped. Both CRC32C checks are made: a record whose data does not
match is skipped and counted; a broken length ends the file with an error. A record
a writer is still writing (its length runs past the end) is where the file ends for
now. A file under a directory named train, validation, eval or test (Keras' and
tf.summary's layout) has its tags prefixed with that name: validation/epoch_loss.`,
		Files: "events.out.tfevents.*",
		New:   func(map[string]string) (any, error) { return eventReader{}, nil },
	})
}

// Field numbers of tensorboard/compat/proto/{event,summary,tensor,
// tensor_shape}.proto.
const (
	eventWallTime    = 1 // double
	eventStep        = 2 // int64
	eventFileVersion = 3 // string
	eventSummary     = 5 // Summary

	summaryValue = 1 // repeated Summary.Value

	valueTag         = 1 // string
	valueSimpleValue = 2 // float
	valueTensor      = 8 // TensorProto

	tensorDtype   = 1  // DataType
	tensorShape   = 2  // TensorShapeProto
	tensorContent = 4  // bytes
	tensorFloat   = 5  // repeated float (packed)
	tensorDouble  = 6  // repeated double (packed)
	tensorHalf    = 13 // repeated int32 (packed), the half's bits

	shapeDim     = 2 // repeated Dim
	dimSize      = 1 // int64
	shapeUnknown = 3 // bool

	dtFloat  = 1
	dtDouble = 2
	dtHalf   = 19
)

type eventReader struct{}

// ReadFile reads the scalars of an event file.
func (eventReader) ReadFile(name string, r io.Reader, size int64, emit Emit, warn Warn) error {
	rr := newRecordReader(name, r, size)
	defer rr.release()
	d := eventDecoder{name: name, tags: map[string]string{}}
	for first := true; ; first = false {
		if !first && !runOff {
			d.run(rr, emit, warn)
		}
		data, at, err := rr.next()
		if err != nil {
			// Only here, off the path of every record: errors.As's
			// target would be allocated per record.
			var skipped errSkipped
			switch {
			case err == errEnd:
				return nil
			case errors.As(err, &skipped):
				warn(skipped.e)
				continue
			}
			var e *Error
			if first && errors.As(err, &e) {
				e.Msg = "not an event file: its first record has no valid TFRecord framing (the length's CRC32C does not match)"
			}
			return err
		}
		if data == nil {
			continue // too large to be a scalar summary: checked and skipped
		}
		if err := d.event(data, emit); err != nil {
			if first {
				return &Error{File: name, Offset: at, Msg: "not an event file: its first record is not an Event: " + err.Error()}
			}
			warn(&Error{File: name, Offset: at, Msg: err.Error() + ": record skipped"})
		}
	}
}

type eventDecoder struct {
	name string
	// tags interns tag names, so that the points of one tag share one
	// string and a record allocates none.
	tags map[string]string
	last string // the tag of the last value: most records repeat it
	tmpl template
}

var errMalformed = errors.New("malformed protocol buffer")

// general decodes any Event and emits its scalars.
func (d *eventDecoder) general(b []byte, emit Emit) error {
	wall, step := nan, int64(0)
	var summary []byte
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		switch {
		case num == eventWallTime && typ == protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return errMalformed
			}
			wall, b = math.Float64frombits(v), b[n:]
			continue
		case num == eventStep && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return errMalformed
			}
			step, b = int64(v), b[n:]
			continue
		case num == eventSummary && typ == protowire.BytesType:
			v, n := consumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			summary, b = v, b[n:]
			continue
		case num == eventFileVersion && typ == protowire.BytesType:
			v, n := consumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			if !strings.HasPrefix(string(v), "brain.Event:") {
				return fmt.Errorf("file_version %q is not brain.Event", truncate(v))
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
	}
	if summary == nil {
		return nil
	}
	if step < 0 {
		return fmt.Errorf("negative step %d", step)
	}
	if math.IsNaN(wall) || math.IsInf(wall, 0) {
		wall = nan
	}
	for len(summary) > 0 {
		num, typ, n := consumeTag(summary)
		if n < 0 {
			return errMalformed
		}
		summary = summary[n:]
		if num == summaryValue && typ == protowire.BytesType {
			v, n := consumeBytes(summary)
			if n < 0 {
				return errMalformed
			}
			summary = summary[n:]
			if err := d.value(v, step, wall, emit); err != nil {
				return err
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, summary)
		if n < 0 {
			return errMalformed
		}
		summary = summary[n:]
	}
	return nil
}

// value decodes one Summary.Value and emits it when it is a scalar.
func (d *eventDecoder) value(b []byte, step int64, wall float64, emit Emit) error {
	var tag []byte
	v, have := 0.0, false
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		switch {
		case num == valueTag && typ == protowire.BytesType:
			t, n := consumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			tag, b = t, b[n:]
			continue
		case num == valueSimpleValue && typ == protowire.Fixed32Type:
			x, n := protowire.ConsumeFixed32(b)
			if n < 0 {
				return errMalformed
			}
			v, have, b = float64(math.Float32frombits(x)), true, b[n:]
			continue
		case num == valueTensor && typ == protowire.BytesType:
			t, n := consumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
			x, ok, err := scalarTensor(t)
			if err != nil {
				return err
			}
			if ok {
				v, have = x, true
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
	}
	if !have {
		return nil // an image, a histogram, a non-scalar tensor
	}
	return d.scalar(tag, step, wall, v, emit)
}

// scalar emits a value of a tag, checked and interned.
func (d *eventDecoder) scalar(tag []byte, step int64, wall, v float64, emit Emit) error {
	s, ok := d.last, string(tag) == d.last && d.last != ""
	if !ok {
		s, ok = d.tags[string(tag)]
	}
	if !ok {
		if !utf8.Valid(tag) || !validTag(string(tag)) {
			return fmt.Errorf("tag %q is not valid UTF-8 text", truncate(tag))
		}
		s = string(tag)
		d.tags[s] = s
	}
	d.last = s
	emit(s, Point{Step: step, Wall: wall, Value: v})
	return nil
}

// scalarTensor returns the value of a tensor holding one float, double or
// half; ok is false for any other tensor.
func scalarTensor(b []byte) (float64, bool, error) {
	dtype := uint64(0)
	var content []byte
	var floats, doubles, halves []byte
	floatOne, doubleOne, halfOne := false, false, false
	var fOne uint32
	var dOne uint64
	var hOne uint64
	elems := int64(1)
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return 0, false, errMalformed
		}
		b = b[n:]
		switch {
		case num == tensorDtype && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, false, errMalformed
			}
			dtype, b = v, b[n:]
			continue
		case num == tensorShape && typ == protowire.BytesType:
			v, n := consumeBytes(b)
			if n < 0 {
				return 0, false, errMalformed
			}
			b = b[n:]
			e, err := shapeElements(v)
			if err != nil {
				return 0, false, err
			}
			elems = e
			continue
		case (num == tensorContent || num == tensorFloat || num == tensorDouble || num == tensorHalf) && typ == protowire.BytesType:
			v, n := consumeBytes(b)
			if n < 0 {
				return 0, false, errMalformed
			}
			b = b[n:]
			switch num {
			case tensorContent:
				content = v
			case tensorFloat:
				floats = v
			case tensorDouble:
				doubles = v
			default:
				halves = v
			}
			continue
		// Unpacked repeated values, as some writers send one.
		case num == tensorFloat && typ == protowire.Fixed32Type:
			v, n := protowire.ConsumeFixed32(b)
			if n < 0 {
				return 0, false, errMalformed
			}
			fOne, floatOne, b = v, true, b[n:]
			continue
		case num == tensorDouble && typ == protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return 0, false, errMalformed
			}
			dOne, doubleOne, b = v, true, b[n:]
			continue
		case num == tensorHalf && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, false, errMalformed
			}
			hOne, halfOne, b = v, true, b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, false, errMalformed
		}
		b = b[n:]
	}
	if elems != 1 {
		return 0, false, nil
	}
	switch dtype {
	case dtFloat:
		switch {
		case len(content) == 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(content))), true, nil
		case len(floats) == 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(floats))), true, nil
		case floatOne:
			return float64(math.Float32frombits(fOne)), true, nil
		}
	case dtDouble:
		switch {
		case len(content) == 8:
			return math.Float64frombits(binary.LittleEndian.Uint64(content)), true, nil
		case len(doubles) == 8:
			return math.Float64frombits(binary.LittleEndian.Uint64(doubles)), true, nil
		case doubleOne:
			return math.Float64frombits(dOne), true, nil
		}
	case dtHalf:
		switch {
		case len(content) == 2:
			return halfToFloat(binary.LittleEndian.Uint16(content)), true, nil
		case len(halves) > 0:
			v, n := protowire.ConsumeVarint(halves)
			if n != len(halves) {
				return 0, false, nil // more than one value
			}
			return halfToFloat(uint16(v)), true, nil
		case halfOne:
			return halfToFloat(uint16(hOne)), true, nil
		}
	}
	return 0, false, nil
}

// shapeElements is the number of elements of a TensorShapeProto (-1 when
// unknown).
func shapeElements(b []byte) (int64, error) {
	elems := int64(1)
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return 0, errMalformed
		}
		b = b[n:]
		if num == shapeDim && typ == protowire.BytesType {
			dim, n := consumeBytes(b)
			if n < 0 {
				return 0, errMalformed
			}
			b = b[n:]
			size := int64(0)
			for len(dim) > 0 {
				dn, dt, m := consumeTag(dim)
				if m < 0 {
					return 0, errMalformed
				}
				dim = dim[m:]
				if dn == dimSize && dt == protowire.VarintType {
					v, m := protowire.ConsumeVarint(dim)
					if m < 0 {
						return 0, errMalformed
					}
					size, dim = int64(v), dim[m:]
					continue
				}
				m = protowire.ConsumeFieldValue(dn, dt, dim)
				if m < 0 {
					return 0, errMalformed
				}
				dim = dim[m:]
			}
			if size != 1 {
				elems = -1 // not one element: not a scalar
			}
			continue
		}
		if num == shapeUnknown && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, errMalformed
			}
			if v != 0 {
				elems = -1
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, errMalformed
		}
		b = b[n:]
	}
	return elems, nil
}

// consumeTag is protowire.ConsumeTag with the one-byte tags of every
// field here decoded inline: it runs several times per record.
func consumeTag(b []byte) (protowire.Number, protowire.Type, int) {
	if len(b) > 0 && b[0] < 0x80 && b[0] >= 8 {
		return protowire.Number(b[0] >> 3), protowire.Type(b[0] & 7), 1
	}
	return protowire.ConsumeTag(b)
}

// consumeBytes is protowire.ConsumeBytes with a one-byte length (a tag, a
// scalar's value or summary) decoded inline.
func consumeBytes(b []byte) ([]byte, int) {
	if len(b) > 0 && b[0] < 0x80 {
		n := int(b[0]) + 1
		if n > len(b) {
			return nil, -1
		}
		return b[1:n], n
	}
	return protowire.ConsumeBytes(b)
}

// halfToFloat converts IEEE 754 binary16 bits to a float64.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24) // subnormal
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return nan
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// truncate shortens what a message quotes from a file.
func truncate(b []byte) string {
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

func isUTF8(s string) bool { return utf8.ValidString(s) }
