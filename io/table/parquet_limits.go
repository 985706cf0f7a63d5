package table

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// Parquet's reader sizes its buffers by what the footer claims: a row
// group's row count is reserved whole before its pages are read, so a
// 258-byte file claiming 10^12 rows crashes the process. checkParquetClaims
// holds every claim to what the file really contains before anything is
// decoded: each column chunk lies inside the file, its pages' headers (read
// here, their bodies skipped) hold as many values as the row group claims
// rows, no page claims to inflate beyond the budget, and the table those
// rows decode to fits in the budget.

// checkParquetClaims checks pf's claims against r, which holds size bytes
// (see above). Its errors are a plain error for corrupt data (decode
// locates it) or a *BudgetError.
func checkParquetClaims(pf *file.Reader, r io.ReaderAt, size int64, source string) error {
	md := pf.MetaData()
	budget := MemoryBudget()
	sc := md.Schema
	var need int64
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		rows := rg.NumRows()
		if rows < 0 {
			return fmt.Errorf("row group %d claims %d rows", g+1, rows)
		}
		if rows == 0 {
			continue // no page is read
		}
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return err
			}
			col := sc.Column(c)
			// Where arrow-go's reader starts.
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
				start = cc.DictionaryPageOffset()
			}
			length := cc.TotalCompressedSize()
			if start < 0 || length < 0 || start > size || length > size-start {
				return fmt.Errorf("column %q of row group %d claims bytes %d to %d of a %d-byte file", col.Name(), g+1, start, start+length, size)
			}
			values, err := pageValues(io.NewSectionReader(r, start, length), length, budget)
			if err != nil {
				var be *BudgetError
				if errors.As(err, &be) {
					return &BudgetError{Source: source, Budget: budget}
				}
				return fmt.Errorf("column %q of row group %d: %v", col.Name(), g+1, err)
			}
			// A flat column has one value (or null) per row; a repeated
			// one at least one level per row.
			if col.MaxRepetitionLevel() == 0 && values != rows || values < rows {
				return fmt.Errorf("row group %d claims %d rows, but the pages of its column %q hold %d values", g+1, rows, col.Name(), values)
			}
			need += rows * valueBytes(col.PhysicalType())
			if need > budget || need < 0 {
				return &BudgetError{Source: source, Budget: budget}
			}
		}
	}
	return nil
}

// valueBytes is the least a decoded value of a Parquet physical type
// takes: its width, or an offset for a string (its bytes come on top).
func valueBytes(t parquet.Type) int64 {
	switch t {
	case parquet.Types.Boolean:
		return 1 // a byte per value while the reader decodes
	case parquet.Types.Int32, parquet.Types.Float, parquet.Types.ByteArray:
		return 4
	case parquet.Types.Int96:
		return 12
	case parquet.Types.FixedLenByteArray:
		return 1
	}
	return 8
}

// Parquet page types (parquet.thrift's PageType).
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3
)

// maxPageHeader bounds a page header: arrow-go's reader refuses larger
// ones too.
const maxPageHeader = 16 << 20

// pageValues walks the pages of a column chunk of length bytes and
// returns the values their headers hold, reading the headers only.
func pageValues(r io.ReaderAt, length, budget int64) (int64, error) {
	var values int64
	buf := make([]byte, 256)
	for off := int64(0); off < length; {
		var h pageHeader
		for {
			n, err := r.ReadAt(buf, off)
			if err != nil && err != io.EOF {
				return 0, err
			}
			p := &thriftReader{b: buf[:n]}
			h = p.pageHeader()
			if p.err == nil {
				h.size = int64(p.pos)
				break
			}
			if p.err != errShort || n < len(buf) || len(buf) >= maxPageHeader {
				return 0, fmt.Errorf("page header at byte %d: %v", off, p.err)
			}
			buf = make([]byte, 2*len(buf))
		}
		if h.compressed < 0 || h.uncompressed < 0 || h.values < 0 {
			return 0, fmt.Errorf("page header at byte %d claims negative sizes", off)
		}
		if int64(h.uncompressed) > budget {
			return 0, &BudgetError{}
		}
		if h.typ == pageData || h.typ == pageDataV2 {
			values += int64(h.values)
		}
		off += h.size + int64(h.compressed)
		if off > length {
			return 0, fmt.Errorf("a page ends at byte %d of a %d-byte column chunk", off, length)
		}
	}
	return values, nil
}

