package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// TestStreamCutAnywhereIsTruncated: an Arrow stream cut at any byte (after
// its schema, inside a message's metadata or body, inside the end-of-stream
// marker) is refused as truncated, naming the upstream command on a pipe;
// only the whole stream reads.
func TestStreamCutAnywhereIsTruncated(t *testing.T) {
	for _, s := range seedTables {
		tb, err := Decode([]byte(s.csv), CSV, s.name, s.want)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteStream(&buf, tb); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		if _, err := Read(bytes.NewReader(data), "stdin", s.want); err != nil {
			t.Fatalf("%s: the whole stream: %v", s.name, err)
		}
		for cut := len(arrowStreamMagic); cut < len(data); cut++ {
			_, err := Read(bytes.NewReader(data[:cut]), "stdin", s.want)
			if err == nil {
				t.Fatalf("%s cut at byte %d of %d: read as a table", s.name, cut, len(data))
			}
			if !strings.HasPrefix(err.Error(), "stdin: truncated: the upstream command stopped before the end of its table") {
				t.Fatalf("%s cut at byte %d of %d: %v", s.name, cut, len(data), err)
			}
			if cut%97 == 0 {
				_, err := Decode(data[:cut], ArrowStream, "t.arrows", s.want)
				if err == nil || !strings.Contains(err.Error(), "t.arrows: truncated: the Arrow IPC stream ends before its end-of-stream marker") {
					t.Fatalf("%s cut at byte %d, as a file: %v", s.name, cut, err)
				}
			}
		}
	}
}

// TestStreamOfOnlyASchemaIsNotAnEmptyTable: the stream an upstream command
// leaves when it dies after writing its schema.
func TestStreamOfOnlyASchemaIsNotAnEmptyTable(t *testing.T) {
	empty := New(schema.Allocation, 0)
	for _, c := range schema.Allocation.AllColumns() {
		switch c.Type {
		case schema.String:
			empty.SetStrings(c.Name, nil, nil)
		case schema.Int64:
			empty.SetInt64s(c.Name, nil, nil)
		case schema.Float64:
			empty.SetFloat64s(c.Name, nil, nil)
		case schema.Bool:
			empty.SetBools(c.Name, nil, nil)
		}
	}
	var buf bytes.Buffer
	if err := WriteStream(&buf, empty); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	// An empty table with its end-of-stream marker is a table of no rows.
	if tb, err := Read(bytes.NewReader(whole), "stdin", schema.Allocation); err != nil || tb.NumRows() != 0 {
		t.Fatalf("empty table: %v", err)
	}
	schemaOnly := whole[:len(whole)-8] // no record batch was written: drop the marker
	_, err := Read(bytes.NewReader(schemaOnly), "stdin", schema.Allocation)
	if err == nil || !strings.Contains(err.Error(), "truncated: the upstream command stopped") {
		t.Fatalf("schema only: %v", err)
	}
}
