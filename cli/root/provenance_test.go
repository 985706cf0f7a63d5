package root

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// Every written table says what made it: the optimus version, the command
// line with its inputs named by content, and a run id from them. The same
// inputs give the same bytes through a file or a pipe and from any folder;
// other inputs give another run id.
func TestProvenance(t *testing.T) {
	a, b := exportTestbed(t), exportTestbed(t) // the same tables in two folders
	c := filepath.Join(t.TempDir(), "other")
	if code, _, stderr := run(t, nil, "datasets", "export", "testbed", "--seed", "7", "-o", c); code != 0 {
		t.Fatal(stderr)
	}
	fitTo := func(dir, out string) []byte {
		t.Helper()
		p := func(n string) string { return filepath.Join(dir, n) }
		if code, _, stderr := run(t, nil, "fit", "-q", "-i", p("loss.parquet"), "--speed", p("speed.parquet"), "--jobs", p("jobs.parquet"), "-o", out); code != 0 {
			t.Fatal(stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	out := t.TempDir()
	ma, mb, mc := fitTo(a, filepath.Join(out, "a.parquet")), fitTo(b, filepath.Join(out, "b.parquet")), fitTo(c, filepath.Join(out, "c.parquet"))
	if !bytes.Equal(ma, mb) {
		t.Error("the same inputs in another folder gave other bytes")
	}
	read := func(name string) *table.Table {
		tb, err := table.ReadFile(filepath.Join(out, name), schema.Models)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	ta, tc := read("a.parquet"), read("c.parquet")
	cmd := ta.Meta[schema.MetaCommand]
	if !strings.HasPrefix(cmd, "optimus fit --input=@") || !strings.Contains(cmd, " --jobs=@") || !strings.Contains(cmd, " --speed=@") ||
		strings.Contains(cmd, a) || strings.Contains(cmd, "--output") || strings.Contains(cmd, "--quiet") {
		t.Errorf("command %q: want the inputs by content, no paths, no output or verbosity flags", cmd)
	}
	if ta.Meta[schema.MetaOptimus] == "" || len(ta.Meta[schema.MetaRunID]) != 16 {
		t.Errorf("version %q, run id %q", ta.Meta[schema.MetaOptimus], ta.Meta[schema.MetaRunID])
	}
	if ta.Meta[schema.MetaRunID] == tc.Meta[schema.MetaRunID] || bytes.Equal(ma, mc) {
		t.Error("other inputs gave the same run id")
	}

	// Through a pipe: predict | solve gives the allocation -o gives.
	p := func(n string) string { return filepath.Join(a, n) }
	models := filepath.Join(out, "a.parquet")
	pred := filepath.Join(out, "pred.parquet")
	if code, _, stderr := run(t, nil, "predict", "-i", p("jobs.parquet"), "--models", models, "-o", pred); code != 0 {
		t.Fatal(stderr)
	}
	_, stream, _ := run(t, nil, "predict", "-i", p("jobs.parquet"), "--models", models)
	fromFile, fromPipe := filepath.Join(out, "alloc-file.parquet"), filepath.Join(out, "alloc-pipe.parquet")
	run(t, nil, "solve", "--cluster", p("cluster.parquet"), "-i", pred, "-o", fromFile)
	run(t, stream, "solve", "--cluster", p("cluster.parquet"), "-o", fromPipe)
	x, _ := os.ReadFile(fromFile)
	y, _ := os.ReadFile(fromPipe)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Error("solve from a file and from a pipe of the same predictions wrote other bytes")
	}
}
