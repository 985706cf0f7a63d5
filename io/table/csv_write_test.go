package table

import (
	"bytes"
	"strings"
	"testing"
)

// A null in a one-column table was written as a blank line, which CSV
// readers skip: the row was lost (found by FuzzReadCSV: "0\n\"\"").
func TestCSVOneColumnNullRow(t *testing.T) {
	tb, err := Decode([]byte("x\na\n\"\"\nb\n"), CSV, "in", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb.NumRows() != 3 || tb.Valid("x")[1] {
		t.Fatalf("read %d rows, valid %v", tb.NumRows(), tb.Valid("x"))
	}
	var buf bytes.Buffer
	if err := Write(&buf, CSV, tb); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "x\na\n\"\"\nb\n" {
		t.Errorf("wrote %q", got)
	}
	back, err := Decode(buf.Bytes(), CSV, "back", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(tb, back); d != "" {
		t.Error(d)
	}
}

// A table without columns cannot be written as CSV and means nothing: every
// format rejects it.
func TestNoColumnsRejected(t *testing.T) {
	empty := New(nil, 3)
	for _, f := range []Format{ArrowStream, ArrowFile, Parquet} {
		var buf bytes.Buffer
		if err := Write(&buf, f, empty); err != nil {
			t.Fatal(err)
		}
		_, err := Decode(buf.Bytes(), f, "in", nil)
		if err == nil || !strings.Contains(err.Error(), "in: no columns") {
			t.Errorf("%v: %v", f, err)
		}
	}
}
