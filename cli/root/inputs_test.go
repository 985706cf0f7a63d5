package root

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBoundedInputs runs commands on the hostile inputs of issue 20, one
// class each: corrupt Parquet (its columns decoded side by side), claims
// beyond what a file holds, inputs beyond the memory budget, data after
// an Arrow stream's end, cluster columns that would vanish into labels,
// bad flags. Each must fail with one located line and exit 2; before the
// fixes each panicked, crashed the runtime, or passed silently.
func TestBoundedInputs(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	hostile := func(n string) string { return filepath.Join("testdata", "hostile", n) }
	for _, args := range [][]string{
		{"datasets", "export", "testbed", "-o", dir},
		{"fit", "-i", p("loss.parquet"), "--speed", p("speed.parquet"), "--jobs", p("jobs.parquet"), "-o", p("models.parquet")},
		{"predict", "-i", p("jobs.parquet"), "--models", p("models.parquet"), "-o", p("predictions.parquet")},
	} {
		if code, _, stderr := Run(nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	write := func(name, content string) string {
		if err := os.WriteFile(p(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p(name)
	}
	_, stream, _ := Run(nil, "convert", "-i", p("predictions.parquet"), "--format", "arrows")
	corrupt := hostile("corrupt-jobs.parquet")
	cases := []struct {
		name  string
		stdin []byte
		args  []string
		want  string // the whole message, after "optimus: "
	}{
		{"corrupt Parquet, main input", nil, []string{"convert", "-i", corrupt},
			corrupt + ": corrupt Parquet data: runtime error: invalid memory address or nil pointer dereference"},
		{"corrupt Parquet, side input", nil, []string{"predict", "-i", p("jobs.parquet"), "--models", corrupt},
			corrupt + ": corrupt Parquet data: runtime error: invalid memory address or nil pointer dereference"},
		{"footer claims 10^12 rows, main input", nil, []string{"convert", "-i", hostile("rows-1e12.parquet")},
			hostile("rows-1e12.parquet") + `: not a valid Parquet: row group 1 claims 1000000000000 rows, but the pages of its column "gpu" hold 1 values`},
		{"footer claims 10^12 rows, side input", nil, []string{"solve", "-i", p("predictions.parquet"), "--cluster", hostile("rows-1e12.parquet")},
			hostile("rows-1e12.parquet") + `: not a valid Parquet: row group 1 claims 1000000000000 rows, but the pages of its column "gpu" hold 1 values`},
		{"2x10^8 rows in 316 bytes", nil, []string{"convert", "-i", hostile("rle-2e8.parquet")},
			hostile("rle-2e8.parquet") + ": needs more than 4 GB to decode; raise --max-memory"},
		{"10^6 rows under --max-memory 4MB", nil, []string{"convert", "--max-memory", "4MB", "-i", hostile("rle-1e6.parquet")},
			hostile("rle-1e6.parquet") + ": needs more than 4 MB to decode; raise --max-memory"},
		{"--max-memory not a size", nil, []string{"convert", "--max-memory", "lots", "-i", p("jobs.parquet")},
			`--max-memory: "lots" is not a size: write a number and a unit, such as 512MB or 4GB`},
		{"zero bytes on standard input", make([]byte, 1<<20), []string{"solve", "--cluster", p("cluster.parquet")},
			"stdin: unrecognised input: not Arrow, Parquet or CSV text"},
		{"two Arrow streams concatenated", append(bytes.Clone(stream), stream...), []string{"solve", "--cluster", p("cluster.parquet")},
			"stdin: not a valid Arrow IPC stream: " + itoa(len(stream)) + " bytes of another Arrow IPC stream (two tables concatenated?) follow its end-of-stream marker, from byte " + itoa(len(stream)) + ": one input holds one table"},
		{"garbage after the end of the stream", append(bytes.Clone(stream), "garbage\n"...), []string{"solve", "--cluster", p("cluster.parquet")},
			"stdin: not a valid Arrow IPC stream: 8 bytes of data follow its end-of-stream marker, from byte " + itoa(len(stream)) + ": one input holds one table"},
		{"header-only cluster", nil, []string{"solve", "-i", p("predictions.parquet"), "--cluster", write("empty.csv", "node,gpu,cpu\n")},
			p("empty.csv") + ": no nodes: the cluster table is empty"},
		{"a gpu column of text", nil, []string{"solve", "-i", p("predictions.parquet"), "--cluster", write("text.csv", "node,gpu,cpu\nn1,four,16\nn2,eight,16\n")},
			p("text.csv") + `: column "gpu", row 1 (line 2): "four" is not a number: gpu is a resource column, which holds numbers`},
		{"fit --parallel -3", nil, []string{"fit", "--parallel", "-3", "-i", p("loss.parquet"), "--speed", p("speed.parquet"), "--jobs", p("jobs.parquet")},
			"--parallel -3: fit at least 1 job at a time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := p("out-" + strings.ReplaceAll(c.name, " ", "-") + ".parquet")
			code, _, stderr := Run(c.stdin, append(c.args, "-o", out)...)
			if code != 2 || stderr != "optimus: "+c.want+"\n" {
				t.Errorf("%v: exit %d, %q\nwant exit 2, %q", c.args, code, stderr, "optimus: "+c.want+"\n")
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("wrote %s", out)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
