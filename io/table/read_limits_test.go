package table

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A corrupt Arrow stream whose length fields claim more than the input
// holds is rejected without allocating what they claim (found by
// FuzzReadArrowStream: a 2 kB tail of a stream made the reader allocate
// about 1 GB).
func TestArrowLengthsBeyondInputAllocateNothing(t *testing.T) {
	tb := sampleJobs(t)
	var stream, file bytes.Buffer
	if err := Write(&stream, ArrowStream, tb); err != nil {
		t.Fatal(err)
	}
	if err := Write(&file, ArrowFile, tb); err != nil {
		t.Fatal(err)
	}
	s := stream.Bytes()
	// Metadata length: the int32 after the continuation marker.
	bigMeta := bytes.Clone(s)
	binary.LittleEndian.PutUint32(bigMeta[4:], 60<<20)
	cases := []struct {
		name   string
		data   []byte
		format Format
	}{
		{"stream tail", s[len(s)/3:], ArrowStream},
		{"metadata length", bigMeta, ArrowStream},
		{"legacy metadata length", bigMeta[4:], ArrowStream},
	}
	for _, c := range cases {
		var err error
		n := allocated(func() { _, err = Decode(c.data, c.format, "in", nil) })
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "in: ") {
			t.Errorf("%s: error %q", c.name, err)
		}
		if n > 16<<20 {
			t.Errorf("%s: a %d-byte input allocated %d MB (%v)", c.name, len(c.data), n>>20, err)
		}
	}
}

// streamMessage locates one message of an Arrow IPC stream.
type streamMessage struct{ meta, body []byte }

func streamMessages(t *testing.T, data []byte) []streamMessage {
	t.Helper()
	var out []streamMessage
	for p := 0; p+8 <= len(data); {
		n := int(binary.LittleEndian.Uint32(data[p+4:]))
		if n == 0 {
			break
		}
		meta := data[p+8 : p+8+n]
		f := &fbuf{b: meta, budget: 1 << 20}
		m := f.root()
		body := 0
		if v := m.slot(3); v != 0 {
			body = int(binary.LittleEndian.Uint64(meta[m.field(v, 8):]))
		}
		out = append(out, streamMessage{meta, data[p+8+n : p+8+n+body]})
		p += 8 + n + body
	}
	return out
}

// header is the Message's header table (Schema or RecordBatch).
func header(meta []byte) table {
	f := &fbuf{b: meta, budget: 1 << 20}
	h, _ := f.root().subtable(2)
	return h
}

func put32(b []byte, p int, v uint32) { binary.LittleEndian.PutUint32(b[p:], v) }

// Arrow's reader trusts the lengths inside its flatbuffer metadata; the Go
// runtime cannot recover from what some of them make it do (found by
// FuzzReadArrowStream: a corrupt vector length made it allocate 360 GB).
// Each case here crashed the process before the input was checked.
func TestArrowMetadataThatWouldCrashTheReader(t *testing.T) {
	tb := sampleJobs(t)
	var stream bytes.Buffer
	if err := Write(&stream, ArrowStream, tb); err != nil {
		t.Fatal(err)
	}
	valid := stream.Bytes()

	corrupt := func(name, want string, edit func(msgs []streamMessage)) {
		t.Helper()
		data := bytes.Clone(valid)
		edit(streamMessages(t, data))
		var err error
		n := allocated(func() { _, err = Decode(data, ArrowStream, "in", nil) })
		switch {
		case err == nil:
			t.Errorf("%s: accepted", name)
		case !strings.Contains(err.Error(), want):
			t.Errorf("%s: error %q, want it to say %q", name, err, want)
		case n > 16<<20:
			t.Errorf("%s: allocated %d MB", name, n>>20)
		}
	}
	corrupt("schema fields length", "a vector of 4294967295 elements", func(m []streamMessage) {
		p, _ := header(m[0].meta).ref(1)
		put32(m[0].meta, int(p), 0xffffffff)
	})
	corrupt("field children form a cycle", "corrupt message metadata", func(m []streamMessage) {
		s := header(m[0].meta)
		start, _, _ := s.vector(1, 4)
		e := uint32(start)
		field := e + s.f.u32(e)
		fld := s.f.table(field)
		p, _ := fld.ref(5) // children: one child, the field itself
		put32(m[0].meta, int(p), 1)
		put32(m[0].meta, int(p)+4, field-(p+4))
	})
	corrupt("record batch rows", "a record batch claims 1099511627776 rows", func(m []streamMessage) {
		rb := header(m[1].meta)
		binary.LittleEndian.PutUint64(m[1].meta[rb.field(rb.slot(0), 8):], 1<<40)
	})
	corrupt("column length", "a column claims 1099511627776 values", func(m []streamMessage) {
		start, _, _ := header(m[1].meta).vector(1, 16)
		binary.LittleEndian.PutUint64(m[1].meta[start:], 1<<40)
	})
}

// A compressed buffer's uncompressed size is allocated as claimed, so a
// claim beyond what the input can inflate to is rejected first.
func TestArrowCompressedSizeBeyondInput(t *testing.T) {
	tb := sampleJobs(t)
	rec := tb.Record()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()), ipc.WithLZ4())
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Compressed Arrow is valid input (pyarrow writes LZ4 Feather files).
	back, err := Decode(buf.Bytes(), ArrowStream, "in", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(tb, back); d != "" {
		t.Fatal(d)
	}
	data := bytes.Clone(buf.Bytes())
	msgs := streamMessages(t, data)
	rb := header(msgs[1].meta)
	start, count, _ := rb.vector(2, 16)
	changed := false
	for i := 0; i < count && !changed; i++ {
		e := start + 16*i
		off := binary.LittleEndian.Uint64(msgs[1].meta[e:])
		if binary.LittleEndian.Uint64(msgs[1].meta[e+8:]) >= 8 {
			binary.LittleEndian.PutUint64(msgs[1].body[off:], 1<<40)
			changed = true
		}
	}
	if !changed {
		t.Fatal("no compressed buffer found")
	}
	var derr error
	n := allocated(func() { _, derr = Decode(data, ArrowStream, "in", nil) })
	if derr == nil || !strings.Contains(derr.Error(), "claims 1099511627776 bytes uncompressed") {
		t.Errorf("error %v", derr)
	}
	if n > 16<<20 {
		t.Errorf("allocated %d MB", n>>20)
	}
}
