package adapt

import (
	"fmt"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

// SuggestOptions bound fit suggest's candidates.
type SuggestOptions struct {
	// Samples is how many configurations each job should have measured.
	Samples int
	// MaxPS and MaxWorkers bound the candidates of a job whose jobs row
	// has no max_ps or max_workers (or that has no jobs row).
	MaxPS, MaxWorkers int
	// WorkersPerNode and MaxNodes shape an allreduce job's candidates
	// (fit.AllReduceGrid).
	WorkersPerNode, MaxNodes int
}

// suggestJob is what fit suggest knows of a job.
type suggestJob struct {
	mode         string
	batch        float64
	maxPS, maxWk int
}

// Suggest tells, for each job of jobs and of speed (either may be nil),
// which configurations to measure next (fit.SuggestConfigs) until it has
// o.Samples measured, and returns them as a suggestions table along with
// the number of jobs considered. Jobs come in the jobs table's order, then
// those only the speed table names; a failed run counts as measured but
// does not help identify the model. Speed rows of a job the jobs table
// (read from jobsSource) lacks are errors, as in GroupSpeed.
// MaxSuggestSamples bounds SuggestOptions.Samples, and MaxSuggestGrid the
// configurations one job's suggestions are chosen from: the choice takes
// a pass over them per suggestion.
const (
	MaxSuggestSamples = 1000
	MaxSuggestGrid    = 1 << 16
)

func Suggest(jobs, speed *table.Table, jobsSource string, o SuggestOptions) (*table.Table, int, error) {
	var order []string
	limits := map[string]suggestJob{}
	var infos map[string]pipeline.JobInfo
	if jobs != nil {
		infos, order = JobInfos(jobs)
		maxPS, okPS := jobs.Int64s(col.MaxPS), jobs.Valid(col.MaxPS)
		maxW, okW := jobs.Int64s(col.MaxWorkers), jobs.Valid(col.MaxWorkers)
		for i, j := range order {
			l := suggestJob{mode: infos[j].Mode, batch: infos[j].GlobalBatch, maxPS: o.MaxPS, maxWk: o.MaxWorkers}
			if okPS[i] {
				l.maxPS = int(maxPS[i])
			}
			if okW[i] {
				l.maxWk = int(maxW[i])
			}
			limits[j] = l
		}
	}
	measured := map[string][]fit.Config{}
	succeeded := map[string][]fit.Config{}
	if speed != nil {
		groups, err := GroupSpeed(speed, infos, jobsSource)
		if err != nil {
			return nil, 0, err
		}
		for _, g := range groups {
			if _, ok := limits[g.Job]; !ok {
				order = append(order, g.Job)
				limits[g.Job] = suggestJob{mode: g.Mode, batch: g.GlobalBatch, maxPS: o.MaxPS, maxWk: o.MaxWorkers}
			}
			for _, s := range g.Samples {
				c := fit.SampleConfig(s)
				measured[g.Job] = append(measured[g.Job], c)
				if s.Speed > 0 {
					succeeded[g.Job] = append(succeeded[g.Job], c)
				}
			}
		}
	}
	var oJob []string
	var oRank, oPS, oW, oNodes []int64
	var oIdent, oNodesOK []bool
	for _, j := range order {
		l := limits[j]
		want := o.Samples - len(measured[j])
		if want <= 0 {
			continue
		}
		var grid []fit.Config
		if l.mode == fit.AllReduce {
			w := min(l.maxWk, o.WorkersPerNode*o.MaxNodes)
			if w > MaxSuggestGrid/2 { // up to two configurations a worker count
				return nil, 0, table.InvalidInput(fmt.Errorf("job %q: suggesting from up to %d workers: at most %d (lower --max-workers or the job's max_workers)", j, w, MaxSuggestGrid/2))
			}
			grid = fit.AllReduceGrid(w, o.WorkersPerNode, o.MaxNodes)
		} else {
			if l.maxPS > MaxSuggestGrid/max(l.maxWk, 1) {
				return nil, 0, table.InvalidInput(fmt.Errorf("job %q: suggesting from %d PS x %d workers: at most %d configurations (lower --max-ps, --max-workers or the job's max_ps, max_workers)", j, l.maxPS, l.maxWk, MaxSuggestGrid))
			}
			grid = fit.Grid(l.maxPS, l.maxWk)
		}
		picks := fit.SuggestConfigs(measured[j], grid, want)
		have := append([]fit.Config{}, succeeded[j]...)
		for k, c := range picks {
			have = append(have, c)
			oJob, oRank, oPS, oW = append(oJob, j), append(oRank, int64(k+1)), append(oPS, int64(c.PS)), append(oW, int64(c.Workers))
			oNodes, oNodesOK = append(oNodes, int64(c.Nodes)), append(oNodesOK, l.mode == fit.AllReduce)
			oIdent = append(oIdent, fit.Identifiable(l.mode, l.batch, have))
		}
	}
	t := table.New(schema.Suggestions, len(oJob))
	t.SetStrings(col.Job, oJob, nil)
	t.SetInt64s(col.Rank, oRank, nil)
	t.SetInt64s(col.PS, oPS, nil)
	t.SetInt64s(col.Workers, oW, nil)
	t.SetInt64s(col.Nodes, oNodes, oNodesOK)
	t.SetBools(col.Identifiable, oIdent, nil)
	return t, len(order), nil
}
