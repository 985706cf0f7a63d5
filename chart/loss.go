package chart

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

func init() {
	register(&Kind{
		Name:  "loss",
		Short: "Each job's loss points, fitted convergence curve and predicted convergence epoch",
		Long: `One chart per job (small multiples): the observed loss (or metric) points, the points
the fit dropped (outliers) marked with a cross, the fitted curve 1/(b0*k+b1)+b2 from --models,
and from --predictions the predicted convergence step (median) with its p10-p90 band and the
job's progress now.`,
		Example: `  optimus chart loss -i tb/loss.parquet --models models.parquet --predictions predictions.parquet -o loss.html`,
		Inputs: []Input{
			{Flag: Main, Schema: schema.Loss, Required: true, Doc: "loss points"},
			{Flag: "models", Schema: schema.Models, Doc: "fitted models (optimus fit), for the curves"},
			{Flag: "predictions", Schema: schema.Predictions, Doc: "predictions (optimus predict), for the convergence epoch and its band"},
			{Flag: "eval", Schema: schema.ConvergenceEval, Doc: "the convergence prediction's cross-validated errors (optimus eval convergence)"},
		},
		PerJob: true,
		Build:  buildLoss,
	})
}

// lossFit is what the models table says about one job's curve.
type lossFit struct {
	curve       fit.Curve
	fit         fit.LossFit // Scale and Complement, for Value
	ok          bool
	dropped     int
	points      int
	quality, r2 string
	note        string
}

type lossPrediction struct {
	epochSteps, progress float64
	p10, p50, p90        float64 // total epochs
	source               string
	// donors are, for a prediction borrowed from the job's model family
	// (source "model"), the jobs of that family whose fits it is the
	// median of: as predict picks them, fitted (or capped) and not poor.
	donors []string
}

func lossFits(m *table.Table) map[string]lossFit {
	out := map[string]lossFit{}
	if m == nil {
		return out
	}
	for j, model := range adapt.ReadModels(m) {
		f := lossFit{note: model.LossNote}
		if lf := model.Loss; lf != nil {
			f.dropped, f.points, f.quality = lf.Dropped, lf.Used, lf.Quality
			if finite(lf.R2) {
				f.r2 = fmt.Sprintf("%.3f", lf.R2)
			}
			if c := lf.Curve; finite(c.B0) && finite(c.B1) && finite(c.B2) && finite(lf.Scale) {
				f.ok = true
				f.curve = c
				f.fit = fit.LossFit{Scale: lf.Scale, Complement: lf.Complement}
			}
		}
		out[j] = f
	}
	return out
}

func lossPredictions(p *table.Table) map[string]lossPrediction {
	out := map[string]lossPrediction{}
	if p == nil {
		return out
	}
	jobs := p.Strings(col.Job)
	es, prog := p.Int64s(col.EpochSteps), p.Int64s(col.ProgressSteps)
	p10, p50, p90 := p.Float64s(col.TotalEpochsP10), p.Float64s(col.TotalEpochsP50), p.Float64s(col.TotalEpochsP90)
	src, model, quality := p.Strings(col.RemainingSource), p.Strings(col.Model), p.Strings(col.LossQuality)
	family := map[string][]string{}
	for i, j := range jobs {
		if (src[i] == "fit" || src[i] == "cap") && quality[i] != "poor" {
			family[model[i]] = append(family[model[i]], j)
		}
	}
	for i, j := range jobs {
		lp := lossPrediction{epochSteps: float64(es[i]), progress: float64(prog[i]), p10: p10[i], p50: p50[i], p90: p90[i], source: src[i]}
		if src[i] == "model" {
			for _, d := range family[model[i]] {
				if d != j {
					lp.donors = append(lp.donors, d)
				}
			}
		}
		out[j] = lp
	}
	return out
}

func buildLoss(in Tables) (*Page, error) {
	loss := in.One(Main)
	const title = "Convergence: loss points and fitted curves"
	if loss.NumRows() == 0 {
		return emptyPage(title, loss), nil
	}
	sec, err := lossSection(loss, in.One("models"), in.One("predictions"))
	if err != nil {
		return nil, err
	}
	secs := []*Section{sec}
	if e := in.One("eval"); e != nil {
		secs = append(secs, evalConvergenceSection(e))
	}
	return &Page{Title: title, Headline: lossHeadline(loss, in.One("models"), in.One("predictions")), Lead: []string{
		"Each chart is one job: the loss (or metric) it reported against training steps, the curve optimus fitted to it, and where that curve is predicted to converge.",
	}, Sections: secs}, nil
}

