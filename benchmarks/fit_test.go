// Package benchmarks measures optimus at scale. Run with
//
//	go test ./benchmarks -run '^$' -bench . -benchtime 3x
//
// and see README.md here for recorded results.
package benchmarks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// BenchmarkFitLoss fits the convergence model of 10,000 jobs with 1,000
// loss points each, on every core (the bar: "in seconds").
func BenchmarkFitLoss(b *testing.B) {
	loss, _, err := datatables.Metrics(10000, 1000, 20, 1)
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
	_, speed, err := datatables.Metrics(10000, 1, 20, 1)
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

// fitSpeedLibrary is what fit's command does per speed-model job, with the
// library alone: fit.Identifiable and fit.FitSpeed on grouped samples.
func fitSpeedLibrary(b *testing.B, jobs []pipeline.SpeedSeries) {
	for _, js := range jobs {
		var ok []fit.Config
		for _, s := range js.Samples {
			if s.Speed > 0 {
				ok = append(ok, fit.Config{PS: s.PS, Workers: s.Workers})
			}
		}
		fit.Identifiable(js.Mode, js.GlobalBatch, ok)
		if _, err := fit.FitSpeed(js.Mode, js.GlobalBatch, js.Samples); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitSpeedCommandVsLibrary measures issue 7's second target side
// by side: `optimus fit --speed FILE -o FILE` in-process on 1,000 jobs of 20
// samples against the library alone (fit.Identifiable and fit.FitSpeed on
// the same jobs, grouped beforehand), alternating the two in every
// iteration so that load from elsewhere falls on both alike. It reports
// each one's time per run and their ratio (the target: at most 2). With
// OPTIMUS_BIN naming a built optimus, it times that binary as a whole
// process too (one core, as the rest), start-up included.
func BenchmarkFitSpeedCommandVsLibrary(b *testing.B) {
	_, speed, err := datatables.Metrics(1000, 1, 20, 1)
	if err != nil {
		b.Fatal(err)
	}
	if speed, err = table.Conform(speed); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	in, out := filepath.Join(dir, "speed.parquet"), filepath.Join(dir, "models.parquet")
	if err := table.WriteFile(in, speed); err != nil {
		b.Fatal(err)
	}
	jobs, err := adapt.GroupSpeed(speed, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	speed = nil
	library := func() { fitSpeedLibrary(b, jobs) }
	command := func() {
		runMain(b, nil, "fit", "--speed", in, "--parallel", "1", "-o", out)
	}
	// timed runs f on a collected heap, so that neither pays for the
	// other's garbage.
	timed := func(f func()) time.Duration {
		runtime.GC()
		t0 := time.Now()
		f()
		return time.Since(t0)
	}
	bin := os.Getenv("OPTIMUS_BIN")
	process := func() {
		c := exec.Command(bin, "fit", "--speed", in, "--parallel", "1", "-o", out)
		c.Env = append(os.Environ(), "GOMAXPROCS=1")
		if msg, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v: %s", bin, err, msg)
		}
	}
	var cmd, lib, proc time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The order alternates too, so that neither always runs on the
		// caches the other left.
		if i%2 == 0 {
			cmd += timed(command)
			lib += timed(library)
		} else {
			lib += timed(library)
			cmd += timed(command)
		}
		if bin != "" {
			proc += timed(process)
		}
	}
	if bin != "" {
		b.ReportMetric(float64(proc.Microseconds())/1e3/float64(b.N), "process-ms/op")
		b.ReportMetric(float64(proc)/float64(lib), "process/library")
	}
	b.ReportMetric(float64(cmd.Microseconds())/1e3/float64(b.N), "command-ms/op")
	b.ReportMetric(float64(lib.Microseconds())/1e3/float64(b.N), "library-ms/op")
	b.ReportMetric(float64(cmd)/float64(lib), "command/library")
}
