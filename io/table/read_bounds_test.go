package table

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The crafted files are valid Parquet: arrow-go reads what they hold.
func TestCraftedParquetReads(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want []int64
	}{
		{"plain", craftParquet(3, plainColumn("x", []int64{1, 2, 3}, 3, 3)), []int64{1, 2, 3}},
		{"rle", craftParquet(1000, rleColumn("x", 7, 1000)), nil},
	}
	for _, c := range cases {
		tb, err := Decode(c.data, Parquet, "in", nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		col := tb.Int64Values("x")
		if c.want == nil {
			if tb.NumRows() != 1000 || col[0] != 7 || col[999] != 7 {
				t.Errorf("%s: %d rows, %v...", c.name, tb.NumRows(), col[:1])
			}
			continue
		}
		if len(col) != len(c.want) || col[0] != 1 || col[2] != 3 {
			t.Errorf("%s: %v, want %v", c.name, col, c.want)
		}
	}
}

// BoundedParquet: a Parquet file is held to what it really contains before
// anything is allocated for its claims (issue 20). Each case crashed the
// process (a runtime fatal error: out of memory) or decoded to gigabytes.
func TestBoundedParquetClaims(t *testing.T) {
	rle := func(cols int, n int32) []byte {
		var cs []craftColumn
		for i := range cols {
			cs = append(cs, rleColumn(string(rune('a'+i)), int64(i), n))
		}
		return craftParquet(int64(n), cs...)
	}
	cases := []struct {
		name   string
		data   []byte
		budget int64
		want   string
	}{
		{"footer claims 10^12 rows", craftParquet(1e12, plainColumn("x", []int64{1}, 1, 1e12)), 0,
			`in: not a valid Parquet: row group 1 claims 1000000000000 rows, but the pages of its column "x" hold 1 values`},
		{"page claims more values than the footer's rows", craftParquet(1, plainColumn("x", []int64{1}, 1<<30, 1)), 0,
			`in: not a valid Parquet: row group 1 claims 1 rows, but the pages of its column "x" hold 1073741824 values`},
		{"negative rows", craftParquet(-5, plainColumn("x", []int64{1}, 1, 1)), 0,
			`in: not a valid Parquet: row group 1 claims -5 rows`},
		{"2x10^8 rows of one RLE run each", rle(3, 2e8), 0,
			`in: needs more than 4 GB to decode; raise --max-memory`},
		{"10^6 rows under a 4 MB budget", rle(1, 1e6), 4 << 20,
			`in: needs more than 4 MB to decode; raise --max-memory`},
	}
	for _, c := range cases {
		SetMemoryBudget(c.budget)
		var err error
		n := allocated(func() { _, err = Decode(c.data, Parquet, "in", nil) })
		SetMemoryBudget(0)
		switch {
		case err == nil:
			t.Errorf("%s (%d bytes): accepted", c.name, len(c.data))
		case err.Error() != c.want:
			t.Errorf("%s: error %q, want %q", c.name, err, c.want)
		case !errors.Is(err, ErrInvalidInput):
			t.Errorf("%s: not an input error: %v", c.name, err)
		case n > 16<<20:
			t.Errorf("%s: a %d-byte file allocated %d MB", c.name, len(c.data), n>>20)
		}
	}
	// Within the budget the same file reads: the budget refuses sizes, not
	// shapes.
	SetMemoryBudget(64 << 20)
	defer SetMemoryBudget(0)
	if tb, err := Decode(rle(1, 1e6), Parquet, "in", nil); err != nil || tb.NumRows() != 1e6 {
		t.Errorf("10^6 rows under a 64 MB budget: %v", err)
	}
}

