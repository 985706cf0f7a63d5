package table

import (
	"bytes"
	"io"

	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetBoth writes t as Parquet through encodeParquet and through
// pqarrow's FileWriter with the same properties (for the byte-identity
// test of the external test package, which can build realistic tables).
func ParquetBoth(t *Table) (ours, pqarrows []byte, err error) {
	rec := t.Record()
	defer rec.Release()
	props := parquetProperties(t)
	var a, b bytes.Buffer
	if err := encodeParquet(struct{ io.Writer }{&a}, rec, props); err != nil {
		return nil, nil, err
	}
	pw, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{&b}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, nil, err
	}
	if err := pw.Write(rec); err != nil {
		return nil, nil, err
	}
	if err := pw.Close(); err != nil {
		return nil, nil, err
	}
	return a.Bytes(), b.Bytes(), nil
}