// lossSection draws one chart per job of the loss table.
func lossSection(loss, models, preds *table.Table) (*Section, error) {
	fits, pr := lossFits(models), lossPredictions(preds)
	jobs, rows := groups(loss.Strings(col.Job))
	steps, values, hib := loss.Int64s(col.Step), loss.Float64s(col.Value), loss.Bools(col.HigherIsBetter)
	sec := &Section{ID: "loss", Heading: "Convergence per job",
		Text: []string{lossLegendText(models != nil, preds != nil)}}
	jobs = capJobs(sec, jobs)
	for n, job := range jobs {
		c := lossChart(idFor("loss", n+1), job, rows[job], steps, values, hib[rows[job][0]], fits, pr)
		sec.Charts = append(sec.Charts, c)
	}
	return sec, nil
}

func lossLegendText(models, preds bool) string {
	s := "Dots: observed values; crosses: points the fit dropped as outliers (non-finite values cannot be drawn and are counted in the subtitle)."
	if models {
		s += " Line: the fitted curve 1/(b0·k+b1)+b2, in the metric's own units."
	} else {
		s += " No models table was given (--models), so no fitted curves."
	}
	if preds {
		s += " Dashed vertical line: predicted convergence (median), shaded band: its 10th to 90th percentile, dotted line: the job's progress now." +
			" A poor or insufficient fit is drawn dashed and grey; where predict did not trust it and took the median of its model family's better fits instead, the band is orange and the subtitle names the jobs it was borrowed from."
	}
	return s
}

func lossChart(id, job string, rows []int, steps []int64, values []float64, higherIsBetter bool, fits map[string]lossFit, preds map[string]lossPrediction) *Chart {
	f, hasFit := fits[job]
	p, hasPred := preds[job]
	var kept, outliers, all [][2]float64
	nonFinite := 0
	for _, r := range rows {
		if !finite(values[r]) {
			nonFinite++
			continue
		}
		all = append(all, [2]float64{float64(steps[r]), values[r]})
	}
	dropIdx := map[int]bool{}
	if hasFit && f.ok {
		for _, i := range farthest(all, f, f.dropped-nonFinite) {
			dropIdx[i] = true
		}
	}
	for i, pt := range all {
		if dropIdx[i] {
			outliers = append(outliers, pt)
		} else {
			kept = append(kept, pt)
		}
	}
	yName := "loss"
	if higherIsBetter {
		yName = "metric (higher is better)"
	}

	subtitle := plural(len(rows), "point")
	if hasFit {
		subtitle = fmt.Sprintf("%s: %d used, %d dropped (%d non-finite)", plural(len(rows), "point"), f.points, f.dropped, nonFinite)
		if f.quality != "" {
			subtitle += "; fit " + f.quality
		}
		if f.r2 != "" {
			subtitle += ", R² " + f.r2
		}
		if !f.ok && f.note != "" {
			subtitle += "; no fit: " + f.note
		}
	}
	conv := hasPred && finite(p.p50) && p.epochSteps > 0
	borrowed := hasPred && p.source == "model"
	weak := hasFit && (f.quality == "poor" || f.quality == "insufficient")
	if conv {
		subtitle += fmt.Sprintf("\npredicted to converge at epoch %.0f (p10 %.0f, p90 %.0f),\n%s", p.p50, p.p10, p.p90, sourceText(p))
	}

	line := charts.NewLine()
	gopts := append(base(id, job, subtitle, smallW, smallH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		legendBottom(), gridFor("110"),
		xValueAxis("training step", 0),
		yValueAxis(yName, nil, nil, true),
	)
	line.SetGlobalOptions(gopts...)

	xmax := 0.0
	for _, pt := range all {
		xmax = math.Max(xmax, pt[0])
	}
	if conv {
		xmax = math.Max(xmax, p.p90*p.epochSteps)
	}
	if hasFit && f.ok {
		curve := curvePoints(f, xmax*1.05, 120)
		var markOpts []charts.SeriesOpts
		// A borrowed band is the family's, not this curve's: drawn in
		// another colour, and named so.
		bandColour, bandLine, convName := "rgba(194,53,49,0.10)", "#c23531", "converges"
		if borrowed {
			bandColour, bandLine, convName = "rgba(230,159,0,0.16)", "#b06f00", "family's convergence"
		}
		if conv {
			markOpts = append(markOpts,
				// The label runs along the line, inside the plot, on its
				// left at the top; progress now (on the observed points'
				// series) on its right at the bottom: neither can leave the
				// chart or cover the other.
				charts.WithMarkLineNameXAxisItemOpts(
					opts.MarkLineNameXAxisItem{Name: fmt.Sprintf("%s: epoch %.0f", convName, p.p50), XAxis: round(p.p50*p.epochSteps, 6)},
				),
				charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"},
					Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop"},
					LineStyle: &opts.LineStyle{Color: bandLine, Type: "dashed"}}),
				charts.WithMarkAreaData([]opts.MarkAreaData{
					{Name: "p10–p90", XAxis: round(p.p10*p.epochSteps, 6)},
					{XAxis: round(p.p90*p.epochSteps, 6)},
				}),
				charts.WithMarkAreaStyleOpts(opts.MarkAreaStyle{ItemStyle: &opts.ItemStyle{Color: bandColour},
					// No label of its own: the median's line would strike it
					// through; the median's label names the band.
					Label: &opts.Label{Show: opts.Bool(false)}}),
			)
		}
		// A poor or insufficient fit is drawn dashed and grey, and named
		// so: predict does not trust it (it takes the family's, if any).
		name, colour, style := "fitted curve", "#c23531", "solid"
		if weak {
			name, colour, style = "fitted curve ("+f.quality+" fit"+map[bool]string{true: ", not used", false: ""}[borrowed]+")", "#888", "dashed"
		}
		line.AddSeries(name, lineData(curve), append([]charts.SeriesOpts{
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Smooth: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: colour, Width: 2, Type: style}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: colour}),
		}, markOpts...)...)
	}
	sc := charts.NewScatter()
	var nowOpts []charts.SeriesOpts
	if hasFit && f.ok && conv {
		nowOpts = []charts.SeriesOpts{
			charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: fmt.Sprintf("now: epoch %.1f", p.progress/p.epochSteps), XAxis: p.progress}),
			charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"},
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideStartBottom"},
				LineStyle: &opts.LineStyle{Color: "#555", Type: "dotted"}}),
		}
	}
	sc.AddSeries("observed", scatterData(kept), append([]charts.SeriesOpts{charts.WithItemStyleOpts(opts.ItemStyle{Color: "#5470c6", Opacity: opts.Float(0.7)}),
		charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 5})}, nowOpts...)...)
	if hasFit && len(outliers) > 0 {
		sc.AddSeries("dropped (outlier)", scatterData(outliers), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#000"}),
			charts.WithScatterChartOpts(opts.ScatterChart{Symbol: crossSymbol, SymbolSize: 10}))
	}
	line.Overlap(sc)
	return counted(id, line, &line.BaseConfiguration).bind("tooltip.formatter", "lossTooltip")
}

