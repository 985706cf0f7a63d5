package table

import (
	"bytes"
	"encoding/binary"
)

// Hostile Parquet files are written here byte by byte, footer included, so
// that a test can claim anything (10^12 rows, pages of 2x10^8 values)
// without allocating what the claims describe. Only what arrow-go's reader
// needs is written: required INT64 columns, uncompressed version 1 pages,
// one row group.

// thriftWriter writes Thrift's compact protocol.
type thriftWriter struct {
	b    bytes.Buffer
	last []int16 // the last field id of each open struct
}

func (w *thriftWriter) uvarint(v uint64) { w.b.Write(binary.AppendUvarint(nil, v)) }
func (w *thriftWriter) varint(v int64)   { w.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

func (w *thriftWriter) field(id int16, typ byte) {
	top := &w.last[len(w.last)-1]
	w.b.WriteByte(byte(id-*top)<<4 | typ)
	*top = id
}

func (w *thriftWriter) begin()                { w.last = append(w.last, 0) }
func (w *thriftWriter) end()                  { w.b.WriteByte(ctStop); w.last = w.last[:len(w.last)-1] }
func (w *thriftWriter) i32(id int16, v int32) { w.field(id, ctI32); w.varint(int64(v)) }
func (w *thriftWriter) i64(id int16, v int64) { w.field(id, ctI64); w.varint(v) }
func (w *thriftWriter) str(id int16, s string) {
	w.field(id, ctBinary)
	w.uvarint(uint64(len(s)))
	w.b.WriteString(s)
}

// list opens a list field of n elements of type typ.
func (w *thriftWriter) list(id int16, typ byte, n int) {
	w.field(id, ctList)
	if n < 15 {
		w.b.WriteByte(byte(n)<<4 | typ)
		return
	}
	w.b.WriteByte(0xf0 | typ)
	w.uvarint(uint64(n))
}

// craftColumn is one INT64 column: its pages' bytes (headers and bodies,
// from pagePlain and pageRLE), where its data page starts within them,
// and the values its metadata claims.
type craftColumn struct {
	name          string
	pages         []byte
	dataPage      int  // offset of the data page within pages
	hasDictionary bool // pages start with a dictionary page
	values        int64
}

// pageHeader writes a PageHeader.
func craftPageHeader(typ int32, bodyLen int, values int32, encoding int32) []byte {
	var w thriftWriter
	w.begin()
	w.i32(1, typ)
	w.i32(2, int32(bodyLen))
	w.i32(3, int32(bodyLen))
	if typ == pageDictionary {
		w.field(7, ctStruct)
		w.begin()
		w.i32(1, values)
		w.i32(2, 0) // PLAIN
		w.end()
	} else {
		w.field(5, ctStruct)
		w.begin()
		w.i32(1, values)
		w.i32(2, encoding)
		w.i32(3, 3) // RLE levels
		w.i32(4, 3)
		w.end()
	}
	w.end()
	return w.b.Bytes()
}

// plainColumn is a column of vals, PLAIN-encoded, whose data page header
// says it holds pageValues values and whose metadata claims claimed.
func plainColumn(name string, vals []int64, pageValues int32, claimed int64) craftColumn {
	body := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		body = binary.LittleEndian.AppendUint64(body, uint64(v))
	}
	pages := append(craftPageHeader(pageData, len(body), pageValues, 0), body...)
	return craftColumn{name: name, pages: pages, values: claimed}
}

// rleColumn is a column of n copies of v: a dictionary page of one value
// and a data page of one RLE run of indices (bit width 1).
func rleColumn(name string, v int64, n int32) craftColumn {
	dict := binary.LittleEndian.AppendUint64(nil, uint64(v))
	pages := append(craftPageHeader(pageDictionary, len(dict), 1, 0), dict...)
	data := append([]byte{1}, binary.AppendUvarint(nil, uint64(n)<<1)...)
	data = append(data, 0)
	at := len(pages)
	pages = append(pages, craftPageHeader(pageData, len(data), n, 8)...) // RLE_DICTIONARY
	pages = append(pages, data...)
	return craftColumn{name: name, pages: pages, dataPage: at, hasDictionary: true, values: int64(n)}
}

// craftParquet writes a Parquet file of one row group claiming rows rows.
func craftParquet(rows int64, cols ...craftColumn) []byte {
	var out bytes.Buffer
	out.WriteString("PAR1")
	offsets := make([]int64, len(cols))
	for i, c := range cols {
		offsets[i] = int64(out.Len())
		out.Write(c.pages)
	}
	var w thriftWriter
	w.begin()
	w.i32(1, 1)
	w.list(2, ctStruct, len(cols)+1)
	w.begin()
	w.str(4, "schema")
	w.i32(5, int32(len(cols)))
	w.end()
	for _, c := range cols {
		w.begin()
		w.i32(1, 2) // INT64
		w.i32(3, 0) // REQUIRED
		w.str(4, c.name)
		w.end()
	}
	w.i64(3, rows)
	w.list(4, ctStruct, 1)
	w.begin()
	w.list(1, ctStruct, len(cols))
	total := int64(0)
	for i, c := range cols {
		total += int64(len(c.pages))
		w.begin()
		w.i64(2, offsets[i])
		w.field(3, ctStruct)
		w.begin()
		w.i32(1, 2)
		if c.hasDictionary {
			w.list(2, ctI32, 2)
			w.varint(0)
			w.varint(8)
		} else {
			w.list(2, ctI32, 1)
			w.varint(0)
		}
		w.list(3, ctBinary, 1)
		w.uvarint(uint64(len(c.name)))
		w.b.WriteString(c.name)
		w.i32(4, 0) // UNCOMPRESSED
		w.i64(5, c.values)
		w.i64(6, int64(len(c.pages)))
		w.i64(7, int64(len(c.pages)))
		w.i64(9, offsets[i]+int64(c.dataPage))
		if c.hasDictionary {
			w.i64(11, offsets[i])
		}
		w.end()
		w.end()
	}
	w.i64(2, total)
	w.i64(3, rows)
	w.end()
	w.end()
	out.Write(w.b.Bytes())
	out.Write(binary.LittleEndian.AppendUint32(nil, uint32(w.b.Len())))
	out.WriteString("PAR1")
	return out.Bytes()
}
