package metricscmd

import (
	"os"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/metrics"
)

// lossTable is every job's metric points, jobs by name, steps increasing.
// The job and higher_is_better columns repeat one value per job: they are
// built by runs, without a per-row slice of job names.
func lossTable(results []*metrics.Result) *table.Table {
	n := 0
	for _, r := range results {
		n += r.Loss.Len()
	}
	steps, values := make([]int64, 0, n), make([]float64, 0, n)
	jobs, higher, runs := make([]string, len(results)), make([]bool, len(results)), make([]int, len(results))
	for i, r := range results {
		steps, values = r.Loss.AppendSteps(steps), r.Loss.AppendValues(values)
		jobs[i], higher[i], runs[i] = r.Job, r.HigherIsBetter, r.Loss.Len()
	}
	t := table.New(schema.Loss, n)
	t.SetStringsRepeated("job", jobs, nil, runs)
	t.SetInt64s("step", steps, nil)
	t.SetFloat64s("value", values, nil)
	t.SetBoolsRepeated("higher_is_better", higher, nil, runs)
	t.Source = "metrics"
	return t
}

// speedTable is every job's speed samples, in the order of its runs.
func speedTable(results []*metrics.Result) *table.Table {
	var jobs []string
	var ps, ws []int64
	var speed []float64
	for _, r := range results {
		for _, s := range r.Speed {
			jobs, ps, ws, speed = append(jobs, r.Job), append(ps, int64(s.PS)), append(ws, int64(s.Workers)), append(speed, s.Speed)
		}
	}
	t := table.New(schema.Speed, len(jobs))
	t.SetStrings("job", jobs, nil)
	t.SetInt64s("ps", ps, nil)
	t.SetInt64s("workers", ws, nil)
	t.SetFloat64s("speed", speed, nil)
	t.Source = "metrics"
	return t
}

func progressTable(results []*metrics.Result, files, skipped []int) *table.Table {
	n := len(results)
	jobs, metric, stepTag := make([]string, n), make([]string, n), make([]string, n)
	metricOK, stepOK := make([]bool, n), make([]bool, n)
	progress, points, samples, sup, skip, nfiles := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	higher := make([]bool, n)
	for i, r := range results {
		jobs[i], metric[i], metricOK[i], higher[i] = r.Job, r.Metric, r.Metric != "", r.HigherIsBetter
		stepTag[i], stepOK[i] = r.Timeline, r.Timeline != ""
		progress[i] = max(r.Progress, 0)
		points[i], samples[i], sup[i] = int64(r.Loss.Len()), int64(len(r.Speed)), int64(r.Superseded)
		skip[i], nfiles[i] = int64(skipped[i]), int64(files[i])
	}
	t := table.New(schema.Progress, n)
	t.SetStrings("job", jobs, nil)
	t.SetInt64s("progress_steps", progress, nil)
	t.SetStrings("metric", metric, metricOK)
	t.SetBools("higher_is_better", higher, nil)
	t.SetInt64s("loss_points", points, nil)
	t.SetInt64s("speed_samples", samples, nil)
	t.SetStrings("step_tag", stepTag, stepOK)
	t.SetInt64s("superseded", sup, nil)
	t.SetInt64s("skipped", skip, nil)
	t.SetInt64s("files", nfiles, nil)
	t.Source = "metrics"
	return t
}

// updateJobs is the jobs table with progress_steps set from the logs of
// the jobs that have some; the others keep theirs.
func updateJobs(jobs *table.Table, results []*metrics.Result) (*table.Table, error) {
	read := map[string]int64{}
	for _, r := range results {
		if r.Progress >= 0 {
			read[r.Job] = r.Progress
		}
	}
	out := jobs.Clone()
	progress := append([]int64(nil), jobs.Int64s("progress_steps")...)
	for i, j := range jobs.Strings("job") {
		if p, ok := read[j]; ok {
			progress[i] = p
		}
	}
	out.SetInt64s("progress_steps", progress, nil)
	return table.Conform(out)
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }
