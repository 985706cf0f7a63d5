// Package simtables converts between the simulator's tables (workload,
// profiles, cluster in; sim_jobs, sim_allocations, sim_utilisation,
// sim_summary out) and package simulate's types. Problems with an input are
// reported with its file, column and row.
package simtables

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/simulate"
)

// Input reads a simulation's input tables. A job whose model has no
// profile, whose mode is not its profile's, whose arrival comes before the
// row above, or which needs a resource the cluster lacks is an error naming
// the workload's file, column and row. A job that can never fit the cluster
// is not an error: it is reported as never started, with the reason.
//
// speeds, the profile_speeds table, may be nil when no profile is of kind
// measured.
func Input(cluster, workload, profiles, speeds *table.Table) (*simulate.Input, error) {
	c, err := adapt.Cluster(cluster)
	if err != nil {
		return nil, err
	}
	profs, err := Profiles(profiles, speeds)
	if err != nil {
		return nil, err
	}
	jobs, err := Workload(workload, c, profs, profiles.Source)
	if err != nil {
		return nil, err
	}
	return &simulate.Input{Cluster: c, Jobs: jobs, Profiles: profs}, nil
}

// Profiles reads a profiles table and, for its measured profiles, the
// profile_speeds table (nil when there is none).
func Profiles(t, speeds *table.Table) (map[string]simulate.Profile, error) {
	samples := map[string][]fit.SpeedSample{}
	if speeds != nil {
		known := map[string]bool{}
		for _, m := range t.Strings(col.Model) {
			known[m] = true
		}
		ps, w, v := speeds.Int64s(col.PS), speeds.Int64s(col.Workers), speeds.Float64s(col.MeasuredSpeed)
		for i, m := range speeds.Strings(col.Model) {
			if !known[m] {
				return nil, speeds.Errorf(col.Model, i, "model %q has no row in %s", m, t.Source)
			}
			samples[m] = append(samples[m], fit.SpeedSample{PS: int(ps[i]), Workers: int(w[i]), Speed: v[i]})
		}
	}
	out := make(map[string]simulate.Profile, t.NumRows())
	model, kind, mode := t.Strings(col.Model), t.Strings(col.Kind), t.Strings(col.SpeedMode)
	var theta [5][]float64
	for k := range theta {
		theta[k] = t.Float64s(fmt.Sprintf("speed_theta%d", k))
	}
	b0, b1, b2 := t.Float64s(col.LossB0), t.Float64s(col.LossB1), t.Float64s(col.LossB2)
	ln, sn := t.Float64s(col.LossNoise), t.Float64s(col.SpeedNoise)
	drops, dropsOK, dropFactor := t.Strings(col.LossDrops), t.Valid(col.LossDrops), t.Float64s(col.LossDropFactor)
	for i, m := range model {
		if kind[i] != simulate.KindPS && kind[i] != simulate.KindMeasured {
			return nil, t.Errorf(col.Kind, i, "kind %q is not supported yet: %q (parameter-server speed model) or %q (profile_speeds)", kind[i], simulate.KindPS, simulate.KindMeasured)
		}
		if mode[i] != fit.Sync && mode[i] != fit.Async {
			return nil, t.Errorf(col.SpeedMode, i, "%q: a ps profile's speed_mode is sync or async", mode[i])
		}
		p := simulate.Profile{Model: m, Kind: kind[i], Speed: fit.SpeedModel{Mode: mode[i]},
			Loss: fit.Curve{B0: b0[i], B1: b1[i], B2: b2[i]}, LossNoise: ln[i], SpeedNoise: sn[i]}
		for k := range theta {
			p.Speed.Theta[k] = theta[k][i]
		}
		if mode[i] == fit.Async {
			p.Speed.Theta[4] = 0
		}
		if dropsOK[i] && strings.TrimSpace(drops[i]) != "" {
			for _, f := range strings.Split(drops[i], ",") {
				e, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || !(e > 0) || math.IsInf(e, 0) || len(p.Drops) > 0 && e <= p.Drops[len(p.Drops)-1] {
					return nil, t.Errorf(col.LossDrops, i, "%q: want increasing positive epochs, comma-separated", drops[i])
				}
				p.Drops = append(p.Drops, e)
			}
			if !(dropFactor[i] < 1) {
				return nil, t.Errorf(col.LossDropFactor, i, "%g: a drop leaves less than all of the loss, so below 1", dropFactor[i])
			}
			p.DropFactor = dropFactor[i]
		}
		if p.Speed.Speed(1, 1) <= 0 || math.IsInf(p.Speed.Speed(1, 1), 0) {
			return nil, t.Errorf(col.SpeedTheta0, i, "the speed model of %q gives no finite positive speed at 1 PS and 1 worker", m)
		}
		if kind[i] == simulate.KindMeasured {
			src := "no profile_speeds table given"
			if speeds != nil {
				src = speeds.Source
			}
			ms, err := simulate.NewMeasuredSpeed(samples[m])
			if err != nil {
				return nil, t.Errorf(col.Kind, i, "model %q is measured but has no successful measurement in %s", m, src)
			}
			p.Measured = ms
		}
		out[m] = p
	}
	return out, nil
}

