package chart

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// How good the scheduler's predictions were in a simulation, the paper's
// core claim (Optimus, EuroSys 2018, section 3: the remaining time Q/f it
// plans with). sim_allocations holds, for every round a job ran in, the
// remaining time the scheduler predicted at its allocation
// (pred_remaining_s) and the time to its actual finish (true_remaining_s);
// its progress then is 1 - true_remaining_steps / total_steps (sim_jobs).
// The error of one round is |pred / true - 1|, the figure sim_jobs'
// pred_err takes the median of over a job's rounds.

// maxAccuracyPoints is the most rounds one line of the scatter draws:
// evenly spaced among its rounds in table order beyond.
const maxAccuracyPoints = 400

// progressBins is the number of equal ranges of training progress the
// error is summed up over.
const progressBins = 10

// accuracyPoint is one round of one running job.
type accuracyPoint struct {
	pred, truth, progress float64
}

// accuracyPoints are the rounds of line l (every selected seed) in which a
// job ran, with a prediction and a true remaining time above 0 (a job that
// never finished has none).
func accuracyPoints(a *table.Table, rows []int, total map[string]float64) []accuracyPoint {
	pred, truth := a.Float64s(col.PredRemainingS), a.Float64s(col.TrueRemainingS)
	trueSteps := a.Float64s(col.TrueRemainingSteps)
	ps, ws, job, seed := a.Int64s(col.PS), a.Int64s(col.Workers), a.Strings(col.Job), a.Int64s(col.Seed)
	var out []accuracyPoint
	for _, i := range rows {
		if ps[i]+ws[i] == 0 || !finite(pred[i]) || !finite(truth[i]) || truth[i] <= 0 || pred[i] < 0 {
			continue
		}
		prog := math.NaN()
		if t := total[fmt.Sprint(seed[i], "\x00", job[i])]; t > 0 && finite(trueSteps[i]) {
			prog = math.Min(1, math.Max(0, 1-trueSteps[i]/t))
		}
		out = append(out, accuracyPoint{pred[i], truth[i], prog})
	}
	return out
}

// totalSteps maps (seed, job) of line l to the job's total steps.
func totalSteps(jobs *table.Table, l simLine) map[string]float64 {
	pol, kn, seed, job, tot := jobs.Strings(col.Policy), jobs.Strings(col.Knowledge), jobs.Int64s(col.Seed), jobs.Strings(col.Job), jobs.Float64s(col.TotalSteps)
	out := map[string]float64{}
	for i := range pol {
		if pol[i] == l.policy && kn[i] == l.knowledge {
			out[fmt.Sprint(seed[i], "\x00", job[i])] = tot[i]
		}
	}
	return out
}

func relErr(p accuracyPoint) float64 { return math.Abs(p.pred/p.truth - 1) }