// pageHeader is what checkParquetClaims reads of parquet.thrift's
// PageHeader.
type pageHeader struct {
	typ, uncompressed, compressed, values int32
	size                                  int64 // of the header itself
}

var errShort = errors.New("cut short")

// thriftReader reads Thrift's compact protocol, the encoding of Parquet's
// headers, from b.
type thriftReader struct {
	b     []byte
	pos   int
	err   error
	depth int
}

func (t *thriftReader) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

func (t *thriftReader) byte() byte {
	if t.pos >= len(t.b) {
		t.fail(errShort)
		return 0
	}
	c := t.b[t.pos]
	t.pos++
	return c
}

func (t *thriftReader) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := t.byte()
		if t.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	t.fail(errors.New("varint too long"))
	return 0
}

func (t *thriftReader) varint() int64 {
	u := t.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (t *thriftReader) i32() int32 {
	v := t.varint()
	if int64(int32(v)) != v {
		t.fail(errors.New("an i32 out of range"))
	}
	return int32(v)
}

// Compact protocol types.
const (
	ctStop = iota
	ctTrue
	ctFalse
	ctByte
	ctI16
	ctI32
	ctI64
	ctDouble
	ctBinary
	ctList
	ctSet
	ctMap
	ctStruct
)

// fields calls field for each field of a struct, by id and type, and
// stops at its end; field must read or skip the value.
func (t *thriftReader) fields(field func(id int16, typ byte)) {
	if t.depth++; t.depth > 32 {
		t.fail(errors.New("nested too deep"))
		return
	}
	defer func() { t.depth-- }()
	var id int16
	for t.err == nil {
		h := t.byte()
		typ := h & 0x0f
		if typ == ctStop {
			return
		}
		if d := h >> 4; d != 0 {
			id += int16(d)
		} else {
			id = int16(t.varint())
		}
		field(id, typ)
	}
}

// skip skips a value of type typ.
func (t *thriftReader) skip(typ byte) {
	switch typ {
	case ctTrue, ctFalse:
	case ctByte:
		t.byte()
	case ctI16, ctI32, ctI64:
		t.varint()
	case ctDouble:
		t.advance(8)
	case ctBinary:
		t.advance(t.uvarint())
	case ctList, ctSet:
		h := t.byte()
		n := uint64(h >> 4)
		if n == 15 {
			n = t.uvarint()
		}
		for i := uint64(0); i < n && t.err == nil; i++ {
			t.skipElement(h & 0x0f)
		}
	case ctMap:
		n := t.uvarint()
		if n > 0 {
			kv := t.byte()
			for i := uint64(0); i < n && t.err == nil; i++ {
				t.skipElement(kv >> 4)
				t.skipElement(kv & 0x0f)
			}
		}
	case ctStruct:
		t.fields(func(_ int16, typ byte) { t.skip(typ) })
	default:
		t.fail(fmt.Errorf("unknown type %d", typ))
	}
}

// skipElement skips an element of a list or map, where a bool takes a
// byte.
func (t *thriftReader) skipElement(typ byte) {
	if typ == ctTrue || typ == ctFalse {
		t.byte()
		return
	}
	t.skip(typ)
}

func (t *thriftReader) advance(n uint64) {
	if n > uint64(len(t.b)-t.pos) {
		t.fail(errShort)
		return
	}
	t.pos += int(n)
}

// pageHeader reads a PageHeader: type (1), uncompressed_page_size (2),
// compressed_page_size (3), and the num_values (1) of data_page_header (5)
// or data_page_header_v2 (8).
func (t *thriftReader) pageHeader() pageHeader {
	h := pageHeader{typ: -1}
	t.fields(func(id int16, typ byte) {
		switch {
		case id == 1 && typ == ctI32:
			h.typ = t.i32()
		case id == 2 && typ == ctI32:
			h.uncompressed = t.i32()
		case id == 3 && typ == ctI32:
			h.compressed = t.i32()
		case (id == 5 || id == 8) && typ == ctStruct:
			t.fields(func(id int16, typ byte) {
				if id == 1 && typ == ctI32 {
					h.values = t.i32()
				} else {
					t.skip(typ)
				}
			})
		default:
			t.skip(typ)
		}
	})
	if t.err == nil && h.typ < 0 {
		t.fail(errors.New("no page type"))
	}
	return h
}