// crossSymbol is a filled X, for dropped points.
const crossSymbol = "path://M2,0L5,3L8,0L10,2L7,5L10,8L8,10L5,7L2,10L0,8L3,5L0,2Z"

// farthest returns the indices of the n points farthest from the fitted
// curve in normalised units: the models table counts the outliers the fit
// dropped but does not say which, and the fit drops the points that lie
// farthest from a fit of the whole log.
func farthest(pts [][2]float64, f lossFit, n int) []int {
	if n <= 0 {
		return nil
	}
	type res struct {
		i int
		d float64
	}
	rs := make([]res, len(pts))
	for i, pt := range pts {
		v := pt[1]
		if f.fit.Complement > 0 {
			v = f.fit.Complement - v
		}
		rs[i] = res{i, math.Abs(v/f.fit.Scale - f.curve.At(pt[0]))}
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].d > rs[b].d })
	if n > len(rs) {
		n = len(rs)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = rs[i].i
	}
	return out
}

// curvePoints samples the fitted curve, in the metric's units, at n steps
// from the first positive step to xmax.
func curvePoints(f lossFit, xmax float64, n int) [][2]float64 {
	if xmax <= 0 {
		xmax = 1
	}
	var out [][2]float64
	for i := 0; i <= n; i++ {
		k := xmax * float64(i) / float64(n)
		y := f.curve.At(k)
		if !finite(y) {
			continue
		}
		out = append(out, [2]float64{round(k, 6), round(f.fit.Value(y), 5)})
	}
	return out
}

func lineData(pts [][2]float64) []opts.LineData {
	out := make([]opts.LineData, len(pts))
	for i, p := range pts {
		out[i] = opts.LineData{Value: []float64{p[0], p[1]}}
	}
	return out
}

func scatterData(pts [][2]float64) []opts.ScatterData {
	out := make([]opts.ScatterData, len(pts))
	for i, p := range pts {
		out[i] = opts.ScatterData{Value: []float64{p[0], round(p[1], 6)}}
	}
	return out
}

// sourceText says where a predicted convergence comes from, in words: the
// job's own fit, or its family's (naming the jobs it borrows from).
func sourceText(p lossPrediction) string {
	switch p.source {
	case "fit":
		return "from its own fit"
	case "cap":
		return "the epoch cap: its fit had not converged by then"
	case "budget":
		return "its epoch budget"
	case "schedule":
		return "its declared schedule's end"
	case "model":
		if len(p.donors) == 0 {
			return "borrowed from its model family, not its own fit"
		}
		names := p.donors
		more := ""
		if len(names) > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", len(p.donors)-3)
		}
		return "borrowed from its model family (" + strings.Join(names, ", ") + more + "), not its own fit"
	}
	return "from " + p.source
}