// A side input read from a file (where Parquet is read in place, not
// buffered) is bounded the same way.
func TestBoundedParquetFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.parquet")
	if err := os.WriteFile(path, craftParquet(1e12, plainColumn("gpu", []int64{1}, 1, 1e12)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, nil)
	if err == nil || !strings.HasPrefix(err.Error(), path+": not a valid Parquet: row group 1 claims 1000000000000 rows") {
		t.Errorf("error %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"4GB": 4 << 30, "512MiB": 512 << 20, "1.5G": 3 << 29, "2 gb": 2 << 30, "1048576": 1 << 20} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "4XB", "-1GB", "10kB", "1e30"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) accepted", in)
		}
	}
	for in, want := range map[string]string{
		"10kB":                   `"10kB" is out of range: give at least 1MB`,
		"4194304TB":              "",
		"4194305TB":              `"4194305TB" is out of range: give at most 4194304TB`,
		"18446744073709551615TB": `"18446744073709551615TB" is out of range: give at most 4194304TB`,
	} {
		if _, err := ParseBytes(in); fmt.Sprint(err) != want && (want != "" || err != nil) {
			t.Errorf("ParseBytes(%q): %v, want %q", in, err, want)
		}
	}
	for n, want := range map[int64]string{4 << 30: "4 GB", 3 << 29: "1.5 GB", 64 << 20: "64 MB", 1 << 30: "1 GB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

var hostileOut = flag.String("hostile-out", "", "TestWriteHostileParquet: write the crafted hostile Parquet files into this `dir` (cli/root/testdata/hostile)")

// TestWriteHostileParquet writes the crafted files that the commands'
// tests (cli/root) read; it does nothing without -hostile-out.
func TestWriteHostileParquet(t *testing.T) {
	if *hostileOut == "" {
		t.Skip("no -hostile-out")
	}
	files := map[string][]byte{
		"rows-1e12.parquet": craftParquet(1e12, plainColumn("gpu", []int64{1}, 1, 1e12)),
		"rle-2e8.parquet":   craftParquet(2e8, rleColumn("a", 1, 2e8), rleColumn("b", 2, 2e8), rleColumn("c", 3, 2e8)),
		"rle-1e6.parquet":   craftParquet(1e6, rleColumn("gpu", 4, 1e6)),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*hostileOut, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadAll judges standard input by its first bytes: endless zero bytes
// are refused after the first few kilobytes, not read whole.
func TestReadAllSniffsBeforeBuffering(t *testing.T) {
	var err error
	n := allocated(func() { _, err = ReadAll(zeros{}, "stdin") })
	if err == nil || err.Error() != "stdin: unrecognised input: not Arrow, Parquet or CSV text" {
		t.Errorf("error %v", err)
	}
	if n > 1<<20 {
		t.Errorf("allocated %d kB", n>>10)
	}
	// Text is read up to the budget and no further.
	SetMemoryBudget(1 << 20)
	defer SetMemoryBudget(0)
	_, err = ReadAll(io.LimitReader(letters{}, 8<<20), "stdin")
	if err == nil || err.Error() != "stdin: needs more than 1 MB to decode; raise --max-memory" {
		t.Errorf("error %v", err)
	}
	// Refused at the budget, it was held once: 16 MB of text took 34 MB
	// when one buffer grew by doubling.
	SetMemoryBudget(16 << 20)
	n = allocated(func() { _, err = ReadAll(letters{}, "stdin") })
	if err == nil || err.Error() != "stdin: needs more than 16 MB to decode; raise --max-memory" {
		t.Errorf("error %v", err)
	}
	if n > 17<<20 {
		t.Errorf("refusing 16 MB of text allocated %d kB", n>>10)
	}
	// Read in small pieces across the chunks, it is every byte in order.
	want := make([]byte, 5<<20+12345)
	for i := range want {
		want[i] = 'a' + byte(i*7%26)
		if i%80 == 79 {
			want[i] = '\n'
		}
	}
	got, err := ReadAll(&pieces{data: want, size: 1000}, "stdin")
	if err != nil || string(got) != string(want) {
		t.Errorf("read back %d bytes (%v), want %d identical", len(got), err, len(want))
	}
	// A directory on standard input is the user's mistake.
	d, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = ReadAll(d, "stdin")
	if err == nil || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

// pieces reads data at most size bytes at a time.
type pieces struct {
	data []byte
	size int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), p.size)], p.data)
	p.data = p.data[n:]
	return n, nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type letters struct{}

func (letters) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}
