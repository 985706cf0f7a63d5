package table

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Format is a file format for tables.
type Format int

const (
	Unknown     Format = iota
	ArrowStream        // Arrow IPC stream: what commands write to a pipe
	ArrowFile          // Arrow IPC file (Feather v2)
	Parquet
	CSV
)

func (f Format) String() string {
	switch f {
	case ArrowStream:
		return "Arrow IPC stream"
	case ArrowFile:
		return "Arrow IPC file"
	case Parquet:
		return "Parquet"
	case CSV:
		return "CSV"
	}
	return "unknown format"
}

// fileNoun names a file of the format: "Parquet file", "Arrow IPC file",
// "Arrow IPC stream".
func (f Format) fileNoun() string {
	switch f {
	case ArrowFile, ArrowStream:
		return f.String()
	}
	return f.String() + " file"
}

// extensions maps file name extensions to formats.
var extensions = map[string]Format{
	".arrows":  ArrowStream,
	".arrow":   ArrowFile,
	".feather": ArrowFile,
	".ipc":     ArrowFile,
	".parquet": Parquet,
	".pq":      Parquet,
	".csv":     CSV,
}

// FormatOf chooses the format of a file by its extension.
func FormatOf(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if f, ok := extensions[ext]; ok {
		return f, nil
	}
	return Unknown, Errorf(path, "unknown table format %q: name the file .parquet, .arrow (or .feather), .arrows (Arrow stream) or .csv", ext)
}

var (
	parquetMagic     = []byte("PAR1")
	arrowFileMagic   = []byte("ARROW1")
	arrowStreamMagic = []byte{0xff, 0xff, 0xff, 0xff} // continuation marker of the first message
)

// Sniff recognises a table's format by its first bytes. Anything that is not
// Arrow or Parquet is taken for CSV, whose reader then says what is wrong.
func Sniff(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, parquetMagic):
		return Parquet
	case bytes.HasPrefix(head, arrowFileMagic):
		return ArrowFile
	case bytes.HasPrefix(head, arrowStreamMagic):
		return ArrowStream
	case len(head) == 0:
		return Unknown
	}
	return CSV
}
