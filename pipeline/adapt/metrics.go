package adapt

import (
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

// GroupLoss splits a loss table by job, in order of first appearance, each
// job's points in an exactly sized slice that does not share the table's
// memory (so that the table can go before fitting starts). Steps must
// increase within a job (row order is log order), and a job's
// higher_is_better flag must not change; either mistake is an input error
// naming the first such row of the table. known, when not nil, lists the
// jobs the table may name.
func GroupLoss(t *table.Table, known map[string]bool, knownSource string) ([]pipeline.LossSeries, error) {
	steps, values := t.Int64Values(col.Step), t.Float64Values(col.Value)
	valueOK := t.Validity(col.Value)
	higher := t.BoolValues(col.HigherIsBetter)
	g := t.GroupBy(col.Job)
	out := make([]pipeline.LossSeries, g.Len())
	// The first bad row of the table, whichever job it is in: the message
	// names the row a user fixes first.
	var first *table.Error
	bad := func(e *table.Error) {
		if first == nil || e.Row < first.Row {
			first = e
		}
	}
	var rows []int
	for i := range g.Len() {
		rows = g.Rows(i, rows)
		job := g.Key(i)
		if known != nil && !known[job] {
			bad(t.Errorf(col.Job, rows[0], "unknown job %q (not in %s)", job, knownSource))
			continue
		}
		js := pipeline.LossSeries{Job: strings.Clone(job), HigherIsBetter: higher.Value(rows[0]), Points: make([]fit.LossPoint, 0, len(rows))}
		for _, r := range rows {
			if first != nil && r+1 > first.Row {
				break // a row after the first bad one cannot come first
			}
			if higher.Value(r) != js.HigherIsBetter {
				bad(t.Errorf(col.HigherIsBetter, r, "job %q changes its higher_is_better flag", job))
				break
			}
			if n := len(js.Points); n > 0 && float64(steps[r]) <= js.Points[n-1].Step {
				bad(t.Errorf(col.Step, r, "step %d of job %q does not follow its previous step %v: steps must increase within a job", steps[r], job, js.Points[n-1].Step))
				break
			}
			v := values[r]
			if !valueOK.IsValid(r) {
				v = nan
			}
			js.Points = append(js.Points, fit.LossPoint{Step: float64(steps[r]), Value: v})
		}
		out[i] = js
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// JobInfos indexes a jobs table.
func JobInfos(t *table.Table) (map[string]pipeline.JobInfo, []string) {
	jobs := t.Strings(col.Job)
	modes, batch, epoch := t.Strings(col.Mode), t.Int64s(col.GlobalBatch), t.Int64s(col.EpochSteps)
	out := make(map[string]pipeline.JobInfo, len(jobs))
	for i, j := range jobs {
		out[j] = pipeline.JobInfo{Mode: modes[i], GlobalBatch: float64(batch[i]), EpochSteps: float64(epoch[i])}
	}
	return out, jobs
}

// GroupSpeed splits a speed table by job, in order of first appearance,
// each job's samples in an exactly sized slice. Each job's mode and global
// batch come from the table's own columns or, where those are null, from
// jobs (nil when there is no jobs table); a job with neither, or with
// conflicting values, is an input error naming the first such row of the
// table.
func GroupSpeed(t *table.Table, jobs map[string]pipeline.JobInfo, jobsSource string) ([]pipeline.SpeedSeries, error) {
	ps, ws := t.Int64Values(col.PS), t.Int64Values(col.Workers)
	speeds, speedOK := t.Float64Values(col.Speed), t.Validity(col.Speed)
	modes, modeOK := t.StringValues(col.Mode), t.Validity(col.Mode)
	batch, batchOK := t.Int64Values(col.GlobalBatch), t.Validity(col.GlobalBatch)
	// nodes and local_batch came with version 2 of the table: an older
	// file has neither (null: one node, the job's own batch).
	var nodes []int64
	var local []float64
	var nodesOK, localOK table.Validity
	if t.Has(col.Nodes) {
		nodes, nodesOK = t.Int64Values(col.Nodes), t.Validity(col.Nodes)
	}
	if t.Has(col.LocalBatch) {
		local, localOK = t.Float64Values(col.LocalBatch), t.Validity(col.LocalBatch)
	}
	g := t.GroupBy(col.Job)
	out := make([]pipeline.SpeedSeries, g.Len())
	var first *table.Error
	var rows []int
	for i := range g.Len() {
		rows = g.Rows(i, rows)
		j := strings.Clone(g.Key(i))
		info, known := jobs[j]
		js := pipeline.SpeedSeries{Job: j, Samples: make([]fit.SpeedSample, 0, len(rows))}
		for k, r := range rows {
			if first != nil && r+1 > first.Row {
				break // a row after the first bad one cannot come first
			}
			mode, gb := info.Mode, info.GlobalBatch
			var e *table.Error
			if modeOK.IsValid(r) {
				if known && mode != modes.Value(r) {
					e = t.Errorf(col.Mode, r, "job %q is %s here but %s in %s", j, modes.Value(r), mode, jobsSource)
				}
				mode = modes.Value(r)
			}
			if batchOK.IsValid(r) {
				gb = float64(batch[r])
			}
			s := fit.SpeedSample{PS: int(ps[r]), Workers: int(ws[r]), Speed: speeds[r]}
			if !speedOK.IsValid(r) {
				s.Speed = nan
			}
			if nodes != nil && nodesOK.IsValid(r) {
				s.Nodes = int(nodes[r])
			}
			if local != nil && localOK.IsValid(r) {
				s.LocalBatch = local[r]
			}
			if k == 0 {
				js.Mode, js.GlobalBatch = mode, gb
			}
			switch {
			case jobs != nil && !known:
				e = t.Errorf(col.Job, r, "unknown job %q (not in %s)", j, jobsSource)
			case e != nil:
			case mode == "":
				e = t.Errorf(col.Mode, r, "job %q has no mode: give the speed table a mode column or pass --jobs", j)
			case (mode == fit.Sync || mode == fit.AllReduce) && !(gb > 0):
				e = t.Errorf(col.GlobalBatch, r, "job %q is %s but has no global batch: give the speed table a global_batch column or pass --jobs", j, mode)
			case mode == fit.AllReduce && s.PS != 0:
				e = t.Errorf(col.PS, r, "job %q is allreduce, which has no parameter servers: ps must be 0, not %d", j, s.PS)
			case mode != fit.AllReduce && s.PS < 1:
				e = t.Errorf(col.PS, r, "job %q is %s: ps must be at least 1, not %d", j, mode, s.PS)
			case mode != fit.AllReduce && (s.Nodes != 0 || s.LocalBatch != 0):
				e = t.Errorf(col.Nodes, r, "job %q is %s: nodes and local_batch are for allreduce jobs only", j, mode)
			case s.Nodes > s.Workers:
				e = t.Errorf(col.Nodes, r, "job %q: %d workers cannot span %d nodes", j, s.Workers, s.Nodes)
			case js.Mode != mode || js.GlobalBatch != gb:
				e = t.Errorf("", r, "job %q changes its mode or global batch between rows", j)
			}
			if e != nil {
				if first == nil || e.Row < first.Row {
					first = e
				}
				break
			}
			js.Samples = append(js.Samples, s)
		}
		out[i] = js
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// FitInputs groups the loss and speed tables (either may be nil) into the
// jobs to fit. With a jobs table every job of it is fitted, in its order,
// and the tables may name no other job; otherwise jobs come in order of
// first appearance, loss before speed.
func FitInputs(loss, speed, jobs *table.Table) ([]pipeline.FitInput, error) {
	var infos map[string]pipeline.JobInfo
	var order []string
	var known map[string]bool
	jobsSource := ""
	if jobs != nil {
		infos, order = JobInfos(jobs)
		known = make(map[string]bool, len(order))
		for _, j := range order {
			known[j] = true
		}
		jobsSource = jobs.Source
	}
	var lossByJob []pipeline.LossSeries
	var speedByJob []pipeline.SpeedSeries
	var err error
	if loss != nil {
		if lossByJob, err = GroupLoss(loss, known, jobsSource); err != nil {
			return nil, err
		}
	}
	if speed != nil {
		if speedByJob, err = GroupSpeed(speed, infos, jobsSource); err != nil {
			return nil, err
		}
	}
	index := make(map[string]int, len(order))
	for i, j := range order {
		index[j] = i
	}
	add := func(j string) int {
		i, ok := index[j]
		if !ok {
			i = len(order)
			index[j] = i
			order = append(order, j)
		}
		return i
	}
	in := make([]pipeline.FitInput, len(order))
	for i, j := range order {
		in[i].Job = j
		if info, ok := infos[j]; ok {
			in[i].Info = &info
		}
	}
	for k := range lossByJob {
		i := add(lossByJob[k].Job)
		if i == len(in) {
			in = append(in, pipeline.FitInput{Job: lossByJob[k].Job})
		}
		in[i].Loss = &lossByJob[k]
	}
	for k := range speedByJob {
		i := add(speedByJob[k].Job)
		if i == len(in) {
			in = append(in, pipeline.FitInput{Job: speedByJob[k].Job})
		}
		in[i].Speed = &speedByJob[k]
	}
	return in, nil
}
