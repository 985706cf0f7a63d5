package benchmarks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/placecmd"
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// optimus runs, in-process, the commands the benchmarks pipe tables
// through: a tree of those alone (clitest.Tree), so that this package's
// test binary, linked by every `go test ./...`, links neither the other
// commands nor client-go.
var optimus = clitest.Tree(datasetscmd.NewCmd,
	func(ios *iostreams.IOStreams) *cobra.Command { return solvecmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return placecmd.NewCmd(ios, nil) })

// runMain runs one optimus command in-process and returns its standard
// output.
func runMain(b *testing.B, stdin []byte, args ...string) []byte {
	b.Helper()
	out, _ := optimus.MustRun(b, stdin, args...)
	return out
}

// BenchmarkTablePipe runs `optimus datasets generate --tasks 100000 --nodes
// 16000 | optimus solve | optimus place` in-process on Arrow streams, as
// benchmarks/table-layer.md measures it as whole processes.
func BenchmarkTablePipe(b *testing.B) {
	dir := b.TempDir()
	c := filepath.Join(dir, "cluster.arrows")
	for i := 0; i < b.N; i++ {
		pred := runMain(b, nil, "datasets", "generate", "--tasks", "100000", "--nodes", "16000", "--cluster", c)
		alloc := runMain(b, pred, "solve", "--cluster", c)
		runMain(b, alloc, "place", "--cluster", c)
	}
}

// BenchmarkTableFiles runs the same three steps in-process through Parquet
// files, as benchmarks/pipeline.md's files.sh does with whole processes.
func BenchmarkTableFiles(b *testing.B) {
	dir := b.TempDir()
	f := func(name string) string { return filepath.Join(dir, name) }
	for i := 0; i < b.N; i++ {
		runMain(b, nil, "datasets", "generate", "--tasks", "100000", "--nodes", "16000", "--cluster", f("c.parquet"), "-o", f("p.parquet"))
		runMain(b, nil, "solve", "--cluster", f("c.parquet"), "-i", f("p.parquet"), "-o", f("a.parquet"))
		runMain(b, nil, "place", "--cluster", f("c.parquet"), "-i", f("a.parquet"), "-o", f("plan.parquet"))
	}
}

// BenchmarkTableFitSpeed runs `optimus fit --speed FILE` in-process on
// 1,000 jobs of 20 speed samples, to compare with BenchmarkFitSpeed's
// per-job time of the library.
func BenchmarkTableFitSpeed(b *testing.B) {
	_, speed, err := datatables.Metrics(1000, 1, 20, 1)
	if err != nil {
		b.Fatal(err)
	}
	speed, err = table.Conform(speed)
	if err != nil {
		b.Fatal(err)
	}
	f := filepath.Join(b.TempDir(), "speed.parquet")
	if err := table.WriteFile(f, speed); err != nil {
		b.Fatal(err)
	}
	b.Run("jobs=1000/cli", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runMain(b, nil, "fit", "--speed", f, "--parallel", "1", "-o", filepath.Join(b.TempDir(), "models.parquet"))
		}
	})
	// The library alone: fit.FitSpeed and fit.Identifiable on every job's
	// samples, grouped beforehand.
	jobs, err := adapt.GroupSpeed(speed, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("jobs=1000/library", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fitSpeedLibrary(b, jobs)
		}
	})
}

// BenchmarkTableRead reads and validates the loss table of 1,000 jobs x
// 1,000 points from Parquet and from an Arrow stream.
func BenchmarkTableRead(b *testing.B) {
	loss, _, err := datatables.Metrics(1000, 1000, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	loss, err = table.Conform(loss)
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []table.Format{table.Parquet, table.ArrowStream} {
		var buf bytes.Buffer
		if err := table.Write(&buf, format, loss); err != nil {
			b.Fatal(err)
		}
		b.Run(format.String(), func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for i := 0; i < b.N; i++ {
				if _, err := table.Decode(buf.Bytes(), format, "loss", schema.Loss); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// planFiles writes the Parquet files of the 100k plan into a temporary
// directory, as the commands write them: the cluster c.parquet, the
// workload p.parquet, solve's allocation a.parquet and place's plan
// plan.parquet. It returns the path of a file in that directory.
func planFiles(b *testing.B) func(name string) string {
	dir := b.TempDir()
	f := func(name string) string { return filepath.Join(dir, name) }
	runMain(b, nil, "datasets", "generate", "--tasks", "100000", "--nodes", "16000", "--cluster", f("c.parquet"), "-o", f("p.parquet"))
	runMain(b, nil, "solve", "--cluster", f("c.parquet"), "-i", f("p.parquet"), "-o", f("a.parquet"))
	runMain(b, nil, "place", "--cluster", f("c.parquet"), "-i", f("a.parquet"), "-o", f("plan.parquet"))
	return f
}

// BenchmarkTableReadPlanTables reads (and validates) the four Parquet
// files of BenchmarkTableFiles at 100,000 tasks: the cluster, the
// workload, solve's allocation and place's plan, each as the command that
// reads it does; and the plan as CSV, as convert reads it (its kind
// recognised from the header).
func BenchmarkTableReadPlanTables(b *testing.B) {
	f := planFiles(b)
	plan, err := table.ReadFile(f("plan.parquet"), schema.Plan)
	if err != nil {
		b.Fatal(err)
	}
	var csv bytes.Buffer
	if err := table.Write(&csv, table.CSV, plan); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(f("plan.csv"), csv.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		file string
		want *schema.Table
	}{{"c.parquet", schema.Cluster}, {"p.parquet", schema.Predictions}, {"a.parquet", schema.Allocation},
		{"plan.parquet", schema.Plan}, {"plan.csv", nil}} {
		b.Run(c.file, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := table.ReadFile(f(c.file), c.want); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTableWritePlanTables writes solve's allocation and place's plan
// at 100,000 tasks as the commands write them (Parquet, from the tables
// as read back from their files, so every column is checked and marked),
// each into memory.
func BenchmarkTableWritePlanTables(b *testing.B) {
	f := planFiles(b)
	for _, c := range []struct {
		file string
		want *schema.Table
	}{{"a.parquet", schema.Allocation}, {"plan.parquet", schema.Plan}} {
		tbl, err := table.ReadFile(f(c.file), c.want)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.file, func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := table.Write(&buf, table.Parquet, tbl); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}
