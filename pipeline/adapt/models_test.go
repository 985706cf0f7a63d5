package adapt_test

import (
	"testing"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// ReadModels gives back every column ModelsTable wrote: the testbed's
// models, written, read and written again, are the same table.
func TestModelsTableRoundTrips(t *testing.T) {
	named, err := datatables.Testbed(datatables.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	tb := map[string]*table.Table{}
	for _, n := range named {
		if tb[n.Name], err = table.Conform(n.Table); err != nil {
			t.Fatal(err)
		}
	}
	in, err := adapt.FitInputs(tb["loss"], tb["speed"], tb["jobs"])
	if err != nil {
		t.Fatal(err)
	}
	models := pipeline.FitJobs(in, 1, nil)
	first, err := table.Conform(adapt.ModelsTable(models))
	if err != nil {
		t.Fatal(err)
	}
	byJob := adapt.ReadModels(first)
	again := make([]pipeline.Model, len(models))
	for i, m := range models {
		again[i] = byJob[m.Job]
	}
	second, err := table.Conform(adapt.ModelsTable(again))
	if err != nil {
		t.Fatal(err)
	}
	if d := table.Diff(first, second); d != "" {
		t.Errorf("models table after a round trip: %s", d)
	}
}
