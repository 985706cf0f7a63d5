package chart

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/io/table"
)

// palette is echarts' default colour order, fixed here so that a job or a
// p keeps its colour across a page's charts.
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

func colour(i int) string { return palette[i%len(palette)] }

// Sizes of one small-multiple chart and of a wide chart.
const (
	smallW, smallH = "620px", "400px"
	wideW, wideH   = "1240px", "460px"
)

// base returns the options every chart shares: a fixed ID (so identical
// input renders identically), a size, a title, no animation (so that a
// page is complete once loaded) and a save-as-image button.
func base(id, title, subtitle, width, height string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: width, Height: height, Renderer: "canvas", Theme: "white", PageTitle: title}),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: subtitle, Left: "center", SubtitleStyle: &opts.TextStyle{Color: "#555", FontSize: 12, LineHeight: 16}}),
		charts.WithAnimation(false),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "10", Top: "0", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Name: id, Title: "save as PNG"},
		}}),
	}
}

// legendBottom puts the legend under the plot, scrolling when long.
func legendBottom() charts.GlobalOpts {
	return charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0", Left: "center", ItemWidth: 14, ItemHeight: 10, TextStyle: &opts.TextStyle{FontSize: 11}})
}

// lineLegend is legendBottom with icons long enough to show a dashed
// line (oracle knowledge) as dashed.
func lineLegend() charts.GlobalOpts {
	return charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0", Left: "center", ItemWidth: 30, ItemHeight: 10, TextStyle: &opts.TextStyle{FontSize: 11}})
}

// gridFor leaves room for the title on top and the legend below.
func gridFor(top string) charts.GlobalOpts {
	return charts.WithGridOpts(opts.Grid{Top: top, Bottom: "80", Left: "70", Right: "40", ContainLabel: opts.Bool(true)})
}

// valueAxis is a numeric axis named with its unit.
func xValueAxis(name string, min any) charts.GlobalOpts {
	return charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 28, Min: min,
		SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}})
}

func yValueAxis(name string, min, max any, scale bool) charts.GlobalOpts {
	return charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 52, Min: min, Max: max, Scale: opts.Bool(scale),
		SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}})
}

// finite reports whether f is a number (not NaN or infinite).
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// round keeps s significant digits, so that the page holds short numbers
// and the same numbers on every platform.
func round(f float64, s int) float64 {
	if !finite(f) || f == 0 {
		return f
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', s, 64), 64)
	return v
}

// num formats a number for text: up to 4 significant digits, thousands as
// plain digits.
func num(f float64) string {
	if !finite(f) {
		return "-"
	}
	a := math.Abs(f)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', 2, 64) + "M"
	case a >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

// duration formats seconds as the largest sensible unit.
func duration(s float64) string {
	switch {
	case !finite(s):
		return "-"
	case s >= 86400:
		return fmt.Sprintf("%.1f d", s/86400)
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.0f s", s)
}

// sourceName is the file name a table came from, for titles.
func sourceName(t *table.Table) string {
	if t.Source == "" {
		return t.Name
	}
	return filepath.Base(t.Source)
}

// emptyPage is the page of a kind whose main table has no rows.
func emptyPage(title string, t *table.Table) *Page {
	return &Page{Title: title, Sections: []*Section{{ID: "empty",
		Empty: fmt.Sprintf("The %s table %s is empty (0 rows): there is nothing to draw.", t.Name, sourceName(t))}}}
}

// needColumns reports the first column of cols that t lacks, naming the
// file and what needs it: the schema-declared columns are always there
// after reading, but pattern columns (worker_gpu) need not be.
func needColumns(t *table.Table, what string, cols ...string) error {
	var missing []string
	for _, c := range cols {
		if !t.Has(c) {
			missing = append(missing, strconvQuote(c))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	noun := "column"
	if len(missing) > 1 {
		noun = "columns"
	}
	return table.Errorf(t.Source, "%s needs %s %s, which the %s table lacks", what, noun, strings.Join(missing, ", "), t.Name)
}

func strconvQuote(s string) string { return strconv.Quote(s) }

// groups returns the distinct values of keys in order of first appearance,
// with the rows of each.
func groups(keys []string) (order []string, rows map[string][]int) {
	rows = map[string][]int{}
	for i, k := range keys {
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], i)
	}
	return order, rows
}

// rowIndex maps each key to its (first) row.
func rowIndex(keys []string) map[string]int {
	m := make(map[string]int, len(keys))
	for i, k := range keys {
		if _, ok := m[k]; !ok {
			m[k] = i
		}
	}
	return m
}

// idFor is a chart ID: a JavaScript identifier (go-echarts names a variable
// after it) made of the kind and a number.
func idFor(kind string, n int) string { return fmt.Sprintf("%s_%d", kind, n) }

// counted wraps a go-echarts chart (c, whose base configuration is bc)
// with its ID and the data count of each of its series.
func counted(id string, c echartsChart, bc *charts.BaseConfiguration) *Chart {
	out := &Chart{ID: id, c: c, bc: bc}
	for _, s := range bc.MultiSeries {
		n := 0
		if v := reflect.ValueOf(s.Data); v.Kind() == reflect.Slice {
			n = v.Len()
		}
		out.Series = append(out.Series, SeriesCount{Name: s.Name, Data: n})
	}
	return out
}

// niceCeil rounds x up to a round multiple of a power of ten, for an axis
// maximum that several charts share.
func niceCeil(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// capJobs keeps the first MaxJobCharts jobs, and says so in the section
// when it leaves some out.
func capJobs(sec *Section, jobs []string) []string {
	if len(jobs) <= MaxJobCharts {
		return jobs
	}
	sec.Text = append(sec.Text, fmt.Sprintf("Showing the first %d of %d jobs, in table order; pick others with --job.", MaxJobCharts, len(jobs)))
	return jobs[:MaxJobCharts]
}

// everyLabel asks echarts to label every category of an axis when there
// are few enough to read, and leaves it to thin them out otherwise.
func everyLabel(n int) string {
	if n <= 40 {
		return "0"
	}
	return "auto"
}

// plural is n and noun, with an s unless n is 1: "1 point", "3 points".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
