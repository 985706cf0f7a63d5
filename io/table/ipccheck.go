package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The Arrow IPC reader trusts the lengths in its input's flatbuffer
// metadata: a corrupt vector length makes it allocate terabytes, offsets
// that form a cycle make it recurse without end, a compressed buffer's
// claimed uncompressed size is allocated as given, and a record batch's row
// count sizes what is built from it. The Go runtime cannot recover from
// running out of memory or stack, so checkArrowStream and checkArrowFile walk
// the input first and reject exactly those cases; everything else that is
// wrong is left to the Arrow reader, whose errors and panics Decode reports.
//
// The walk mirrors the reader's arithmetic (github.com/google/flatbuffers
// offsets are uint32 and wrap) and the layout of Arrow's Message.fbs,
// Schema.fbs and File.fbs.

// Row and memory bounds. Every column but one of Arrow's null type takes at
// least a bit per row of (uncompressed) buffer, so a table has at most eight
// rows per byte; compressed buffers may inflate, but only so far.
const (
	inflateFactor = 64       // compressed buffers: uncompressed bytes per input byte
	inflateBase   = 64 << 20 // plus this much
	maxFieldDepth = 64       // nested types deeper than this are not optimus tables
)

type ipcWalk struct {
	data        []byte
	inflateLeft int64 // uncompressed bytes compressed buffers may still claim
	inflated    int64 // uncompressed bytes they have claimed
	rows        int64 // rows of all record and dictionary batches so far
}

func newIPCWalk(data []byte) *ipcWalk {
	return &ipcWalk{data: data, inflateLeft: inflateBase + inflateFactor*int64(len(data))}
}

// rowLimit bounds the rows of all batches together.
func (w *ipcWalk) rowLimit() int64 { return 8 * (int64(len(w.data)) + w.inflated) }

// checkArrowStream walks the messages of an Arrow IPC stream. A stream
// must end with its end-of-stream marker, as every Arrow writer ends one
// it closes: a stream cut after its schema (the command upstream died) is
// not an empty table, and one cut inside a message is not corrupt but
// truncated (errTruncated).
func checkArrowStream(data []byte) error {
	w := newIPCWalk(data)
	p := 0
	for len(data)-p >= 4 {
		cont := binary.LittleEndian.Uint32(data[p:])
		var metaLen int32
		switch cont {
		case 0:
			return checkStreamEnd(data, p+4) // end of stream (before Arrow 0.15)
		case 0xffffffff:
			if len(data)-p < 8 {
				return truncatedf("the stream stops inside a message header")
			}
			metaLen = int32(binary.LittleEndian.Uint32(data[p+4:]))
			if metaLen == 0 {
				return checkStreamEnd(data, p+8) // end of stream
			}
			p += 8
		default: // a stream written before Arrow 0.15: no continuation marker
			metaLen = int32(cont)
			p += 4
		}
		if metaLen < 4 {
			return nil // the reader rejects it before allocating
		}
		if int64(metaLen) > int64(len(data)-p) {
			return truncatedf("a message's metadata needs %d bytes, %d remain", metaLen, len(data)-p)
		}
		meta := data[p : p+int(metaLen)]
		p += int(metaLen)
		bodyLen, err := checkMessageFlatbuf(meta)
		if err != nil {
			return err
		}
		if bodyLen < 0 {
			return nil // the reader rejects it before allocating
		}
		if bodyLen > int64(len(data)-p) {
			return truncatedf("a message's body needs %d bytes, %d remain", bodyLen, len(data)-p)
		}
		body := data[p : p+int(bodyLen)]
		p += int(bodyLen)
		if err := w.checkMessage(meta, body); err != nil {
			return err
		}
	}
	if p == len(data) {
		return truncatedf("the stream ends after a whole message, without its end-of-stream marker")
	}
	return truncatedf("the stream stops inside a message header")
}

// checkStreamEnd refuses data after a stream's end-of-stream marker,
// which ends at byte end: the reader would stop at the marker and drop
// it, silently (a second table concatenated onto the first, say).
func checkStreamEnd(data []byte, end int) error {
	if extra := len(data) - end; extra > 0 {
		what := "data"
		if bytes.HasPrefix(data[end:], arrowStreamMagic) {
			what = "another Arrow IPC stream (two tables concatenated?)"
		}
		return fmt.Errorf("%d bytes of %s follow its end-of-stream marker, from byte %d: one input holds one table", extra, what, end)
	}
	return nil
}

// errTruncated marks an Arrow stream that ends before its end-of-stream
// marker.
var errTruncated = errors.New("truncated")

type truncatedError struct{ detail string }

func (e *truncatedError) Error() string { return "truncated: " + e.detail }
func (e *truncatedError) Unwrap() error { return errTruncated }

func truncatedf(format string, args ...any) error {
	return &truncatedError{detail: fmt.Sprintf(format, args...)}
}

