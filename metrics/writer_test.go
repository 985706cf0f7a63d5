package metrics

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// A test-only writer of event files, field by field as TensorFlow writes
// them, to make inputs the shared files do not cover.

func appendEvent(b []byte, wall float64, step int64, summary []byte) []byte {
	var ev []byte
	ev = protowire.AppendTag(ev, eventWallTime, protowire.Fixed64Type)
	ev = protowire.AppendFixed64(ev, math.Float64bits(wall))
	ev = protowire.AppendTag(ev, eventStep, protowire.VarintType)
	ev = protowire.AppendVarint(ev, uint64(step))
	if summary != nil {
		ev = protowire.AppendTag(ev, eventSummary, protowire.BytesType)
		ev = protowire.AppendBytes(ev, summary)
	}
	return AppendRecord(b, ev)
}

func fileVersion(b []byte, version string) []byte {
	var ev []byte
	ev = protowire.AppendTag(ev, eventWallTime, protowire.Fixed64Type)
	ev = protowire.AppendFixed64(ev, math.Float64bits(1.7e9))
	ev = protowire.AppendTag(ev, eventFileVersion, protowire.BytesType)
	ev = protowire.AppendString(ev, version)
	return AppendRecord(b, ev)
}

// simpleValue is a Summary with one TF1 scalar.
func simpleValue(tag string, v float32) []byte {
	var val []byte
	val = protowire.AppendTag(val, valueTag, protowire.BytesType)
	val = protowire.AppendString(val, tag)
	val = protowire.AppendTag(val, valueSimpleValue, protowire.Fixed32Type)
	val = protowire.AppendFixed32(val, math.Float32bits(v))
	return summaryOf(val)
}

func summaryOf(values ...[]byte) []byte {
	var s []byte
	for _, v := range values {
		s = protowire.AppendTag(s, summaryValue, protowire.BytesType)
		s = protowire.AppendBytes(s, v)
	}
	return s
}

// tensorValue is a Summary value holding a tensor (TF2 style) with the
// scalars plugin's metadata.
func tensorValue(tag string, tensor []byte) []byte {
	var md, pd []byte
	pd = protowire.AppendTag(pd, 1, protowire.BytesType)
	pd = protowire.AppendString(pd, "scalars")
	md = protowire.AppendTag(md, 1, protowire.BytesType)
	md = protowire.AppendBytes(md, pd)
	var val []byte
	val = protowire.AppendTag(val, valueTag, protowire.BytesType)
	val = protowire.AppendString(val, tag)
	val = protowire.AppendTag(val, 9, protowire.BytesType)
	val = protowire.AppendBytes(val, md)
	val = protowire.AppendTag(val, valueTensor, protowire.BytesType)
	val = protowire.AppendBytes(val, tensor)
	return val
}

// tensor builds a TensorProto: dtype, a shape of dims, and one field of
// values.
func tensor(dtype uint64, dims []int64, field protowire.Number, payload []byte) []byte {
	var t []byte
	t = protowire.AppendTag(t, tensorDtype, protowire.VarintType)
	t = protowire.AppendVarint(t, dtype)
	var shape []byte
	for _, d := range dims {
		var dim []byte
		dim = protowire.AppendTag(dim, dimSize, protowire.VarintType)
		dim = protowire.AppendVarint(dim, uint64(d))
		shape = protowire.AppendTag(shape, shapeDim, protowire.BytesType)
		shape = protowire.AppendBytes(shape, dim)
	}
	t = protowire.AppendTag(t, tensorShape, protowire.BytesType)
	t = protowire.AppendBytes(t, shape)
	t = protowire.AppendTag(t, field, protowire.BytesType)
	return protowire.AppendBytes(t, payload)
}

func f32(v float32) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)) }
func f64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
