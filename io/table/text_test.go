package table

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/optimus-sched/optimus/io/schema"
)

// Column names and string values must be text: valid UTF-8 without NUL,
// and names not empty (as CSV requires). Found by FuzzReadArrowFile: an
// Arrow file with a column named "" was accepted and its CSV rejected.
// Found by FuzzReadArrowStream: an Arrow stream whose column name held
// invalid UTF-8 and NULs was accepted, and its CSV conversion was then
// rejected as binary. Every format now rejects such input, naming the column
// and row.
func TestNonTextRejected(t *testing.T) {
	cluster := func(name, node string) *Table {
		tb := New(nil, 1)
		tb.SetStrings("node", []string{node}, nil)
		b := array.NewFloat64Builder(mem)
		b.Append(1)
		tb.set(name, b.NewArray(), false)
		return tb
	}
	cases := []struct {
		name string
		t    *Table
		want string
	}{
		{"empty name", cluster("", "n1"), `column 2 has no name`},
		{"blank name", cluster(" ", "n1"), `column 2 has no name`},
		{"invalid UTF-8 name", cluster("gpu\xff", "n1"), `the name of column 2, "gpu\xff", is not valid UTF-8 text`},
		{"NUL in name", cluster("gpu\x00", "n1"), `the name of column 2, "gpu\x00", contains a NUL character`},
		{"invalid UTF-8 value", cluster("gpu", "n\xc3"), `column "node", row 1: "n\xc3" is not valid UTF-8 text`},
		{"NUL in value", cluster("gpu", "n\x001"), `column "node", row 1: "n\x001" contains a NUL character`},
	}
	for _, c := range cases {
		for _, f := range []Format{ArrowStream, ArrowFile, Parquet} {
			var buf bytes.Buffer
			if err := Write(&buf, f, c.t); err != nil {
				t.Fatal(err)
			}
			_, err := Decode(buf.Bytes(), f, "in", schema.Cluster)
			if err == nil || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %v: got %v, want %q", c.name, f, err, c.want)
			}
		}
	}
	// CSV past the first 4 kB, where the format sniffing no longer looks.
	var pad strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&pad, "p%d,1\n", i)
	}
	long := strings.Repeat("x", 5000)
	for _, c := range []struct{ csv, want string }{
		{"node,gpu\n" + pad.String() + "n\xff,1\n", `column "node", row 1001 (line 1002): "n\xff" is not valid UTF-8 text`},
		{"node,gpu\n" + pad.String() + "n\x00,1\n", `column "node", row 1001 (line 1002): "n\x00" contains a NUL character`},
		{"node,gpu," + long + ",z\xff\n", `the name of column 4, "z\xff", is not valid UTF-8 text`},
	} {
		_, err := Decode([]byte(c.csv), CSV, "in", schema.Cluster)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CSV: got %v, want %q", err, c.want)
		}
	}
	// Text that is merely unusual is fine.
	ok := cluster("gpu ü", "n\t1 ✓")
	for _, f := range []Format{ArrowStream, Parquet, CSV} {
		var buf bytes.Buffer
		if err := Write(&buf, f, ok); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(buf.Bytes(), f, "in", schema.Cluster)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if back.Strings("node")[0] != "n\t1 ✓" || !back.Has("gpu ü") {
			t.Errorf("%v: %v %v", f, back.ColumnNames(), back.Strings("node"))
		}
	}
}

// The check that CSV input is text looked at its first 4 kB less 4 bytes,
// to allow for a character cut at 4 kB, even in inputs shorter than that:
// so a short CSV ending in a multibyte character and a newline was taken
// for binary (found by FuzzReadCSV: "ӆ00\n"). Only a character that the
// 4 kB cut splits is set aside now.
func TestCSVTextCheck(t *testing.T) {
	for _, in := range []string{"ӆ00\n", "x\nӆ\n", "ӆ"} {
		if _, err := Decode([]byte(in), CSV, "in", nil); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
	// A character across the 4 kB mark, then valid or invalid text.
	for cut := 4093; cut <= 4096; cut++ {
		in := "x\n" + strings.Repeat("a", cut-2) + "ӆ\n"
		if _, err := Decode([]byte(in), CSV, "in", nil); err != nil {
			t.Errorf("ӆ at byte %d: %v", cut, err)
		}
	}
	// Invalid UTF-8 in otherwise printable text is located by line;
	// control characters make it binary.
	for in, want := range map[string]string{
		"x\n\xff\n": "in: line 2: not valid UTF-8 text (byte 3)",
		"x\n" + strings.Repeat("a", 4000) + "\xc3\x28\n": "in: line 2: not valid UTF-8 text (byte 4003)",
		"x,y\n1,2\n3,caf\xe9\n":                          "in: line 3: not valid UTF-8 text (byte 14)",
		"x\n\x00\n":                                      "not Arrow, Parquet or CSV text",
		"x\n\x01\xff\n":                                  "not Arrow, Parquet or CSV text",
	} {
		if _, err := Decode([]byte(in), CSV, "in", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.20q...: %v, want %q", in, err, want)
		}
	}
}

// Metadata keys and values must be text too: Parquet writers drop entries
// that are not valid UTF-8 (found by FuzzReadArrowStream: an Arrow stream
// with a key "optimus.schem\xe1" lost it on conversion to Parquet).
func TestNonTextMetadataRejected(t *testing.T) {
	for _, c := range []struct {
		meta map[string]string
		want string
	}{
		{map[string]string{"team\xff": "x"}, `the metadata key "team\xff" is not valid UTF-8 text`},
		{map[string]string{"team": "x\x00"}, `the metadata value of "team" contains a NUL character`},
	} {
		tb := sampleJobs(t)
		tb.Meta = c.meta
		for _, f := range []Format{ArrowStream, ArrowFile} {
			var buf bytes.Buffer
			if err := Write(&buf, f, tb); err != nil {
				t.Fatal(err)
			}
			_, err := Decode(buf.Bytes(), f, "in", nil)
			if err == nil || !strings.Contains(err.Error(), "in: "+c.want) {
				t.Errorf("%v: got %v, want %q", f, err, c.want)
			}
		}
	}
	tb := sampleJobs(t)
	tb.Meta = map[string]string{"team": "ü ✓"}
	var buf bytes.Buffer
	if err := Write(&buf, Parquet, tb); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(buf.Bytes(), Parquet, "in", nil)
	if err != nil || back.Meta["team"] != "ü ✓" {
		t.Errorf("%v %v", back, err)
	}
}
