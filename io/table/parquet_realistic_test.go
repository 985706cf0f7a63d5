package table_test

import (
	"bytes"
	"testing"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// optimus' Parquet files have pqarrow's bytes on the tables optimus
// writes, and read back as pqarrow reads them: every dataset of the
// catalog, and a generated workload's cluster and predictions with the
// allocation and plan that solve and place make of them.
func TestParquetBytesOnRealTables(t *testing.T) {
	var tables []datatables.Named
	for _, d := range datatables.Catalog {
		named, err := d.Generate(datatables.DefaultSeed)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		for _, n := range named {
			tables = append(tables, datatables.Named{Name: d.Name + "/" + n.Name, Table: n.Table})
		}
	}
	cluster, pred, err := datatables.Workload(datatables.WorkloadConfig{Seed: 1, Tasks: 20_000, Nodes: 3000, Running: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	c, prob, err := adapt.SolveProblem(pred, cluster, "p50")
	if err != nil {
		t.Fatal(err)
	}
	res, err := solve.Solve(prob, solve.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := adapt.AllocationTable(pred, res, c.Nodes)
	if err != nil {
		t.Fatal(err)
	}
	pprob, err := adapt.PlaceProblem(alloc, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	pres, err := place.Place(pprob, place.Options{Policy: place.Optimus, Candidates: place.DefaultCandidates})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := adapt.PlanTable(pprob, pres)
	if err != nil {
		t.Fatal(err)
	}
	tables = append(tables, datatables.Named{Name: "workload/cluster", Table: cluster}, datatables.Named{Name: "workload/predictions", Table: pred},
		datatables.Named{Name: "workload/allocation", Table: alloc}, datatables.Named{Name: "workload/plan", Table: plan})
	for _, n := range tables {
		conformed, err := table.Conform(n.Table)
		if err != nil {
			t.Fatalf("%s: %v", n.Name, err)
		}
		ours, theirs, err := table.ParquetBoth(conformed)
		if err != nil {
			t.Fatalf("%s: %v", n.Name, err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s (%d rows): %d bytes, pqarrow's are %d and differ", n.Name, conformed.NumRows(), len(ours), len(theirs))
		}
		if err := table.ParquetReadBoth(ours); err != nil {
			t.Errorf("%s: read back: %v", n.Name, err)
		}
	}
	if plan.NumRows() < 15_000 {
		t.Errorf("the plan has %d rows, want the workload's tasks (about 20,000)", plan.NumRows())
	}
}
