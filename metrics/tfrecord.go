package metrics

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sync"
)

// TFRecord framing (tensorflow/core/lib/io/record_writer.cc): each record
// is
//
//	uint64 length, little-endian
//	uint32 masked CRC32C of the length's 8 bytes
//	byte   data[length]
//	uint32 masked CRC32C of the data
//
// where the mask is ((crc >> 15) | (crc << 17)) + 0xa282ead8, CRC32C being
// the Castagnoli polynomial.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const crcMaskDelta = 0xa282ead8

func maskCRC(crc uint32) uint32 { return (crc>>15 | crc<<17) + crcMaskDelta }

// MaskedCRC is the masked CRC32C of b, as TFRecord stores it.
func MaskedCRC(b []byte) uint32 { return maskCRC(crc32.Checksum(b, castagnoli)) }

const (
	recordHeader = 12 // length and its CRC
	recordFooter = 4  // the data's CRC
	// maxDecoded is the largest record decoded; larger ones (graphs,
	// images) are checked by streaming through them and skipped, so no
	// buffer grows past it.
	maxDecoded = 16 << 20
	readBuffer = 1 << 20
)

// recordReader reads the records of one TFRecord file without ever
// allocating more than the file holds: a length is trusted only once its
// CRC matched and it fits in what is left of the file.
type recordReader struct {
	name      string
	r         io.Reader
	buf       []byte
	start     int   // first unread byte of buf
	end       int   // end of valid bytes in buf
	off       int64 // file offset of buf[start]
	remaining int64 // bytes of the file not read into buf yet
	big       []byte
	pooled    *[]byte
	// The last record header whose CRC matched: the next record's is
	// usually the same 12 bytes (records of one kind have one length),
	// and the same bytes need no second check.
	lastHeader    uint64
	lastHeaderCRC uint32
	haveHeader    bool
}

// buffers recycles read buffers across files: thousands of jobs' files
// are read one after another.
var buffers = sync.Pool{New: func() any { b := make([]byte, readBuffer); return &b }}

func newRecordReader(name string, r io.Reader, size int64) *recordReader {
	rr := &recordReader{name: name, r: r, remaining: size}
	rr.pooled = buffers.Get().(*[]byte)
	rr.buf = *rr.pooled
	return rr
}

// release returns the reader's buffer for the next file.
func (rr *recordReader) release() {
	if rr.pooled != nil {
		buffers.Put(rr.pooled)
		rr.pooled, rr.buf = nil, nil
	}
}

// fill makes at least n bytes available in buf[start:end] (n <= len(buf)),
// reporting false when the file ends first.
func (rr *recordReader) fill(n int) (bool, error) {
	if rr.end-rr.start >= n {
		return true, nil
	}
	if rr.start > 0 {
		rr.end = copy(rr.buf, rr.buf[rr.start:rr.end])
		rr.start = 0
	}
	for rr.end < n && rr.remaining > 0 {
		want := len(rr.buf) - rr.end
		if int64(want) > rr.remaining {
			want = int(rr.remaining)
		}
		m, err := rr.r.Read(rr.buf[rr.end : rr.end+want])
		rr.end += m
		rr.remaining -= int64(m)
		if err == io.EOF {
			rr.remaining = 0 // the file shrank: it ends here
			break
		}
		if err != nil {
			return false, err
		}
	}
	return rr.end >= n, nil
}

func (rr *recordReader) consume(n int) {
	rr.start += n
	rr.off += int64(n)
}

// errEnd says the file ends here: at a record boundary, or in a record that
// a writer is still writing.
var errEnd = errors.New("end of records")

// errSkipped marks a record whose framing is sound but whose data did not
// match its CRC: it is skipped and the next one read.
type errSkipped struct{ e *Error }

func (e errSkipped) Error() string { return e.e.Error() }

