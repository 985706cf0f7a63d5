package cmdutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

func clusterTable() *table.Table {
	t := table.New(schema.Cluster, 2)
	t.SetStrings("node", []string{"n1", "n2"}, nil)
	t.SetFloat64s("gpu", []float64{4, 8}, nil)
	return t
}

func psBlocksTable() *table.Table {
	t := table.New(schema.PSBlocks, 1)
	t.SetStrings("block", []string{"w"}, nil)
	t.SetInt64s("bytes", []int64{10}, nil)
	return t
}

// TestOutputThatIsAnInputIsRefused: -o naming an input file of another
// kind, by any name (the same, another spelling, a hard link, a symbolic
// link), is a usage error and leaves the input as it was; a file of the
// output's own kind may be replaced (place --current plan -o plan).
func TestOutputThatIsAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cluster.parquet")
	if err := table.WriteFile(in, clusterTable()); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.parquet")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.parquet")
	if err := os.Symlink(in, sym); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.parquet")
	cases := []struct {
		name   string
		out    string
		output *table.Table
		refuse bool
	}{
		{"same name", in, psBlocksTable(), true},
		{"another spelling", filepath.Join(dir, ".", "x", "..", "cluster.parquet"), psBlocksTable(), true},
		{"hard link", hard, psBlocksTable(), true},
		{"symbolic link", sym, psBlocksTable(), true},
		{"another file", other, psBlocksTable(), false},
		{"same kind", in, clusterTable(), false},
	}
	os.Mkdir(filepath.Join(dir, "x"), 0o755)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := os.ReadFile(in)
			o := OutputOptions{Path: c.out}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadSide("cluster", in, schema.Cluster); err != nil {
				t.Fatal(err)
			}
			ios, _, _, _ := iostreams.Test()
			err := o.Write(ios, c.output)
			after, _ := os.ReadFile(in)
			switch {
			case c.refuse && (err == nil || ExitCode(err) != ExitInvalid || !strings.Contains(err.Error(), "would replace it")):
				t.Errorf("got %v, want a usage error", err)
			case c.refuse && string(before) != string(after):
				t.Errorf("the input changed")
			case !c.refuse && err != nil:
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// TestReadInputAndSides: side files read beside a main input file give the
// same tables and the same first error as reading them one after the other.
func TestReadInputAndSides(t *testing.T) {
	dir := t.TempDir()
	f := func(name string) string { return filepath.Join(dir, name) }
	if err := table.WriteFile(f("blocks.parquet"), psBlocksTable()); err != nil {
		t.Fatal(err)
	}
	if err := table.WriteFile(f("cluster.parquet"), clusterTable()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f("bad.csv"), []byte("node,gpu\nn1,-4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cluster := func(path string) Side { return Side{Flag: "cluster", Path: path, Want: schema.Cluster} }
	current := func(path string) Side { return Side{Flag: "current", Path: path, Want: schema.Cluster, Optional: true} }
	cases := []struct {
		name, input string
		sides       []Side
		want        string // the error, "" for none
		rows        []int  // rows of each side table, -1 for none
	}{
		{"both files", f("blocks.parquet"), []Side{cluster(f("cluster.parquet")), current("")}, "", []int{2, -1}},
		{"optional given", f("blocks.parquet"), []Side{cluster(f("cluster.parquet")), current(f("cluster.parquet"))}, "", []int{2, 2}},
		{"bad main input first", f("bad.csv"), []Side{cluster(f("missing.parquet"))}, "bad.csv", nil},
		{"missing main input", f("missing.parquet"), []Side{cluster(f("bad.csv"))}, "missing.parquet", nil},
		{"bad side named", f("blocks.parquet"), []Side{cluster(f("bad.csv"))}, "bad.csv", nil},
		{"side required", f("blocks.parquet"), []Side{cluster("")}, "--cluster is required", nil},
		{"side not stdin", f("blocks.parquet"), []Side{cluster("-")}, "--cluster: give a file", nil},
		{"first bad side first", f("blocks.parquet"), []Side{cluster(f("bad.csv")), current(f("missing.parquet"))}, "bad.csv", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			if err := (&OutputOptions{}).Validate(); err != nil {
				t.Fatal(err)
			}
			main, sides, err := ReadInputAndSides(ios, c.input, schema.PSBlocks, c.sides...)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one naming %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if main.NumRows() != 1 {
				t.Errorf("main input: %d rows", main.NumRows())
			}
			for i, n := range c.rows {
				switch {
				case n < 0 && sides[i] != nil:
					t.Errorf("side %d: a table where none was named", i)
				case n >= 0 && (sides[i] == nil || sides[i].NumRows() != n):
					t.Errorf("side %d: %v, want %d rows", i, sides[i], n)
				}
			}
		})
	}
	// A piped main input: the sides are read after it, with the same result.
	ios, in, _, _ := iostreams.Test()
	if err := table.WriteStream(in, psBlocksTable()); err != nil {
		t.Fatal(err)
	}
	if _, sides, err := ReadInputAndSides(ios, "", schema.PSBlocks, cluster(f("cluster.parquet"))); err != nil || sides[0].NumRows() != 2 {
		t.Errorf("piped: %v %v", sides, err)
	}
}

// An input deleted since it was read does not block an output whose new
// file reuses its inode (seen in CI: another test's plan.parquet, removed by
// its cleanup, and this command's new cluster.parquet): the check asks
// whether the input's path still names the output's file. The recorded stat
// of the output stands in for the reused inode, which a test cannot force.
func TestDeletedInputDoesNotBlockAReusedInode(t *testing.T) {
	dir := t.TempDir()
	gone, out := filepath.Join(dir, "plan.parquet"), filepath.Join(dir, "cluster.parquet")
	if err := os.WriteFile(out, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	inputs.Lock()
	saved := inputs.files
	inputs.files = []inputFile{{path: gone, kind: "plan", info: info}}
	inputs.Unlock()
	t.Cleanup(func() { inputs.Lock(); inputs.files = saved; inputs.Unlock() })
	if err := checkNotAnInput(out, "cluster"); err != nil {
		t.Errorf("a deleted input blocks the new file that reuses its inode: %v", err)
	}
	// The live input still does.
	inputs.Lock()
	inputs.files = []inputFile{{path: out, kind: "plan", info: info}}
	inputs.Unlock()
	if err := checkNotAnInput(out, "cluster"); err == nil || !strings.Contains(err.Error(), "is the file of the plan table read from") {
		t.Errorf("a live input of another kind is not refused: %v", err)
	}
}
