//go:build tableproto

// Command leanfit is a prototype of fit's loss path over io/table's views
// (benchmarks/table-layer.md, recommendation 4): read, group by job with
// Table.GroupBy into exactly sized points, let the table go, fit; it
// writes the models table `optimus fit -i LOSS -o MODELS` writes. Behind a
// build tag because it uses cli/modelio, which is moving:
//
//	go build -tags tableproto -o leanfit ./benchmarks/leanfit
//	/usr/bin/time -v ./leanfit loss10k.parquet models.parquet
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/optimus-sched/optimus/cli/modelio"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

func groupLoss(t *table.Table) ([]modelio.JobLoss, error) {
	steps, values := t.Int64Values("step"), t.Float64Values("value")
	valueOK := t.Validity("value")
	higher := t.BoolValues("higher_is_better")
	g := t.GroupBy("job")
	out := make([]modelio.JobLoss, g.Len())
	var rows []int
	for i := range g.Len() {
		rows = g.Rows(i, rows)
		jl := modelio.JobLoss{Job: g.Key(i), HigherIsBetter: higher.Value(rows[0]), Points: make([]fit.LossPoint, 0, len(rows))}
		for _, r := range rows {
			if higher.Value(r) != jl.HigherIsBetter {
				return nil, t.Errorf("higher_is_better", r, "job %q changes its higher_is_better flag", jl.Job)
			}
			if n := len(jl.Points); n > 0 && float64(steps[r]) <= jl.Points[n-1].Step {
				return nil, t.Errorf("step", r, "step %d of job %q does not follow its previous step %v: steps must increase within a job", steps[r], jl.Job, jl.Points[n-1].Step)
			}
			v := values[r]
			if !valueOK.IsValid(r) {
				v = nanValue
			}
			jl.Points = append(jl.Points, fit.LossPoint{Step: float64(steps[r]), Value: v})
		}
		jl.Job = string([]byte(jl.Job)) // not the table's memory, so that the table can go
		out[i] = jl
	}
	return out, nil
}

var nanValue = func() float64 { z := 0.0; return z / z }()

func main() {
	t, err := table.ReadFile(os.Args[1], schema.Loss)
	if err != nil {
		panic(err)
	}
	jobs, err := groupLoss(t)
	if err != nil {
		panic(err)
	}
	t = nil
	runtime.GC()
	models := make([]modelio.Model, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				jl := &jobs[i]
				m := modelio.Model{Job: jl.Job, SpeedNote: "no speed samples"}
				opt := fit.DefaultLossOptions
				opt.HigherIsBetter = jl.HigherIsBetter
				lf, err := fit.FitLoss(jl.Points, opt)
				switch {
				case err != nil:
					m.LossNote = err.Error()
				case lf.Quality == fit.QualityInsufficient:
					m.Loss = &lf
					m.LossNote = fmt.Sprintf("%d usable of %d points; %d needed", lf.Used, len(jl.Points), opt.MinPoints)
				default:
					m.Loss = &lf
				}
				m.SpeedQuality = modelio.SpeedVerdict(nil, false, m.SpeedNote)
				jl.Points = nil
				models[i] = m
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	out, err := table.Conform(modelio.ModelsTable(models))
	if err != nil {
		panic(err)
	}
	if err := table.WriteFile(os.Args[2], out); err != nil {
		panic(err)
	}
}