// Workload reads a workload table against the cluster and the profiles.
func Workload(t *table.Table, c *pipeline.Cluster, profs map[string]simulate.Profile, profilesSource string) ([]simulate.Job, error) {
	worker, err := adapt.Demands(t, col.PrefixWorker, c)
	if err != nil {
		return nil, err
	}
	ps, err := adapt.Demands(t, col.PrefixPS, c)
	if err != nil {
		return nil, err
	}
	foreign := adapt.ForeignDemands(t, c.Resources)
	name, model, mode := t.Strings(col.Job), t.Strings(col.Model), t.Strings(col.Mode)
	batch, epochSteps := t.Int64s(col.GlobalBatch), t.Int64s(col.EpochSteps)
	arrival, weight := t.Float64s(col.ArrivalS), t.Float64s(col.Weight)
	budget, budgetOK := t.Float64s(col.EpochBudget), t.Valid(col.EpochBudget)
	speedScale, convScale := t.Float64s(col.SpeedScale), t.Float64s(col.ConvergenceScale)
	maxPS, maxW := t.Int64s(col.MaxPS), t.Int64s(col.MaxWorkers)
	jobs := make([]simulate.Job, len(name))
	for i := range name {
		p, ok := profs[model[i]]
		switch {
		case !ok:
			return nil, t.Errorf(col.Model, i, "job %q: model %q has no profile in %s", name[i], model[i], profilesSource)
		case mode[i] != fit.Sync && mode[i] != fit.Async:
			return nil, t.Errorf(col.Mode, i, "job %q: mode %q is not supported yet (sync or async)", name[i], mode[i])
		case mode[i] != p.Speed.Mode:
			return nil, t.Errorf(col.Mode, i, "job %q is %s but the profile of %q in %s is %s", name[i], mode[i], model[i], profilesSource, p.Speed.Mode)
		case i > 0 && arrival[i] < arrival[i-1]:
			return nil, t.Errorf(col.ArrivalS, i, "job %q arrives at %g s, before the row above (%g s): rows must be in arrival order", name[i], arrival[i], arrival[i-1])
		case foreign[i] != "":
			return nil, t.Errorf("", i, "job %q: %s", name[i], foreign[i])
		}
		jobs[i] = simulate.Job{Name: name[i], Model: model[i], Mode: mode[i], Arrival: arrival[i], Weight: weight[i],
			GlobalBatch: batch[i], EpochSteps: epochSteps[i], EpochBudget: budget[i], HasBudget: budgetOK[i],
			SpeedScale: speedScale[i], ConvergenceScale: convScale[i], MaxPS: int(maxPS[i]), MaxWorkers: int(maxW[i]),
			Worker: worker[i], PS: ps[i]}
	}
	return jobs, nil
}

