// Package benchmarks measures optimus at scale. Run with
//
//	go test ./benchmarks -run '^$' -bench . -benchtime 3x
//
// and see README.md here for recorded results.
package benchmarks

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/adapt"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

// BenchmarkFitLoss fits the convergence model of 10,000 jobs with 1,000
// loss points each, on every core (the bar: "in seconds").
func BenchmarkFitLoss(b *testing.B) {
	loss, _, err := datasets.Metrics(10000, 1000, 20, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, par := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("jobs=10000/points=1000/parallel=%d", par), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := fitTables(loss, nil, par); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFitSpeed fits the speed model of 10,000 jobs with 20 samples
// each.
func BenchmarkFitSpeed(b *testing.B) {
	_, speed, err := datasets.Metrics(10000, 1, 20, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, par := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("jobs=10000/samples=20/parallel=%d", par), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := fitTables(nil, speed, par); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fitTables fits the tables as optimus fit does: group, then fit.
func fitTables(loss, speed *table.Table, parallel int) ([]pipeline.Model, error) {
	in, err := adapt.FitInputs(loss, speed, nil)
	if err != nil {
		return nil, err
	}
	return pipeline.FitJobs(in, parallel, nil), nil
}
