package chart

import (
	"fmt"
	"sort"

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
		Name:  "speed",
		Short: "Measured training speeds against each job's fitted speed model f(p, w)",
		Long: `One chart per job (small multiples): measured speeds (steps/s) against the number of
workers w, one colour per number of parameter servers p, and the fitted speed model f(p, w)
from --models as a line for each p. Failed runs (speed 0 or NaN) are crosses at 0; the
configurations optimus fit suggest proposes to measure next (--suggestions) are diamonds at
their predicted speed. An all-reduce job (ps 0) is coloured by the nodes its workers spanned
instead, with the model's f(w, n) at the job's batch as the line for n nodes.`,
		Example: `  optimus chart speed -i tb/speed.parquet --models models.parquet --suggestions suggestions.parquet -o speed.html`,
		Inputs: []Input{
			{Flag: Main, Schema: schema.Speed, Required: true, Doc: "speed samples"},
			{Flag: "models", Schema: schema.Models, Doc: "fitted models (optimus fit), for the speed model f(p, w)"},
			{Flag: "suggestions", Schema: schema.Suggestions, Doc: "configurations to measure next (optimus fit suggest)"},
			{Flag: "eval", Schema: schema.SpeedEval, Doc: "the speed model's cross-validated errors (optimus eval speed)"},
		},
		PerJob: true,
		Build:  buildSpeed,
	})
}

// maxLines is the most values of p drawn as lines in one chart.
const maxLines = 6

type speedModel struct {
	m                 fit.SpeedModel
	ok                bool
	samples, failed   int
	quality, medError string
	note              string
}

func speedModels(m *table.Table) map[string]speedModel {
	out := map[string]speedModel{}
	if m == nil {
		return out
	}
	for j, model := range adapt.ReadModels(m) {
		s := speedModel{quality: model.SpeedQuality, note: model.SpeedNote}
		if sf := model.Speed; sf != nil {
			s.samples, s.failed = sf.Used, sf.Failed
			if finite(sf.MedianRelErr) {
				s.medError = fmt.Sprintf("%.1f%%", 100*sf.MedianRelErr)
			}
			s.m, s.ok = sf.Model, true
			for k := 0; k < fit.NumTheta(sf.Model.Mode); k++ {
				s.ok = s.ok && finite(sf.Model.Theta[k])
			}
		}
		out[j] = s
	}
	return out
}

type suggestion struct{ rank, ps, workers int }

func buildSpeed(in Tables) (*Page, error) {
	speed := in.One(Main)
	const title = "Training speed: measurements and fitted models"
	if speed.NumRows() == 0 {
		return emptyPage(title, speed), nil
	}
	return &Page{Title: title, Headline: []Figure{qualityHeadline(in.One("models"), "speed", col.SpeedQuality)}, Lead: []string{
		"Each chart is one job: how fast it trained (steps per second) with w workers and p parameter servers, as measured and as the fitted model f(p, w) predicts.",
	}, Sections: append([]*Section{speedSection(speed, in.One("models"), in.One("suggestions"))}, evalSpeedSections(in.One("eval"))...)}, nil
}

func speedSection(speed, models, sugg *table.Table) *Section {
	ms := speedModels(models)
	suggs := map[string][]suggestion{}
	if sugg != nil {
		jobs, rank, ps, w := sugg.Strings(col.Job), sugg.Int64s(col.Rank), sugg.Int64s(col.PS), sugg.Int64s(col.Workers)
		for i, j := range jobs {
			suggs[j] = append(suggs[j], suggestion{int(rank[i]), int(ps[i]), int(w[i])})
		}
	}
	jobs, rows := groups(speed.Strings(col.Job))
	ps, ws, sp := speed.Int64s(col.PS), speed.Int64s(col.Workers), speed.Float64s(col.Speed)
	nodes := make([]int64, len(ps))
	if speed.Has(col.Nodes) {
		nodes = speed.Int64s(col.Nodes) // null: one node
	}
	text := "Dots: measured speeds, coloured by p (all-reduce jobs: by the nodes they spanned); lines: the fitted model f(p, w) for the same p (all-reduce: f(w, n) for the same nodes); crosses at 0: failed runs."
	if models == nil {
		text += " No models table was given (--models), so no fitted lines."
	}
	if sugg != nil {
		text += " Diamonds: the configurations suggested to measure next, at the speed the model predicts for them."
	}
	sec := &Section{ID: "speed", Heading: "Speed per job", Text: []string{text}}
	jobs = capJobs(sec, jobs)
	for n, job := range jobs {
		sec.Charts = append(sec.Charts, speedChart(idFor("speed", n+1), job, rows[job], ps, ws, nodes, sp, ms, suggs[job]))
	}
	return sec
}

