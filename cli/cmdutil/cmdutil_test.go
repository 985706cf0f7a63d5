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
