package datasets

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// eachCSVRecord reads what encoding/csv reads: every embedded Pollux CSV
// file (its split fast path) and files with empty lines, no final newline,
// quotes and carriage returns (encoding/csv's path).
func TestEachCSVRecordAsEncodingCSV(t *testing.T) {
	inputs := map[string][]byte{
		"empty lines":   []byte("a,b\n\n1,2\n\n\n3,,4\n"),
		"no newline":    []byte("a,b\n1,2"),
		"spaces":        []byte("a, b\n 1 ,2 \n"),
		"quoted":        []byte("a,b\n\"x,y\",2\n"),
		"crlf":          []byte("a,b\r\n1,2\r\n"),
		"one field":     []byte("a\n1\n"),
		"nothing":       nil,
		"trailing sep":  []byte("a,b,\n1,2,\n"),
		"only newlines": []byte("\n\n"),
	}
	files, err := fs.Glob(polluxFS, "data/pollux/*/*.csv")
	if err != nil || len(files) < 20 {
		t.Fatalf("embedded profiles: %d files, %v", len(files), err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(polluxFS, f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, data := range inputs {
		cr := csv.NewReader(bytes.NewReader(data))
		cr.FieldsPerRecord = -1
		want, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got [][]string
		n, err := eachCSVRecord(name, data, func(i int, rec []string) error {
			if i != len(got) {
				t.Errorf("%s: record %d given as %d", name, len(got), i)
			}
			got = append(got, slices.Clone(rec))
			return nil
		})
		if err != nil || n != len(want) {
			t.Fatalf("%s: %d records, %v; encoding/csv %d", name, n, err, len(want))
		}
		if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Errorf("%s: got %q, encoding/csv %q", name, got, want)
		}
	}
	if _, err := eachCSVRecord("bad.csv", []byte("a\n\"x\"y\n"), func(int, []string) error { return nil }); err == nil || !strings.HasPrefix(err.Error(), "bad.csv: ") {
		t.Errorf("a bare quote: %v", err)
	}
}
