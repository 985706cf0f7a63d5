package adapt

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/eval"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

// SpeedKey is the column that groups speed measurements when none is
// named: job, or model when the table has a model column and no job column
// (as DL2's measurements do).
func SpeedKey(t *table.Table) string {
	if !t.Has(col.Job) && t.Has(col.Model) {
		return col.Model
	}
	return col.Job
}

// ConformSpeed reads raw measurements as a speed table whose job column is
// called key. A speed table keyed by job is returned as it is; a table of
// another declared kind is an error naming its file.
func ConformSpeed(raw *table.Table, key string) (*table.Table, error) {
	if raw.Name == schema.Speed.Name && key == col.Job {
		return raw, nil
	}
	if raw.Name != "" && raw.Name != schema.Speed.Name {
		return nil, &table.Error{Source: raw.Source, Msg: fmt.Sprintf("eval speed reads speed measurements, not %s table", table.WithArticle(raw.Name))}
	}
	raw.Name = ""
	return table.ConformTo(raw, speedSpecKeyed(key))
}

// speedSpecKeyed is the speed table's declaration with its job column
// renamed to key.
func speedSpecKeyed(key string) *schema.Table {
	s := *schema.Speed
	s.Columns = slices.Clone(s.Columns)
	for i := range s.Columns {
		if s.Columns[i].Name == col.Job {
			s.Columns[i].Name = key
		}
	}
	return &s
}

