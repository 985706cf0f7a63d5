package table

// ParquetBoth writes t as Parquet through encodeParquet and through
// pqarrow's FileWriter with the same properties (for the byte-identity
// test of the external test package, which can build realistic tables).
func ParquetBoth(t *Table) (ours, pqarrows []byte, err error) {
	rec := t.Record()
	defer rec.Release()
	return bothParquets(rec, parquetProperties(t))
}

// ParquetReadBoth reads a Parquet file with decodeParquet and with
// pqarrow's reader and says where the tables differ (see readBoth).
func ParquetReadBoth(data []byte) error { return readBoth(data) }