// speedChart draws one job: a parameter-server job's samples and model
// lines by p, an all-reduce job's (ps 0) by the nodes its workers spanned,
// the model's line for n nodes being f(w, n) at the job's batch.
func speedChart(id, job string, rows []int, ps, ws, nodes []int64, sp []float64, models map[string]speedModel, suggs []suggestion) *Chart {
	m, hasModel := models[job]
	allReduce := len(rows) > 0 && (!hasModel || !m.ok || m.m.Mode == fit.AllReduce)
	for _, r := range rows {
		allReduce = allReduce && ps[r] == 0
	}
	// key is what a series holds fixed: p, or for all-reduce the nodes.
	key, label, other := func(r int) int { return int(ps[r]) }, func(k int) string { return fmt.Sprintf("p = %d", k) }, "other p"
	if allReduce {
		key = func(r int) int { return max(1, int(nodes[r])) }
		label, other = func(k int) string { return fmt.Sprintf("%d node%s", k, map[bool]string{true: "", false: "s"}[k == 1]) }, "other nodes"
	}
	byP := map[int][][]any{}
	var failed [][]any
	maxW := 1
	for _, r := range rows {
		p, w := key(r), int(ws[r])
		maxW = max(maxW, w)
		if !finite(sp[r]) || sp[r] <= 0 {
			failed = append(failed, []any{w, 0, label(p) + ", failed run"})
			continue
		}
		byP[p] = append(byP[p], []any{w, round(sp[r], 5), label(p)})
	}
	for _, s := range suggs {
		maxW = max(maxW, s.workers)
	}
	var pvals []int
	for p := range byP {
		pvals = append(pvals, p)
	}
	sort.Ints(pvals)
	drawn := pickEven(pvals, maxLines)

	subtitle := fmt.Sprintf("%d samples", len(rows))
	if hasModel {
		subtitle = fmt.Sprintf("%d samples (%d failed)", m.samples+m.failed, m.failed)
		if m.ok {
			subtitle += ", " + m.m.Mode + " model"
		}
		if m.medError != "" {
			subtitle += ", median error " + m.medError
		}
		if m.quality != "" {
			subtitle += ", quality " + m.quality
		}
		if !m.ok && m.note != "" {
			subtitle += "; no model: " + m.note
		}
	}
	if len(drawn) < len(pvals) {
		what := "values of p"
		if allReduce {
			what = "node counts"
		}
		subtitle += fmt.Sprintf("\nlines for %d of the %d %s measured; grey dots: the others", len(drawn), len(pvals), what)
	}

	sc := charts.NewScatter()
	sc.SetGlobalOptions(append(base(id, job, subtitle, smallW, smallH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		legendBottom(), gridFor("80"),
		xValueAxis("workers (w)", 0),
		yValueAxis("speed (steps/s)", 0, nil, false),
	)...)
	isDrawn := map[int]bool{}
	for _, p := range drawn {
		isDrawn[p] = true
		name := label(p)
		sc.AddSeries(name, anyScatter(byP[p]), charts.WithItemStyleOpts(opts.ItemStyle{Color: colour(p)}),
			charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 9}))
	}
	var others [][]any
	for _, p := range pvals {
		if !isDrawn[p] {
			others = append(others, byP[p]...)
		}
	}
	if len(others) > 0 {
		sc.AddSeries(other, anyScatter(others), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#aaa"}),
			charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 7}))
	}
	if len(failed) > 0 {
		sc.AddSeries("failed run", anyScatter(failed), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#000"}),
			charts.WithScatterChartOpts(opts.ScatterChart{Symbol: crossSymbol, SymbolSize: 10}))
	}
	if len(suggs) > 0 {
		var pts [][]any
		for _, s := range suggs {
			y := 0.0
			if m.ok {
				y = round(m.m.Speed(s.ps, s.workers), 5)
			}
			what := fmt.Sprintf("p = %d", s.ps)
			if allReduce {
				what = label(max(1, m.m.Nodes(s.workers)))
			}
			pts = append(pts, []any{s.workers, y, fmt.Sprintf("rank %d: %s", s.rank, what)})
		}
		sc.AddSeries("suggested next", anyScatter(pts), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#fff", BorderColor: "#c23531", BorderWidth: 2}),
			charts.WithScatterChartOpts(opts.ScatterChart{Symbol: "diamond", SymbolSize: 13}))
	}
	if m.ok {
		line := charts.NewLine()
		for _, p := range drawn {
			var pts [][2]float64
			for w := 1; w <= maxW+1; w++ {
				switch {
				case !allReduce:
					pts = append(pts, [2]float64{float64(w), round(m.m.Speed(p, w), 5)})
				case w >= p && m.m.GlobalBatch > 0:
					pts = append(pts, [2]float64{float64(w), round(m.m.SpeedOn(w, p, m.m.GlobalBatch/float64(w)), 5)})
				}
			}
			if len(pts) == 0 {
				continue
			}
			line.AddSeries(label(p), lineData(pts),
				charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Color: colour(p), Width: 2}),
				charts.WithItemStyleOpts(opts.ItemStyle{Color: colour(p)}),
			)
		}
		sc.Overlap(line)
	}
	return counted(id, sc, &sc.BaseConfiguration).bind("tooltip.formatter", "speedTooltip")
}

// pickEven returns at most n of vals (sorted), evenly spread and always
// with the first and the last.
func pickEven(vals []int, n int) []int {
	if len(vals) <= n {
		return vals
	}
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, vals[i*(len(vals)-1)/(n-1)])
	}
	return out
}

func anyScatter(pts [][]any) []opts.ScatterData {
	out := make([]opts.ScatterData, len(pts))
	for i, p := range pts {
		out[i] = opts.ScatterData{Value: p}
	}
	return out
}