// SpeedMeasurements reads a speed table keyed by key (see ConformSpeed)
// into eval speed's measurements. jobs, when not nil, is a jobs table
// (read from jobsSource) that gives each job's mode and global batch where
// the measurements have none; the measurements are then keyed by job. A
// row without a mode, a synchronous row without its global batch, an
// allreduce row without its global or local batch, and a PS count that
// does not fit the mode are errors naming the column and row.
func SpeedMeasurements(t *table.Table, key string, jobs *table.Table, jobsSource string) ([]eval.SpeedMeasurement, error) {
	keys, ps, ws, sp := t.Strings(key), t.Int64s(col.PS), t.Int64s(col.Workers), t.Float64s(col.Speed)
	modes, modeOK := t.Strings(col.Mode), t.Valid(col.Mode)
	batch, batchOK := t.Int64s(col.GlobalBatch), t.Valid(col.GlobalBatch)
	if jobs != nil {
		infos, _ := JobInfos(jobs)
		for r, j := range keys {
			info, ok := infos[j]
			if !ok {
				return nil, t.Errorf(key, r, "unknown job %q (not in %s)", j, jobsSource)
			}
			if !modeOK[r] {
				modes[r], modeOK[r] = info.Mode, true
			}
			if !batchOK[r] && info.GlobalBatch > 0 {
				batch[r], batchOK[r] = int64(info.GlobalBatch), true
			}
		}
	}
	if r := slices.Index(modeOK, false); r >= 0 {
		return nil, t.Errorf(col.Mode, r, "no value: eval speed needs every row's mode (sync, async or allreduce): give the table a mode column or pass --jobs")
	}
	nodes, nodesOK := t.Int64s(col.Nodes), t.Valid(col.Nodes)
	local, localOK := t.Float64s(col.LocalBatch), t.Valid(col.LocalBatch)
	var ms []eval.SpeedMeasurement
	for r := range keys {
		if modes[r] == fit.Sync && !batchOK[r] {
			return nil, &table.Error{Source: t.Source, Column: col.GlobalBatch, Row: r + 1, Msg: "a synchronous job needs its global batch"}
		}
		if modes[r] == fit.AllReduce && !batchOK[r] && !localOK[r] {
			return nil, &table.Error{Source: t.Source, Column: col.GlobalBatch, Row: r + 1, Msg: "an allreduce job needs its global batch or its local_batch"}
		}
		if (modes[r] == fit.AllReduce) != (ps[r] == 0) {
			return nil, &table.Error{Source: t.Source, Column: col.PS, Row: r + 1, Msg: fmt.Sprintf("%s with %d PS: allreduce rows have ps 0, the others at least 1", modes[r], ps[r])}
		}
		m := eval.SpeedMeasurement{Key: keys[r], Mode: modes[r], GlobalBatch: float64(batch[r]),
			PS: int(ps[r]), Workers: int(ws[r]), Speed: sp[r]}
		if nodesOK[r] {
			m.Nodes = int(nodes[r])
		}
		if localOK[r] {
			m.LocalBatch = local[r]
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// SpeedEvalTable writes eval speed's results as a speed_eval table; the
// errors of a key that could not be evaluated are null and its note says
// why. A sampled configuration is written ps:workers, or workers x nodes
// for allreduce.
func SpeedEvalTable(res []eval.SpeedResult, sampling string) *table.Table {
	n := len(res)
	out := table.New(schema.SpeedEval, n)
	k, mode, samplings, cfgs, notes := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	configs, sampled, trials, failed, predicted := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	med, p90, mx := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range res {
		k[i], mode[i], samplings[i], notes[i] = r.Key, r.Mode, sampling, r.Err
		configs[i], sampled[i], trials[i], failed[i], predicted[i] = int64(r.Configs), int64(r.Samples), int64(r.Trials), int64(r.Failed), int64(r.Predicted)
		med[i], p90[i], mx[i] = math.NaN(), math.NaN(), math.NaN()
		if r.Err == "" {
			med[i], p90[i], mx[i] = r.MedianErr, r.P90Err, r.MaxErr
		}
		var parts []string
		for _, c := range r.SampledCfg {
			if c.PS == 0 {
				parts = append(parts, fmt.Sprintf("%dx%d", c.Workers, c.Nodes)) // allreduce: workers x nodes
				continue
			}
			parts = append(parts, fmt.Sprintf("%d:%d", c.PS, c.Workers))
		}
		cfgs[i] = strings.Join(parts, " ")
	}
	out.SetStrings(col.Key, k, nil)
	out.SetStrings(col.Mode, mode, nil)
	out.SetInt64s(col.Configs, configs, nil)
	out.SetInt64s(col.Sampled, sampled, nil)
	out.SetStrings(col.Sampling, samplings, nil)
	out.SetInt64s(col.Trials, trials, nil)
	out.SetInt64s(col.Failed, failed, nil)
	out.SetInt64s(col.Predicted, predicted, nil)
	out.SetFloat64sNaNAsNull(col.MedianRelErr, med)
	out.SetFloat64sNaNAsNull(col.P90RelErr, p90)
	out.SetFloat64sNaNAsNull(col.MaxRelErr, mx)
	out.SetStrings(col.SampledConfigs, cfgs, Present(cfgs))
	out.SetStrings(col.Note, notes, Present(notes))
	return out
}

// EpochJobsSpec is the part of the jobs table eval convergence reads: job
// and epoch_steps, and optionally model, schedule_end_steps and
// epoch_budget; other
// columns are carried and ignored.
func EpochJobsSpec() *schema.Table {
	s := *schema.Jobs
	s.Columns, s.Patterns, s.MinPatternColumns = nil, nil, 0
	for _, c := range schema.Jobs.Columns {
		switch c.Name {
		case col.Job, col.EpochSteps:
			s.Columns = append(s.Columns, c)
		case col.Model, col.ScheduleEndSteps, col.EpochBudget:
			c.Required, c.Nullable, c.Default = false, true, ""
			s.Columns = append(s.Columns, c)
		}
	}
	return &s
}

// curveJob is what eval convergence knows of a curve's job.
type curveJob struct {
	epochSteps  float64
	model       string
	scheduleEnd float64 // steps; 0 when none is declared
	budget      float64 // epochs; 0 when none is declared
}

// curveJobs reads each job's epoch length, model family and declared
// schedule end from a table read with EpochJobsSpec.
func curveJobs(jobs *table.Table) map[string]curveJob {
	infos := map[string]curveJob{}
	names, es := jobs.Strings(col.Job), jobs.Int64s(col.EpochSteps)
	var models []string
	if jobs.Has(col.Model) {
		models = jobs.Strings(col.Model)
	}
	var ends []int64
	var endOK []bool
	if jobs.Has(col.ScheduleEndSteps) {
		ends, endOK = jobs.Int64s(col.ScheduleEndSteps), jobs.Valid(col.ScheduleEndSteps)
	}
	budget, budgetOK := EpochBudgets(jobs) // as predict reads it (JobStates)
	for i, j := range names {
		cj := curveJob{epochSteps: float64(es[i])}
		if budgetOK[i] {
			cj.budget = budget[i]
		}
		if models != nil {
			cj.model = models[i]
		}
		if ends != nil && endOK[i] {
			cj.scheduleEnd = float64(ends[i])
		}
		infos[j] = cj
	}
	return infos
}

// ConvergenceCurves reads complete training curves from a loss table, one
// curve by epoch per job (see curveByEpoch). jobs, when not nil, is a
// table read with EpochJobsSpec from jobsSource: it gives each curve's
// epoch length, model family and declared schedule end, and a loss row of
// a job it lacks is an error. Without it every curve has epochSteps steps
// an epoch and no family.
func ConvergenceCurves(loss, jobs *table.Table, jobsSource string, epochSteps int64) ([]eval.Curve, error) {
	var infos map[string]curveJob
	var known map[string]bool
	if jobs != nil {
		infos, known = curveJobs(jobs), map[string]bool{}
		for j := range infos {
			known[j] = true
		}
	}
	groups, err := GroupLoss(loss, known, jobsSource)
	if err != nil {
		return nil, err
	}
	curves := make([]eval.Curve, 0, len(groups))
	for _, g := range groups {
		cj := curveJob{epochSteps: float64(epochSteps)}
		if infos != nil {
			cj = infos[g.Job]
		}
		c := curveByEpoch(g, cj.epochSteps)
		c.Family = cj.model
		if cj.scheduleEnd > 0 {
			c.ScheduleEnd = cj.scheduleEnd / cj.epochSteps
		}
		c.Budget = cj.budget
		curves = append(curves, c)
	}
	return curves, nil
}

// curveByEpoch turns a job's points into a curve by epoch. Points are
// binned by the epoch they fall in ((e-1)·epochSteps, e·epochSteps], a
// point at step 0 in the first, and each bin's finite values averaged: a
// per-step loss log becomes one mean value per epoch, not one minibatch's
// value. The fit sees each bin at its mean step (in epochs), including a
// last, partial epoch; the truth sees each whole epoch's mean, missing
// (NaN) for an epoch without points, as in a log evaluated every few
// epochs, which the truth interpolates over. The rule's window stays in
// epochs whatever the spacing of the points.
func curveByEpoch(g pipeline.LossSeries, epochSteps float64) eval.Curve {
	c := eval.Curve{Name: g.Job, HigherIsBetter: g.HigherIsBetter, Points: []fit.LossPoint{}}
	if len(g.Points) == 0 || !(epochSteps > 0) {
		return c
	}
	last := g.Points[len(g.Points)-1].Step
	whole := int(math.Floor(last/epochSteps + 1e-9))
	c.Values = make([]float64, whole)
	for e := range c.Values {
		c.Values[e] = math.NaN()
	}
	for k := 0; k < len(g.Points); {
		bin := max(1, int(math.Ceil(g.Points[k].Step/epochSteps-1e-9)))
		var sum, steps float64
		n := 0
		j := k
		for ; j < len(g.Points) && max(1, int(math.Ceil(g.Points[j].Step/epochSteps-1e-9))) == bin; j++ {
			if v := g.Points[j].Value; !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum, steps, n = sum+v, steps+g.Points[j].Step, n+1
			}
		}
		k = j
		if n == 0 {
			continue
		}
		mean := sum / float64(n)
		c.Points = append(c.Points, fit.LossPoint{Step: math.Max(steps/float64(n)/epochSteps, 1e-9), Value: mean})
		if bin <= whole {
			c.Values[bin-1] = mean
		}
	}
	return c
}

// ConvergenceEvalTable writes eval convergence's results as a
// convergence_eval table: the predicted columns are null where the curve
// could not be fitted, and a fit the log contradicts is marked poor.
func ConvergenceEvalTable(res []eval.ConvergenceResult) *table.Table {
	n := len(res)
	t := table.New(schema.ConvergenceEval, n)
	job, model, quality, note := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	frac, epochErr, trueFinal, predFinal, r2, rho := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	width, prior := make([]float64, n), make([]float64, n)
	obs, epochs, trueEpoch, p10, p50, p90, floor := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	censored, covered, predicted := make([]bool, n), make([]bool, n), make([]bool, n)
	for i, r := range res {
		job[i], model[i], note[i], frac[i] = r.Curve, r.Family, r.Err, r.Fraction
		obs[i], epochs[i], trueEpoch[i], censored[i] = int64(r.Observed), int64(r.Epochs), int64(r.TrueEpoch), r.Censored
		trueFinal[i] = r.TrueFinal
		predicted[i] = r.Err == ""
		epochErr[i], predFinal[i], r2[i], rho[i], width[i], prior[i] = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		quality[i] = r.Fit.Quality
		if predicted[i] {
			p10[i], p50[i], p90[i], covered[i], floor[i] = int64(r.P10), int64(r.P50), int64(r.P90), r.Covered, int64(r.Floor)
			epochErr[i], predFinal[i], r2[i], rho[i] = r.EpochError(), r.PredFinal, r.Fit.R2, r.Fit.Autocorr
			width[i], prior[i] = r.Width(), r.PriorWeight
			if r.Contradicted {
				quality[i] = fit.QualityPoor
				note[i] = fmt.Sprintf("the fit (quality %s) predicted convergence before epoch %d, by which the log still fell faster than the rule allows", r.Fit.Quality, r.Floor)
			}
			if r.Scheduled {
				note[i] = "declared schedule"
			}
		}
	}
	t.SetStrings(col.Job, job, nil)
	t.SetStrings(col.Model, model, Present(model))
	t.SetFloat64s(col.Fraction, frac, nil)
	t.SetInt64s(col.ObservedEpochs, obs, nil)
	t.SetInt64s(col.Epochs, epochs, nil)
	t.SetInt64s(col.TrueEpoch, trueEpoch, nil)
	t.SetBools(col.Censored, censored, nil)
	t.SetInt64s(col.PredEpochP10, p10, predicted)
	t.SetInt64s(col.PredEpochP50, p50, predicted)
	t.SetInt64s(col.PredEpochP90, p90, predicted)
	t.SetFloat64sNaNAsNull(col.EpochError, epochErr)
	t.SetBools(col.Covered, covered, predicted)
	t.SetFloat64sNaNAsNull(col.IntervalWidth, width)
	t.SetFloat64sNaNAsNull(col.PriorWeight, prior)
	t.SetInt64s(col.FloorEpoch, floor, predicted)
	t.SetFloat64sNaNAsNull(col.TrueFinal, trueFinal)
	t.SetFloat64sNaNAsNull(col.PredFinal, predFinal)
	t.SetStrings(col.Quality, quality, Present(quality))
	t.SetFloat64sNaNAsNull(col.R2, r2)
	t.SetFloat64sNaNAsNull(col.Autocorr, rho)
	t.SetStrings(col.Note, note, Present(note))
	return t
}