func knowledge(oracle bool) string {
	if oracle {
		return "oracle"
	}
	return "fitted"
}

// nan returns v and whether it is a value (not NaN, not infinite).
func nullable(vs []float64) []bool {
	ok := make([]bool, len(vs))
	for i, v := range vs {
		ok[i] = !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	return ok
}

// runCols fills the policy, knowledge and seed columns of n rows of run r.
type runCols struct {
	policy, know []string
	seed         []int64
}

func (c *runCols) add(r *simulate.Result) {
	c.policy = append(c.policy, string(r.Policy))
	c.know = append(c.know, knowledge(r.Oracle))
	c.seed = append(c.seed, int64(r.Seed))
}

func (c *runCols) set(t *table.Table) {
	t.SetStrings(col.Policy, c.policy, nil)
	t.SetStrings(col.Knowledge, c.know, nil)
	t.SetInt64s(col.Seed, c.seed, nil)
}

// JobsTable is the sim_jobs table of the runs.
func JobsTable(runs []*simulate.Result) (*table.Table, error) {
	var rc runCols
	var job, model, status, reason []string
	var arrival, ready, start, finish, jct, ideal, lost, prof, total, progress, predErr []float64
	var restarts, predRounds []int64
	for _, r := range runs {
		for _, j := range r.Jobs {
			rc.add(r)
			job, model, status, reason = append(job, j.Job), append(model, j.Model), append(status, j.Status), append(reason, j.Reason)
			arrival, ready, start, finish = append(arrival, j.Arrival), append(ready, j.Ready), append(start, j.Start), append(finish, j.Finish)
			jct, ideal, lost, prof = append(jct, j.JCT), append(ideal, j.Ideal), append(lost, j.RestartLost), append(prof, j.Profiling)
			total, progress, predErr = append(total, j.TotalSteps), append(progress, j.Progress), append(predErr, j.PredErr)
			restarts, predRounds = append(restarts, int64(j.Restarts)), append(predRounds, int64(j.PredCount))
		}
	}
	t := table.New(schema.SimJobs, len(job))
	rc.set(t)
	t.SetStrings(col.Job, job, nil)
	t.SetStrings(col.Model, model, nil)
	t.SetStrings(col.Status, status, nil)
	t.SetStrings(col.Reason, reason, adapt.Present(reason))
	t.SetFloat64s(col.ArrivalS, arrival, nil)
	t.SetFloat64s(col.ReadyS, ready, nil)
	t.SetFloat64s(col.StartS, start, nullable(start))
	t.SetFloat64s(col.FinishS, finish, nullable(finish))
	t.SetFloat64s(col.JCTS, jct, nullable(jct))
	t.SetFloat64s(col.IdealS, ideal, nullable(ideal))
	t.SetInt64s(col.Restarts, restarts, nil)
	t.SetFloat64s(col.RestartLostS, lost, nil)
	t.SetFloat64s(col.ProfilingS, prof, nil)
	t.SetFloat64s(col.TotalSteps, total, nil)
	t.SetFloat64s(col.ProgressSteps, progress, nil)
	t.SetFloat64s(col.PredErr, predErr, nullable(predErr))
	t.SetInt64s(col.PredRounds, predRounds, nil)
	return table.Conform(t)
}

// AllocationsTable is the sim_allocations table of the runs (runs made
// with Config.KeepIntervals).
func AllocationsTable(runs []*simulate.Result) (*table.Table, error) {
	var rc runCols
	var job, status, reason []string
	var tm, predS, trueS, predSteps, trueSteps []float64
	var ps, w, nodes []int64
	var restarted []bool
	for _, r := range runs {
		for _, a := range r.Allocs {
			rc.add(r)
			job, status, reason = append(job, a.Job), append(status, a.Status), append(reason, a.Reason)
			tm, predS, trueS = append(tm, a.Time), append(predS, a.PredRemaining), append(trueS, a.TrueRemaining)
			predSteps, trueSteps = append(predSteps, a.PredSteps), append(trueSteps, a.TrueSteps)
			ps, w, nodes = append(ps, int64(a.PS)), append(w, int64(a.Workers)), append(nodes, int64(a.Nodes))
			restarted = append(restarted, a.Restarted)
		}
	}
	t := table.New(schema.SimAllocations, len(job))
	rc.set(t)
	t.SetFloat64s(col.TimeS, tm, nil)
	t.SetStrings(col.Job, job, nil)
	t.SetInt64s(col.PS, ps, nil)
	t.SetInt64s(col.Workers, w, nil)
	t.SetInt64s(col.Nodes, nodes, nil)
	t.SetBools(col.Restarted, restarted, nil)
	t.SetStrings(col.Status, status, adapt.Present(status))
	t.SetStrings(col.Reason, reason, adapt.Present(reason))
	t.SetFloat64s(col.PredRemainingS, predS, nullable(predS))
	t.SetFloat64s(col.TrueRemainingS, trueS, nullable(trueS))
	t.SetFloat64s(col.PredRemainingSteps, predSteps, nullable(predSteps))
	t.SetFloat64s(col.TrueRemainingSteps, trueSteps, nil)
	return table.Conform(t)
}

// UtilisationTable is the sim_utilisation table of the runs.
func UtilisationTable(runs []*simulate.Result, resources []string) (*table.Table, error) {
	var rc runCols
	var tm []float64
	var running, waiting []int64
	util := make([][]float64, len(resources))
	for _, r := range runs {
		for _, u := range r.Usage {
			rc.add(r)
			tm, running, waiting = append(tm, u.Time), append(running, int64(u.Running)), append(waiting, int64(u.Waiting))
			for k := range util {
				util[k] = append(util[k], u.Share[k])
			}
		}
	}
	t := table.New(schema.SimUtilisation, len(tm))
	rc.set(t)
	t.SetFloat64s(col.TimeS, tm, nil)
	t.SetInt64s(col.Running, running, nil)
	t.SetInt64s(col.Waiting, waiting, nil)
	for k, name := range resources {
		t.SetFloat64s(col.PrefixUtil+name, util[k], nil)
	}
	return table.Conform(t)
}

// SummaryTable is the sim_summary table of the runs, with each run's JCT
// and makespan relative to the optimus run of the same knowledge and seed.
func SummaryTable(runs []*simulate.Result, resources []string) (*table.Table, error) {
	type key struct {
		oracle bool
		seed   uint64
	}
	base := map[key]*simulate.Summary{}
	for _, r := range runs {
		if r.Policy == "optimus" {
			base[key{r.Oracle, r.Seed}] = &r.Summary
		}
	}
	var rc runCols
	var jobs, fin, unf, never, restarts, rounds []int64
	var mean, median, p95, makespan, jr, mr, lost, prof, predErr []float64
	util := make([][]float64, len(resources))
	for _, r := range runs {
		s := r.Summary
		rc.add(r)
		jobs, fin, unf, never = append(jobs, int64(s.Jobs)), append(fin, int64(s.Finished)), append(unf, int64(s.Unfinished)), append(never, int64(s.NeverStarted))
		restarts, rounds = append(restarts, int64(s.Restarts)), append(rounds, int64(s.Rounds))
		mean, median, p95, makespan = append(mean, s.MeanJCT), append(median, s.MedianJCT), append(p95, s.P95JCT), append(makespan, s.Makespan)
		lost, prof, predErr = append(lost, s.RestartLost), append(prof, s.Profiling), append(predErr, s.MeanPredErr)
		j, m := math.NaN(), math.NaN()
		if b := base[key{r.Oracle, r.Seed}]; b != nil {
			j, m = s.MeanJCT/b.MeanJCT, s.Makespan/b.Makespan
		}
		jr, mr = append(jr, j), append(mr, m)
		for k := range util {
			util[k] = append(util[k], s.Utilisation[k])
		}
	}
	t := table.New(schema.SimSummary, len(jobs))
	rc.set(t)
	t.SetInt64s(col.Jobs, jobs, nil)
	t.SetInt64s(col.Finished, fin, nil)
	t.SetInt64s(col.Unfinished, unf, nil)
	t.SetInt64s(col.NeverStarted, never, nil)
	t.SetFloat64s(col.MeanJCTS, mean, nullable(mean))
	t.SetFloat64s(col.MedianJCTS, median, nullable(median))
	t.SetFloat64s(col.P95JCTS, p95, nullable(p95))
	t.SetFloat64s(col.MakespanS, makespan, nullable(makespan))
	t.SetFloat64s(col.JCTRatio, jr, nullable(jr))
	t.SetFloat64s(col.MakespanRatio, mr, nullable(mr))
	t.SetInt64s(col.Restarts, restarts, nil)
	t.SetFloat64s(col.RestartLostS, lost, nil)
	t.SetFloat64s(col.ProfilingS, prof, nil)
	t.SetFloat64s(col.MeanPredErr, predErr, nullable(predErr))
	t.SetInt64s(col.Rounds, rounds, nil)
	for k, name := range resources {
		t.SetFloat64s(col.PrefixUtil+name, util[k], nullable(util[k]))
	}
	return table.Conform(t)
}

// sortRuns orders runs by knowledge, seed, then policy in solve's order,
// so that output does not depend on the order runs finished in.
func SortRuns(runs []*simulate.Result, policyOrder []string) {
	slices.SortStableFunc(runs, func(a, b *simulate.Result) int {
		if a.Oracle != b.Oracle {
			if !a.Oracle {
				return -1
			}
			return 1
		}
		if a.Seed != b.Seed {
			if a.Seed < b.Seed {
				return -1
			}
			return 1
		}
		return slices.Index(policyOrder, string(a.Policy)) - slices.Index(policyOrder, string(b.Policy))
	})
}

// ComparisonTable sums up the runs of each policy and knowledge over the
// seeds, against the optimus run of the same knowledge and seed. Rows come
// in the order of the runs (see SortRuns).
func ComparisonTable(runs []*simulate.Result) (*table.Table, error) {
	type key struct {
		oracle bool
		policy string
	}
	base := map[[2]any]*simulate.Summary{}
	for _, r := range runs {
		if r.Policy == "optimus" {
			base[[2]any{r.Oracle, r.Seed}] = &r.Summary
		}
	}
	type agg struct {
		seeds, behind, unfinished  int
		jct, makespan, restarts    float64
		logJR, logMR               float64
		nJR, nMR                   int
		jrMin, jrMax, mrMin, mrMax float64
		p95                        float64
		// the spread over the seeds of the mean JCT, p95 and makespan
		spread [3][2]float64
	}
	var order []key
	aggs := map[key]*agg{}
	for _, r := range runs {
		k := key{r.Oracle, string(r.Policy)}
		a := aggs[k]
		if a == nil {
			a = &agg{jrMin: math.Inf(1), jrMax: math.Inf(-1), mrMin: math.Inf(1), mrMax: math.Inf(-1)}
			for m := range a.spread {
				a.spread[m] = [2]float64{math.Inf(1), math.Inf(-1)}
			}
			aggs[k] = a
			order = append(order, k)
		}
		s := r.Summary
		a.seeds++
		a.jct += s.MeanJCT
		a.makespan += s.Makespan
		a.p95 += s.P95JCT
		for m, x := range [3]float64{s.MeanJCT, s.P95JCT, s.Makespan} {
			a.spread[m] = [2]float64{math.Min(a.spread[m][0], x), math.Max(a.spread[m][1], x)}
		}
		a.restarts += float64(s.Restarts)
		a.unfinished += s.Unfinished + s.NeverStarted
		if b := base[[2]any{r.Oracle, r.Seed}]; b != nil {
			if jr := s.MeanJCT / b.MeanJCT; jr > 0 && !math.IsInf(jr, 0) {
				a.logJR += math.Log(jr)
				a.nJR++
				a.jrMin, a.jrMax = math.Min(a.jrMin, jr), math.Max(a.jrMax, jr)
				if jr > 1 {
					a.behind++
				}
			}
			if mr := s.Makespan / b.Makespan; mr > 0 && !math.IsInf(mr, 0) {
				a.logMR += math.Log(mr)
				a.nMR++
				a.mrMin, a.mrMax = math.Min(a.mrMin, mr), math.Max(a.mrMax, mr)
			}
		}
	}
	n := len(order)
	pol, know := make([]string, n), make([]string, n)
	seeds, behind, unf := make([]int64, n), make([]int64, n), make([]int64, n)
	cols := map[string][]float64{}
	spreadCols := [3][2]string{{col.MeanJCTSMin, col.MeanJCTSMax}, {col.P95JCTSMin, col.P95JCTSMax}, {col.MakespanSMin, col.MakespanSMax}}
	for _, name := range []string{col.MeanJCTS, col.MeanJCTSMin, col.MeanJCTSMax, col.P95JCTS, col.P95JCTSMin, col.P95JCTSMax,
		col.MakespanS, col.MakespanSMin, col.MakespanSMax, col.JCTRatio, col.JCTRatioMin, col.JCTRatioMax,
		col.MakespanRatio, col.MakespanRatioMin, col.MakespanRatioMax, col.Restarts} {
		cols[name] = make([]float64, n)
	}
	nan := math.NaN()
	for i, k := range order {
		a := aggs[k]
		pol[i], know[i] = k.policy, knowledge(k.oracle)
		seeds[i], behind[i], unf[i] = int64(a.seeds), int64(a.behind), int64(a.unfinished)
		cols[col.MeanJCTS][i] = a.jct / float64(a.seeds)
		cols[col.MakespanS][i] = a.makespan / float64(a.seeds)
		cols[col.P95JCTS][i] = a.p95 / float64(a.seeds)
		for m, names := range spreadCols {
			lo, hi := nan, nan
			if a.seeds > 1 {
				lo, hi = a.spread[m][0], a.spread[m][1]
			}
			cols[names[0]][i], cols[names[1]][i] = lo, hi
		}
		cols[col.Restarts][i] = a.restarts / float64(a.seeds)
		cols[col.JCTRatio][i], cols[col.JCTRatioMin][i], cols[col.JCTRatioMax][i] = nan, nan, nan
		cols[col.MakespanRatio][i], cols[col.MakespanRatioMin][i], cols[col.MakespanRatioMax][i] = nan, nan, nan
		if a.nJR > 0 {
			cols[col.JCTRatio][i], cols[col.JCTRatioMin][i], cols[col.JCTRatioMax][i] = math.Exp(a.logJR/float64(a.nJR)), a.jrMin, a.jrMax
		}
		if a.nMR > 0 {
			cols[col.MakespanRatio][i], cols[col.MakespanRatioMin][i], cols[col.MakespanRatioMax][i] = math.Exp(a.logMR/float64(a.nMR)), a.mrMin, a.mrMax
		}
	}
	t := table.New(schema.SimComparison, n)
	t.SetStrings(col.Policy, pol, nil)
	t.SetStrings(col.Knowledge, know, nil)
	t.SetInt64s(col.Seeds, seeds, nil)
	for name, v := range cols {
		var valid []bool
		if name != col.Restarts {
			valid = nullable(v)
		}
		t.SetFloat64s(name, v, valid)
	}
	t.SetInt64s(col.BehindOptimus, behind, nil)
	t.SetInt64s(col.Unfinished, unf, nil)
	return table.Conform(t)
}