// checkArrowFile walks the footer of an Arrow IPC file and the messages its
// blocks point to.
func checkArrowFile(data []byte) error {
	const tail = 10 // footer length (int32) and "ARROW1"
	n := len(data)
	if n <= 2*len(arrowFileMagic)+4 || string(data[n-len(arrowFileMagic):]) != string(arrowFileMagic) {
		return nil
	}
	size := int64(binary.LittleEndian.Uint32(data[n-tail:]))
	if size <= 0 || size+int64(2*len(arrowFileMagic)+4) > int64(n) {
		return nil
	}
	footer := data[n-tail-int(size) : n-tail]
	f := &fbuf{b: footer, budget: len(footer)/4 + 16}
	var blocks [][3]int64
	err := f.run("file footer", func() {
		t := f.root()
		if s, ok := t.subtable(1); ok {
			checkSchemaTable(s)
		}
		for _, slot := range []int{2, 3} { // dictionaries, recordBatches
			start, count, ok := t.vector(slot, 24)
			for i := 0; ok && i < count; i++ {
				e := start + 24*i
				blocks = append(blocks, [3]int64{
					int64(binary.LittleEndian.Uint64(footer[e:])),
					int64(int32(binary.LittleEndian.Uint32(footer[e+8:]))),
					int64(binary.LittleEndian.Uint64(footer[e+16:])),
				})
			}
		}
		t.keyValues(4)
	})
	if err != nil {
		return err
	}
	w := newIPCWalk(data)
	for _, b := range blocks {
		offset, metaLen, bodyLen := b[0], b[1], b[2]
		if offset < 0 || metaLen < 8 || bodyLen < 0 || offset > int64(n) || metaLen > int64(n)-offset || bodyLen > int64(n)-offset-metaLen {
			continue // the reader rejects the block
		}
		meta := data[offset : offset+metaLen]
		prefix := 8
		if binary.LittleEndian.Uint32(meta) != 0xffffffff {
			prefix = 4
		}
		meta = meta[prefix:]
		if _, err := checkMessageFlatbuf(meta); err != nil {
			return err
		}
		if err := w.checkMessage(meta, data[offset+metaLen:offset+metaLen+bodyLen]); err != nil {
			return err
		}
	}
	return nil
}

// checkMessageFlatbuf checks a Message flatbuffer's structure and returns
// its body length.
func checkMessageFlatbuf(meta []byte) (bodyLen int64, err error) {
	f := &fbuf{b: meta, budget: len(meta)/4 + 16}
	err = f.run("message metadata", func() {
		t := f.root()
		if v := t.slot(3); v != 0 {
			p := t.field(v, 8)
			bodyLen = int64(binary.LittleEndian.Uint64(meta[p:]))
		}
		t.keyValues(4)
		h, ok := t.subtable(2)
		if !ok {
			return
		}
		switch t.u8(1) {
		case 1: // Schema
			checkSchemaTable(h)
		case 2: // DictionaryBatch
			if rb, ok := h.subtable(1); ok {
				checkRecordBatchTable(rb)
			}
		case 3: // RecordBatch
			checkRecordBatchTable(h)
		}
	})
	return bodyLen, err
}

// checkMessage bounds what a checked message makes the reader allocate: its
// rows, and the uncompressed sizes of its compressed buffers.
func (w *ipcWalk) checkMessage(meta, body []byte) error {
	f := &fbuf{b: meta, budget: len(meta)/4 + 16}
	return f.run("message", func() {
		t := f.root()
		h, ok := t.subtable(2)
		if !ok {
			return
		}
		var rb table
		switch t.u8(1) {
		case 2:
			if rb, ok = h.subtable(1); !ok {
				return
			}
		case 3:
			rb = h
		default:
			return
		}
		if _, ok := rb.subtable(3); ok { // compression
			start, count, _ := rb.vector(2, 16)
			for i := 0; i < count; i++ {
				e := start + 16*i
				off := int64(binary.LittleEndian.Uint64(meta[e:]))
				n := int64(binary.LittleEndian.Uint64(meta[e+8:]))
				if off < 0 || n < 8 || off > int64(len(body)) || n > int64(len(body))-off {
					continue // the reader fails on it before inflating
				}
				size := int64(binary.LittleEndian.Uint64(body[off:]))
				if size == -1 {
					continue // stored uncompressed
				}
				if size < 0 || size > w.inflateLeft {
					f.fail("a compressed buffer claims %d bytes uncompressed, more than the input can hold", size)
				}
				w.inflateLeft -= size
				w.inflated += size
			}
		}
		if v := rb.slot(0); v != 0 {
			p := rb.field(v, 8)
			rows := int64(binary.LittleEndian.Uint64(meta[p:]))
			if rows < 0 || rows > w.rowLimit()-w.rows {
				f.fail("a record batch claims %d rows, more than the input can hold", rows)
			}
			w.rows += rows
		}
		start, count, _ := rb.vector(1, 16) // field nodes: length, null count
		for i := 0; i < count; i++ {
			if n := int64(binary.LittleEndian.Uint64(meta[start+16*i:])); n < 0 || n > w.rowLimit() {
				f.fail("a column claims %d values, more than the input can hold", n)
			}
		}
	})
}

