// Command genmetrics writes the synthetic metrics of datatables.Metrics (the
// inputs of benchmarks/fit_test.go) as files, so that `optimus fit` can be
// measured as a whole process on the same data:
//
//	go run ./benchmarks/genmetrics -jobs 1000 -points 1 -samples 20 -speed speed.parquet
//	go run ./benchmarks/genmetrics -jobs 10000 -points 1000 -loss loss.parquet
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
)

func main() {
	jobs := flag.Int("jobs", 1000, "number of jobs")
	points := flag.Int("points", 1000, "loss points per job")
	samples := flag.Int("samples", 20, "speed samples per job")
	seed := flag.Uint64("seed", 1, "random seed")
	lossPath := flag.String("loss", "", "write the loss table to this file")
	speedPath := flag.String("speed", "", "write the speed table to this file")
	flag.Parse()
	if err := run(*jobs, *points, *samples, *seed, *lossPath, *speedPath); err != nil {
		fmt.Fprintln(os.Stderr, "genmetrics:", err)
		os.Exit(1)
	}
}

func run(jobs, points, samples int, seed uint64, lossPath, speedPath string) error {
	if lossPath == "" && speedPath == "" {
		return fmt.Errorf("give -loss FILE, -speed FILE or both")
	}
	loss, speed, err := datatables.Metrics(jobs, points, samples, seed)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		path string
		t    *table.Table
	}{{lossPath, loss}, {speedPath, speed}} {
		if out.path == "" {
			continue
		}
		t, err := table.Conform(out.t)
		if err != nil {
			return err
		}
		if err := table.WriteFile(out.path, t); err != nil {
			return err
		}
	}
	return nil
}