// next returns the next record's data (valid until the next call; nil for
// a record too large to decode, which has been checked and skipped) and
// its offset. It returns errEnd at the end of the file, errSkipped for a
// record whose data CRC failed, and an *Error when the framing is broken
// (the rest of the file cannot be found).
func (rr *recordReader) next() ([]byte, int64, error) {
	ok, err := rr.fill(recordHeader)
	if err != nil {
		return nil, rr.off, err
	}
	at := rr.off
	if !ok {
		return nil, at, errEnd // a header not yet written whole
	}
	h := rr.buf[rr.start : rr.start+recordHeader]
	length, stored := binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint32(h[8:12])
	if !rr.haveHeader || length != rr.lastHeader || stored != rr.lastHeaderCRC {
		if MaskedCRC(h[:8]) != stored {
			return nil, at, &Error{File: rr.name, Offset: at, Msg: "the record length's CRC32C does not match: not a TFRecord file, or corrupted here (the rest of the file cannot be framed)"}
		}
		rr.lastHeader, rr.lastHeaderCRC, rr.haveHeader = length, stored, true
	}
	left := uint64(rr.end-rr.start-recordHeader) + uint64(rr.remaining)
	if length > left || left-length < recordFooter {
		// A length whose CRC matched and that runs past the end: the
		// writer has not finished this record. It is where the file ends
		// for now.
		return nil, at, errEnd
	}
	rr.consume(recordHeader)
	total := int(length) + recordFooter
	if length <= maxDecoded {
		var data []byte
		if total <= len(rr.buf) {
			if ok, err := rr.fill(total); err != nil || !ok {
				return nil, at, endOr(err)
			}
			data = rr.buf[rr.start : rr.start+total]
		} else {
			if cap(rr.big) < total {
				rr.big = make([]byte, total) // bounded: length fits in the file
			}
			data = rr.big[:total]
			n := copy(data, rr.buf[rr.start:rr.end])
			rr.start, rr.end = 0, 0
			if _, err := io.ReadFull(rr.r, data[n:]); err != nil {
				return nil, at, endOr(err)
			}
			rr.remaining -= int64(total - n)
			rr.start, rr.end = 0, 0
			rr.off += int64(total)
			return checkData(rr.name, at, data, int(length))
		}
		rr.consume(total)
		return checkData(rr.name, at, data, int(length))
	}
	// Too large to decode: stream it through the CRC.
	crc := uint32(0)
	need := int64(length)
	for need > 0 {
		if ok, err := rr.fill(1); err != nil || !ok {
			return nil, at, endOr(err)
		}
		n := rr.end - rr.start
		if int64(n) > need {
			n = int(need)
		}
		crc = crc32.Update(crc, castagnoli, rr.buf[rr.start:rr.start+n])
		rr.consume(n)
		need -= int64(n)
	}
	if ok, err := rr.fill(recordFooter); err != nil || !ok {
		return nil, at, endOr(err)
	}
	stored = binary.LittleEndian.Uint32(rr.buf[rr.start:])
	rr.consume(recordFooter)
	if maskCRC(crc) != stored {
		return nil, at, errSkipped{&Error{File: rr.name, Offset: at, Msg: "the record data's CRC32C does not match: record skipped"}}
	}
	return nil, at, nil
}

func endOr(err error) error {
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		return errEnd
	}
	return err
}

func checkData(name string, at int64, data []byte, length int) ([]byte, int64, error) {
	if MaskedCRC(data[:length]) != binary.LittleEndian.Uint32(data[length:]) {
		return nil, at, errSkipped{&Error{File: name, Offset: at, Msg: "the record data's CRC32C does not match: record skipped"}}
	}
	return data[:length], at, nil
}

// AppendRecord appends data framed as one TFRecord record to b.
func AppendRecord(b, data []byte) []byte {
	var h [recordHeader]byte
	binary.LittleEndian.PutUint64(h[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(h[8:], MaskedCRC(h[:8]))
	b = append(b, h[:]...)
	b = append(b, data...)
	return binary.LittleEndian.AppendUint32(b, MaskedCRC(data))
}