// simAccuracySection draws, per line, the predicted against the true
// remaining time of every round a job ran in, and the error against the
// job's training progress, with a table of the errors; seeds pooled.
func simAccuracySection(a, jobs *table.Table, lines []simLine, seeds []int64, both bool) *Section {
	sec := &Section{ID: "accuracy", Heading: "How good the predictions were", Text: []string{
		"In every round a job ran in, the scheduler planned with a predicted remaining time (its remaining steps over its predicted speed at its allocation, Q/f in the paper); the simulation knows when the job really finished. " +
			"Left: the two against each other, one dot per job and round (on the diagonal: exact; above: predicted too long); right: the median error |predicted ÷ true − 1| against how far the job had trained, " + pooled(seeds, "in the runs of ") + ".",
		"Jobs that never finished have no true remaining time and are not counted. With oracle knowledge the remaining steps and speeds are the true ones, so what error is left comes from restarts, waiting and changes of allocation the scheduler did not foresee.",
	}}
	rowsByLine := rowsOf(a, -1)
	if a.NumRows() == 0 {
		sec.Empty = fmt.Sprintf("The %s table %s is empty (0 rows): the simulation kept no rounds (optimus simulate --intervals=false).", a.Name, sourceName(a))
		return sec
	}
	lines = timeLines(a, lines)
	pts := map[simLine][]accuracyPoint{}
	drawn := false
	lo, hi := math.Inf(1), 0.0
	for _, l := range lines {
		p := accuracyPoints(a, rowsByLine[l], totalSteps(jobs, l))
		pts[l] = p
		for _, q := range p {
			drawn = true
			lo, hi = math.Min(lo, q.truth), math.Max(hi, math.Max(q.pred, q.truth))
		}
	}
	if !drawn {
		sec.Empty = "No round of a job that finished has a prediction: there is nothing to compare."
		return sec
	}
	// Durations in hours when the runs are long, as the tables show them.
	unit, div := timeUnit(hi)
	grid := &Grid{Header: []string{"policy", "knowledge", "rounds compared", "median error", "p90 error", "predicted too long", "jobs' median error (pred_err), median over jobs"},
		Numeric: []bool{false, false, true, true, true, true, true}}
	jobErr := jobPredErr(jobs)
	for _, l := range lines {
		p := pts[l]
		errs := make([]float64, len(p))
		over := 0
		for k, q := range p {
			errs[k] = relErr(q)
			if q.pred > q.truth {
				over++
			}
		}
		slices.Sort(errs)
		share := "-"
		if len(p) > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(over)/float64(len(p)))
		}
		grid.Rows = append(grid.Rows, []string{l.policy, l.knowledge, fmt.Sprint(len(p)), percent(fit.Median(errs)), percent(fit.Quantile(errs, 0.9)), share, percent(fit.Median(jobErr[l]))})
	}
	sec.Grid = grid
	cols := simColours(lines)

	// Both axes from the power of ten below the shortest true remaining
	// time: a prediction below it (or 0) is drawn at the floor, so that a
	// near-zero prediction does not stretch the axis over decades of
	// nothing; at most four decades below the longest (a round just
	// before a job's finish has a true remaining time of a second).
	decade := func(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v))) }
	floor := math.Max(decade(lo/div), decade(hi/div)/1e4)
	// The scatter, log-log: remaining times span hours to seconds.
	id := idFor("accuracy", 1)
	sc := charts.NewScatter()
	name := "remaining time (" + unit + ", log scale)"
	sc.SetGlobalOptions(append(base(id, "Predicted against true remaining time", fmt.Sprintf("one dot per job and round it ran in, in %s, at most %d per line (%s)", unit, maxAccuracyPoints, sourceName(a)), smallW, smallH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		lineLegend(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: "true " + name, NameLocation: "middle", NameGap: 28, Min: floor,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "predicted " + name, NameLocation: "middle", NameGap: 60, Min: floor,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}}),
	)...)
	for _, l := range lines {
		p := pts[l]
		var d []opts.ScatterData
		for _, k := range evenly(len(p), maxAccuracyPoints) {
			q := p[k]
			v := []any{round(math.Max(q.truth/div, floor), 4), round(math.Max(q.pred/div, floor), 4)}
			if finite(q.progress) {
				v = append(v, round(100*q.progress, 3))
			}
			d = append(d, opts.ScatterData{Value: v})
		}
		sym := "circle"
		if l.knowledge == "oracle" {
			sym = "triangle"
		}
		sc.AddSeries(l.label(both), d, charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[l.policy], Opacity: opts.Float(0.55)}),
			charts.WithScatterChartOpts(opts.ScatterChart{Symbol: sym, SymbolSize: 5}))
	}
	diag := charts.NewLine()
	diag.AddSeries("exact (predicted = true)", []opts.LineData{{Value: []float64{round(floor, 4), round(floor, 4)}}, {Value: []float64{round(hi/div, 4), round(hi/div, 4)}}},
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Color: "#888", Type: "dashed", Width: 1}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#888"}))
	sc.Overlap(diag)
	sec.Charts = append(sec.Charts, counted(id, sc, &sc.BaseConfiguration).bind("tooltip.formatter", "accuracyTooltip"))

	// The error against progress: the median per tenth of training.
	id = idFor("accuracy", 2)
	ln := charts.NewLine()
	var labels []string
	for b := 0; b < progressBins; b++ {
		labels = append(labels, fmt.Sprintf("%d–%d%%", 100*b/progressBins, 100*(b+1)/progressBins))
	}
	ln.SetGlobalOptions(append(base(id, "Error against training progress", "median |predicted ÷ true − 1| of the rounds in each tenth of a job's training", smallW, smallH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		lineLegend(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: labels, Name: "share of the job's steps trained", NameLocation: "middle", NameGap: 28}),
		yValueAxis("median error (%)", 0, nil, false),
	)...)
	ln.SetXAxis(labels)
	for _, l := range lines {
		bins := make([][]float64, progressBins)
		for _, q := range pts[l] {
			if !finite(q.progress) {
				continue
			}
			b := min(progressBins-1, int(q.progress*progressBins))
			bins[b] = append(bins[b], relErr(q))
		}
		d := make([]opts.LineData, progressBins)
		for b, e := range bins {
			if len(e) == 0 {
				d[b] = opts.LineData{Value: "-"} // a gap: no round there
				continue
			}
			slices.Sort(e)
			d[b] = opts.LineData{Value: round(100*fit.Median(e), 4)}
		}
		ln.AddSeries(l.label(both), d,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), ConnectNulls: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: cols[l.policy], Width: 2, Type: l.style()}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[l.policy]}))
	}
	sec.Charts = append(sec.Charts, counted(id, ln, &ln.BaseConfiguration).bind("tooltip.valueFormatter", "percent"))
	return sec
}

// jobPredErr are sim_jobs' pred_err per line, sorted.
func jobPredErr(jobs *table.Table) map[simLine][]float64 {
	out := map[simLine][]float64{}
	e := jobs.Float64s(col.PredErr)
	for l, rows := range rowsOf(jobs, -1) {
		for _, i := range rows {
			if finite(e[i]) {
				out[l] = append(out[l], e[i])
			}
		}
		slices.Sort(out[l])
	}
	return out
}

// evenly picks at most max of n indices, evenly spaced, the first and the
// last among them.
func evenly(n, max int) []int {
	out := make([]int, 0, min(n, max))
	if n <= max {
		for i := 0; i < n; i++ {
			out = append(out, i)
		}
		return out
	}
	for k := 0; k < max; k++ {
		out = append(out, k*(n-1)/(max-1))
	}
	return out
}

// timeUnit is the unit durations up to hi seconds are drawn in: hours
// beyond three hours, minutes beyond three minutes, else seconds.
func timeUnit(hi float64) (string, float64) {
	switch {
	case hi >= 3*3600:
		return "h", 3600
	case hi >= 180:
		return "min", 60
	}
	return "s", 1
}

// percent formats a share as a percentage.
func percent(f float64) string {
	if !finite(f) {
		return "-"
	}
	if f >= 10 {
		return fmt.Sprintf("%.0f%%", 100*f)
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}
