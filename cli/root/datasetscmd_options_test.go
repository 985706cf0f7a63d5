// Tests of cli/datasetscmd, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/datasets/datatables"
)

// The positional arguments land in the options, the flags have their
// documented defaults, and a wrong number of arguments is a usage error
// before anything runs.
func TestDatasetsCommandLines(t *testing.T) {
	ex := clitest.MustParse(t, datasetscmd.NewCmdExport, "testbed", "-o", "tb")
	if *ex != (datasetscmd.ExportOptions{IO: ex.IO, Name: "testbed", Dir: "tb", Seed: datatables.DefaultSeed, Format: "parquet"}) {
		t.Errorf("export: %+v", *ex)
	}
	ex = clitest.MustParse(t, datasetscmd.NewCmdExport, "simulate-testbed", "-o", "st", "--seed", "7", "--format", "csv")
	if ex.Name != "simulate-testbed" || ex.Seed != 7 || ex.Format != "csv" {
		t.Errorf("export --seed 7 --format csv: %+v", *ex)
	}
	im := clitest.MustParse(t, datasetscmd.NewCmdImport, "pollux", "w.csv", "-o", "w")
	if *im != (datasetscmd.ImportOptions{IO: im.IO, Kind: "pollux", File: "w.csv", Dir: "w", Format: "parquet"}) {
		t.Errorf("import: %+v", *im)
	}
	gen := clitest.MustParse(t, datasetscmd.NewCmdGenerate, "--cluster", "c.parquet", "-o", "p.parquet")
	if g := *gen; g.Seed != datatables.DefaultSeed || g.Tasks != 1000 || g.Nodes != 200 || g.Running != 0.3 || g.MaxJobWorkers != 32 ||
		g.AllReduce != 0 || g.Cluster != "c.parquet" || g.Output.Path != "p.parquet" || g.Output.Format != "" {
		t.Errorf("generate: %+v", g)
	}
	clitest.MustRefuse(t, datasetscmd.NewCmdExport, "export takes one argument, the dataset's NAME (optimus datasets lists them); got 0", "-o", "tb")
	clitest.MustRefuse(t, datasetscmd.NewCmdImport, "import takes two arguments, the workload's KIND (pollux) and its FILE; got 1", "pollux", "-o", "w")
	clitest.MustRefuse(t, datasetscmd.NewCmdGenerate, `invalid argument "many" for "--tasks"`, "--tasks", "many")
}
