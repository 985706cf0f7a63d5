// Package datatables turns the data of package datasets into optimus's
// tables: the datasets `optimus datasets export` writes (the default testbed
// like the paper's, derived from real speed measurements embedded in the
// binary, Pollux's workload and curves, synthetic schedules) and, for
// benchmarks, synthetic inputs of any size. Every generator takes a seed;
// the same seed gives the same tables, byte for byte once written.
//
// It sits above datasets and io/table: datasets holds the typed data and
// generators (measurements, Pollux's profiles, model families, curves) and
// imports no table code, so that the tests of the core packages (solve,
// fit, place, eval, goodput) that use that data do not link Arrow and
// Parquet.
package datatables

import (
	"fmt"
	"strings"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/table"
)

// Named is a generated table with the base name of its file.
type Named struct {
	Name  string
	Table *table.Table
}

// Dataset is a named generator of tables.
type Dataset struct {
	Name     string
	Doc      string
	Generate func(seed uint64) ([]Named, error)
}

// DefaultSeed is the seed used when none is given.
const DefaultSeed = 1

// Catalog lists the datasets `optimus datasets export` can write.
var Catalog = []Dataset{
	{
		Name: "testbed",
		Doc: "The paper's testbed: 13 servers (6 with 4 GPUs, 7 CPU-only) and 9 MXNet jobs over resnet-50, " +
			"vgg-16, inception-bn, seq2seq and dssm; 5 running, 4 just arrived. Speed samples are real measurements " +
			"(DL2's ps-sync-measured), loss logs follow 1/k curves with 3% noise. Tables: cluster, jobs, loss, speed, truth.",
		Generate: Testbed,
	},
	{Name: "simulate-testbed", Doc: "A workload like the paper's testbed experiment for optimus simulate: 9 jobs over the measured model families arriving over 1.5 hours on the testbed's 13 servers, training at the embedded measurements' speeds. Tables: cluster, workload, profiles, profile_speeds.", Generate: SimTestbed},
	{
		Name: "pollux-curves",
		Doc: "Real validation curves of 40 all-reduce training runs measured for Pollux (OSDI'21): cifar10, imagenet " +
			"(step learning-rate schedule), bert, ncf, yolov3, deepspeech2 at several batch sizes. Tables: jobs, loss " +
			"(steps count epochs). For optimus eval convergence.",
		Generate: func(uint64) ([]Named, error) {
			curves, err := datasets.PolluxCurves()
			if err != nil {
				return nil, err
			}
			return PolluxCurvesTables(curves), nil
		},
	},
}

// Lookup returns the dataset called name.
func Lookup(name string) (*Dataset, error) {
	var names []string
	for i := range Catalog {
		if Catalog[i].Name == name {
			return &Catalog[i], nil
		}
		names = append(names, Catalog[i].Name)
	}
	return nil, fmt.Errorf("no dataset %q (there are: %s)", name, strings.Join(names, ", "))
}
