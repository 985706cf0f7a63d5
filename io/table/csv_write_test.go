package table

import (
	"bytes"
	"encoding/csv"
	"math"
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

// writeCSV writes the bytes of encoding/csv's Writer over cellText, on
// fields that need quotes and on every number format.
func TestWriteCSVAsEncodingCSV(t *testing.T) {
	strs := []string{"plain", "", "a,b", `say "hi"`, "line\nend", "cr\rlf\r\n", " lead", "\tlead", "\u00a0nbsp", `\.`, `\.x`, "trail ", "ü", `"`, ","}
	n := len(strs)
	valid := make([]bool, n)
	ints, floats, bools := make([]int64, n), make([]float64, n), make([]bool, n)
	fvals := []float64{0, math.Copysign(0, -1), 1, 1e6, 1e21, 1.5e-7, math.NaN(), math.Inf(1), math.Inf(-1), 123456789, 0.1, -2.5, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-300}
	for i := range n {
		valid[i] = i != 1 && i != 7
		ints[i] = int64(i*i*1000003) - 50
		floats[i] = fvals[i]
		bools[i] = i%3 == 0
	}
	tb := New(nil, n)
	tb.SetStrings("name, quoted", strs, valid)
	tb.SetInt64s("i", ints, valid)
	tb.SetFloat64s("f", floats, nil)
	tb.SetBools("b", bools, valid)
	var want bytes.Buffer
	cw := csv.NewWriter(&want)
	if err := cw.Write(tb.ColumnNames()); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		rec := make([]string, tb.NumCols())
		for i := range rec {
			rec[i] = cellText(tb.cols[i], r)
		}
		if err := cw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	cw.Flush()
	var got bytes.Buffer
	if err := writeCSV(&got, tb); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("wrote\n%s\nencoding/csv writes\n%s", got.String(), want.String())
	}
}