func checkSchemaTable(s table) {
	s.tables(1, func(fld table) { checkFieldTable(fld, 0) })
	s.keyValues(2)
	s.vector(3, 8) // features
}

func checkFieldTable(t table, depth int) {
	if depth > maxFieldDepth {
		t.f.fail("types nested deeper than %d", maxFieldDepth)
	}
	t.vector(0, 1) // name
	if typ, ok := t.subtable(3); ok {
		switch t.u8(2) {
		case 10: // Timestamp: time zone
			typ.vector(1, 1)
		case 14: // Union: type ids
			typ.vector(1, 4)
		}
	}
	if d, ok := t.subtable(4); ok { // dictionary encoding
		d.subtable(1)
	}
	t.tables(5, func(c table) { checkFieldTable(c, depth+1) })
	t.keyValues(6)
}

func checkRecordBatchTable(t table) {
	t.vector(1, 16) // nodes
	t.vector(2, 16) // buffers
	t.subtable(3)   // compression
	t.vector(4, 8)  // variadic buffer counts
}

// fbuf walks a flatbuffer, failing (through a panic that run turns into an
// error) where an offset or length points outside it, and after visiting
// more tables than it can hold without sharing (offsets forming a cycle).
type fbuf struct {
	b      []byte
	budget int
}

type fbError struct{ msg string }

func (f *fbuf) fail(format string, args ...any) { panic(fbError{fmt.Sprintf(format, args...)}) }

func (f *fbuf) run(what string, walk func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(fbError)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("corrupt %s: %s", what, e.msg)
		}
	}()
	walk()
	return nil
}

// need fails unless n bytes at p lie inside the buffer.
func (f *fbuf) need(p uint32, n int) int {
	if int64(p)+int64(n) > int64(len(f.b)) {
		f.fail("offset %d beyond its %d bytes", p, len(f.b))
	}
	return int(p)
}

func (f *fbuf) u32(p uint32) uint32 { return binary.LittleEndian.Uint32(f.b[f.need(p, 4):]) }

func (f *fbuf) root() table { return f.table(f.u32(0)) }

// table is a flatbuffer table at pos with its vtable at vt.
type table struct {
	f       *fbuf
	pos, vt uint32
	vtSize  uint32
}

func (f *fbuf) table(pos uint32) table {
	if f.budget--; f.budget < 0 {
		f.fail("more tables than it can hold (offsets form a cycle)")
	}
	soff := int32(f.u32(pos))
	vt := uint32(int32(pos) - soff)
	vtSize := uint32(binary.LittleEndian.Uint16(f.b[f.need(vt, 2):]))
	return table{f: f, pos: pos, vt: vt, vtSize: vtSize}
}

// slot is the offset of field i within the table, 0 when absent.
func (t table) slot(i int) uint32 {
	o := uint32(4 + 2*i)
	if o >= t.vtSize {
		return 0
	}
	return uint32(binary.LittleEndian.Uint16(t.f.b[t.f.need(t.vt+o, 2):]))
}

// field is the position of a present field of size bytes.
func (t table) field(v uint32, size int) int { return t.f.need(t.pos+v, size) }

func (t table) u8(i int) byte {
	v := t.slot(i)
	if v == 0 {
		return 0
	}
	return t.f.b[t.field(v, 1)]
}

// ref follows the offset in field i.
func (t table) ref(i int) (uint32, bool) {
	v := t.slot(i)
	if v == 0 {
		return 0, false
	}
	p := t.pos + v
	return p + t.f.u32(p), true
}

func (t table) subtable(i int) (table, bool) {
	p, ok := t.ref(i)
	if !ok {
		return table{}, false
	}
	return t.f.table(p), true
}

// vector checks the vector in field i, of elements of elem bytes, and
// returns where its elements start and how many there are.
func (t table) vector(i, elem int) (start, count int, ok bool) {
	p, ok := t.ref(i)
	if !ok {
		return 0, 0, false
	}
	n := t.f.u32(p)
	if int64(n)*int64(elem) > int64(len(t.f.b))-int64(p)-4 {
		t.f.fail("a vector of %d elements beyond its %d bytes", n, len(t.f.b))
	}
	return int(p) + 4, int(n), true
}

// tables checks a vector of tables, calling each for every one.
func (t table) tables(i int, each func(table)) {
	start, n, _ := t.vector(i, 4)
	for k := 0; k < n; k++ {
		e := uint32(start + 4*k)
		each(t.f.table(e + t.f.u32(e)))
	}
}

// keyValues checks a vector of KeyValue tables (custom metadata).
func (t table) keyValues(i int) {
	t.tables(i, func(kv table) {
		kv.vector(0, 1)
		kv.vector(1, 1)
	})
}
