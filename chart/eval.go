package chart

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// The cross-validated accuracy of the fitted models (optimus eval): the
// speed model fitted on a few configurations and scored on the others
// (speed_eval), and the convergence epoch predicted from the first part of
// complete curves against the truth (convergence_eval). The loss page takes
// the second (--eval), the speed page the first, the report both.

// evalSpeedSections is the speed page's section of t, if given.
func evalSpeedSections(t *table.Table) []*Section {
	if t == nil {
		return nil
	}
	return []*Section{evalSpeedSection(t)}
}

// evalSpeedSection lists speed_eval: one row per job or model.
func evalSpeedSection(t *table.Table) *Section {
	sec := &Section{ID: "speedeval", Heading: "Speed model, cross-validated (optimus eval speed)", Text: []string{
		fmt.Sprintf("Each row: the speed model fitted on a few of the measured configurations (sampled), then asked for the speed of every other one (%s); the error is |predicted − measured| ÷ measured.", sourceName(t)),
	}}
	if t.NumRows() == 0 {
		sec.Empty = fmt.Sprintf("The %s table %s is empty (0 rows).", t.Name, sourceName(t))
		return sec
	}
	key, mode, sampling, note := t.Strings(col.Key), t.Strings(col.Mode), t.Strings(col.Sampling), t.Strings(col.Note)
	configs, sampled, trials, predicted := t.Int64s(col.Configs), t.Int64s(col.Sampled), t.Int64s(col.Trials), t.Int64s(col.Predicted)
	med, p90, mx := t.Float64s(col.MedianRelErr), t.Float64s(col.P90RelErr), t.Float64s(col.MaxRelErr)
	g := &Grid{Header: []string{"job or model", "mode", "configurations", "fitted on (sampling, trials)", "predictions scored", "median error", "p90 error", "largest error", "note"},
		Numeric: []bool{false, false, true, true, true, true, true, true, false}}
	for i := range key {
		g.Rows = append(g.Rows, []string{key[i], mode[i], fmt.Sprint(configs[i]), fmt.Sprintf("%d (%s, %s)", sampled[i], sampling[i], plural(int(trials[i]), "trial")),
			fmt.Sprint(predicted[i]), percent(med[i]), percent(p90[i]), percent(mx[i]), note[i]})
	}
	sec.Grid = g
	return sec
}

// evalConvergenceSection sums convergence_eval up by the share of the curve
// observed: how far the predicted convergence epoch was from the truth and
// how often the truth lay in the p10-p90 band, with one row per curve and
// share.
func evalConvergenceSection(t *table.Table) *Section {
	sec := &Section{ID: "convergenceeval", Heading: "Convergence prediction, cross-validated (optimus eval convergence)", Text: []string{
		fmt.Sprintf("Complete training curves, each observed only up to a share of its epochs: the convergence epoch predicted from that part against the epoch the whole curve converged at (%s). "+
			"Error: predicted (median) − true epoch, as a share of the true epoch; covered: the truth lay in the predicted p10–p90 band. A censored curve (still falling at its end) has no error; a fit whose family prior carried it says so (prior weight).", sourceName(t)),
	}}
	if t.NumRows() == 0 {
		sec.Empty = fmt.Sprintf("The %s table %s is empty (0 rows).", t.Name, sourceName(t))
		return sec
	}
	job, model, quality, note := t.Strings(col.Job), t.Strings(col.Model), t.Strings(col.Quality), t.Strings(col.Note)
	frac, errE, prior := t.Float64s(col.Fraction), t.Float64s(col.EpochError), t.Float64s(col.PriorWeight)
	trueE, p50 := t.Int64s(col.TrueEpoch), t.Int64s(col.PredEpochP50)
	p50ok, covOK := t.Valid(col.PredEpochP50), t.Valid(col.Covered)
	covered, censored := t.Bools(col.Covered), t.Bools(col.Censored)
	fracs := slices.Clone(frac)
	slices.Sort(fracs)
	fracs = slices.Compact(fracs)
	type agg struct {
		rel          []float64
		cov, scored  int
		curves, none int
	}
	by := map[float64]*agg{}
	for _, f := range fracs {
		by[f] = &agg{}
	}
	g := &Grid{Header: []string{"curve", "model", "share observed", "true epoch", "predicted epoch", "error", "covered", "fit", "prior weight", "note"},
		Numeric: []bool{false, false, true, true, true, true, false, false, true, false}}
	for i := range job {
		a := by[frac[i]]
		a.curves++
		pred, e, cov := "-", "-", "-"
		if p50ok[i] {
			pred = fmt.Sprint(p50[i])
		} else {
			a.none++
		}
		if finite(errE[i]) && trueE[i] > 0 {
			r := errE[i] / float64(trueE[i])
			a.rel = append(a.rel, abs(r))
			e = fmt.Sprintf("%+.0f%%", 100*r)
		}
		if covOK[i] {
			a.scored++
			cov = "no"
			if covered[i] {
				a.cov++
				cov = "yes"
			}
		}
		truth := fmt.Sprint(trueE[i])
		if censored[i] {
			truth = "≥ " + truth + " (censored)"
		}
		pw := "-"
		if finite(prior[i]) {
			pw = fmt.Sprintf("%.2f", prior[i])
		}
		g.Rows = append(g.Rows, []string{job[i], model[i], fmt.Sprintf("%.0f%%", 100*frac[i]), truth, pred, e, cov, quality[i], pw, note[i]})
	}
	var sum []string
	id := idFor("convergenceeval", 1)
	ln := charts.NewLine()
	var labels []string
	var medD, covD []opts.LineData
	for _, f := range fracs {
		a := by[f]
		slices.Sort(a.rel)
		labels = append(labels, fmt.Sprintf("%.0f%%", 100*f))
		medD = append(medD, lineValue(100*fit.Median(a.rel)))
		c := -1.0
		if a.scored > 0 {
			c = float64(a.cov) / float64(a.scored)
			covD = append(covD, opts.LineData{Value: round(100*c, 4)})
		} else {
			covD = append(covD, opts.LineData{Value: "-"})
		}
		s := fmt.Sprintf("%.0f%% observed: median error %s over %d of %d curves", 100*f, percent(fit.Median(a.rel)), len(a.rel), a.curves)
		if a.scored > 0 {
			s += fmt.Sprintf(", truth in the band for %d of %d", a.cov, a.scored)
		}
		sum = append(sum, s)
	}
	sec.Text = append(sec.Text, strings.Join(sum, "; ")+".")
	ln.SetGlobalOptions(append(base(id, "Convergence prediction against the share observed", fmt.Sprintf("%d curves (%s)", len(groupsOf(job)), sourceName(t)), smallW, smallH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		lineLegend(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: labels, Name: "share of the curve's epochs observed", NameLocation: "middle", NameGap: 28}),
		yValueAxis("%", 0, nil, false),
	)...)
	ln.SetXAxis(labels)
	ln.AddSeries("median |error| ÷ true epoch", medD, charts.WithLineStyleOpts(opts.LineStyle{Color: "#c23531", Width: 2}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#c23531"}))
	ln.AddSeries("truth within p10–p90 (share of curves)", covD, charts.WithLineStyleOpts(opts.LineStyle{Color: "#0072b2", Width: 2, Type: "dashed"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0072b2"}))
	sec.Charts = []*Chart{counted(id, ln, &ln.BaseConfiguration).bind("tooltip.valueFormatter", "percent")}
	sec.Grid = g
	return sec
}

func lineValue(v float64) opts.LineData {
	if !finite(v) {
		return opts.LineData{Value: "-"}
	}
	return opts.LineData{Value: round(v, 4)}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func groupsOf(keys []string) []string {
	o, _ := groups(keys)
	return o
}
