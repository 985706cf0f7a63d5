package chart

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

func init() {
	register(&Kind{
		Name:  "allocation",
		Short: "PS and workers per job, and the cluster's utilisation, for one policy or several",
		Long: `One stacked bar chart per allocation table (-i, repeatable: optimus, drf, tetris and fifo
from the same predictions side by side, on the same scale): the parameter servers and workers
each job gets, with what it runs with now. With --cluster, a chart of the share of each resource
of the cluster the allocation uses, per policy and now.`,
		Example: `  optimus chart allocation -i allocation.parquet -i allocation-drf.parquet -i allocation-tetris.parquet --cluster tb/cluster.parquet -o allocation.html`,
		Inputs: []Input{
			{Flag: Main, Schema: schema.Allocation, Required: true, Many: true, Doc: "allocation (optimus solve)"},
			{Flag: "cluster", Schema: schema.Cluster, Doc: "the cluster's nodes, for the utilisation"},
		},
		Build: buildAllocation,
	})
}

func buildAllocation(in Tables) (*Page, error) {
	allocs := in[Main]
	const title = "Allocation: parameter servers and workers per job"
	empty := true
	for _, a := range allocs {
		empty = empty && a.NumRows() == 0
	}
	if empty {
		return emptyPage(title, allocs[0]), nil
	}
	secs, err := allocationSections(allocs, in.One("cluster"))
	if err != nil {
		return nil, err
	}
	return &Page{Title: title, Headline: allocHeadline(allocs), Lead: []string{
		"How many parameter servers (PS) and workers each job gets from optimus solve, with what each job runs with now" +
			map[bool]string{true: ", for several policies on the same predictions.", false: "."}[len(allocs) > 1],
	}, Sections: secs}, nil
}

// policyName is the policy an allocation table was made by (alloc_policy),
// or its file name.
func policyName(t *table.Table) string {
	for i, v := range t.Valid(col.AllocPolicy) {
		if v {
			return t.Strings(col.AllocPolicy)[i]
		}
	}
	return strings.TrimSuffix(filepath.Base(t.Source), filepath.Ext(t.Source))
}

// policyNames names each table, numbering repeats.
func policyNames(allocs []*table.Table) []string {
	seen := map[string]int{}
	out := make([]string, len(allocs))
	for i, a := range allocs {
		n := policyName(a)
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s #%d", n, seen[n])
		}
		out[i] = n
	}
	return out
}

func allocationSections(allocs []*table.Table, cluster *table.Table) ([]*Section, error) {
	names := policyNames(allocs)
	// Jobs in the order of the first table, then any others.
	var jobs []string
	seen := map[string]bool{}
	maxTasks := int64(1)
	for _, a := range allocs {
		ps, ws, nowP, nowW := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers), a.Int64s(col.PS), a.Int64s(col.Workers)
		for i, j := range a.Strings(col.Job) {
			if !seen[j] {
				seen[j] = true
				jobs = append(jobs, j)
			}
			maxTasks = max(maxTasks, ps[i]+ws[i], nowP[i]+nowW[i])
		}
	}
	w, h := wideW, wideH
	if len(allocs) > 1 {
		w, h = smallW, smallH
	}
	sec := &Section{ID: "allocation", Heading: "PS and workers per job",
		Text: []string{"Bars: PS and workers decided, stacked; dots: PS + workers the job runs with now (0 for a job that has not started). Every chart has the same scale."}}
	all := jobs
	if len(jobs) > maxJobBars {
		jobs = topJobs(allocs, jobs, maxJobBars)
		sec.Text = append(sec.Text, fmt.Sprintf("With %d jobs, the bars are the %d that get the most tasks under any policy, largest first; the chart's subtitle sums the other %d, and the histogram below counts every job by its tasks.",
			len(all), len(jobs), len(all)-len(jobs)))
	}
	grid := &Grid{Header: []string{"policy", "running", "waiting", "tasks (PS + workers)", "mean predicted completion (of the jobs that run)", "slowest running job"},
		Numeric: []bool{false, true, true, true, true, true}}
	for n, a := range allocs {
		sec.Charts = append(sec.Charts, allocationChart(idFor("allocation", n+1), names[n], a, jobs, maxTasks, w, h))
		grid.Rows = append(grid.Rows, policySummary(names[n], a))
	}
	if len(all) > len(jobs) {
		sec.Charts = append(sec.Charts, tasksHistogram(allocs, names))
	}
	sec.Grid = grid
	secs := []*Section{sec}
	if cluster != nil {
		u, err := utilisationSection(allocs, names, cluster)
		if err != nil {
			return nil, err
		}
		secs = append(secs, u)
	}
	return secs, nil
}

func policySummary(name string, a *table.Table) []string {
	status := a.Strings(col.Status)
	ps, ws := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers)
	comp := a.Float64s(col.AllocCompletionS)
	running, waiting, tasks := 0, 0, int64(0)
	sum, n, slowest := 0.0, 0, 0.0
	for i := range status {
		switch status[i] {
		case "running":
			running++
		case "waiting":
			waiting++
		}
		tasks += ps[i] + ws[i]
		if finite(comp[i]) {
			sum += comp[i]
			n++
			slowest = max(slowest, comp[i])
		}
	}
	// A mean over the jobs that run says nothing of the ones that wait
	// (they have no predicted completion), so it names how many it covers.
	mean := "-"
	if n > 0 {
		mean = duration(sum / float64(n))
		if n < len(status) {
			mean += fmt.Sprintf(" over %d of %d jobs (%d without: waiting)", n, len(status), len(status)-n)
		}
	}
	return []string{name, fmt.Sprint(running), fmt.Sprint(waiting), fmt.Sprint(tasks), mean, duration(slowest)}
}

func allocationChart(id, name string, a *table.Table, jobs []string, maxTasks int64, w, h string) *Chart {
	idx := rowIndex(a.Strings(col.Job))
	ps, ws, nowP, nowW := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers), a.Int64s(col.PS), a.Int64s(col.Workers)
	status, reason := a.Strings(col.Status), a.Strings(col.Reason)
	var psD, wD []opts.BarData
	var nowD []opts.ScatterData
	running, waiting := 0, 0
	for _, j := range jobs {
		i, ok := idx[j]
		if !ok {
			psD, wD = append(psD, opts.BarData{Value: 0}), append(wD, opts.BarData{Value: 0})
			nowD = append(nowD, opts.ScatterData{Value: []any{j, 0}})
			continue
		}
		tip := status[i]
		if reason[i] != "" {
			tip += ": " + reason[i]
		}
		psD = append(psD, opts.BarData{Name: tip, Value: ps[i]})
		wD = append(wD, opts.BarData{Name: tip, Value: ws[i]})
		nowD = append(nowD, opts.ScatterData{Value: []any{j, nowP[i] + nowW[i]}})
		switch status[i] {
		case "running":
			running++
		case "waiting":
			waiting++
		}
	}
	subtitle := fmt.Sprintf("%d running, %d waiting (%s)", running, waiting, sourceName(a))
	if rest := a.NumRows() - len(jobs); rest > 0 {
		shown := map[string]bool{}
		for _, j := range jobs {
			shown[j] = true
		}
		running, waiting = 0, 0
		var tasks int64
		for i, j := range a.Strings(col.Job) {
			if shown[j] {
				continue
			}
			tasks += ps[i] + ws[i]
			switch status[i] {
			case "running":
				running++
			case "waiting":
				waiting++
			}
		}
		subtitle = fmt.Sprintf("%d jobs shown of %d (%s); the other %d: %d tasks, %d running, %d waiting", len(jobs), a.NumRows(), sourceName(a), rest, tasks, running, waiting)
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(base(id, name, subtitle, w, h),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		legendBottom(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "job", NameLocation: "middle", NameGap: 52,
			AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: everyLabel(len(jobs) * map[bool]int{true: 2, false: 1}[w == smallW])}}),
		yValueAxis("tasks (PS + workers)", 0, niceCeil(float64(maxTasks)), false),
	)...)
	bar.SetXAxis(jobs)
	bar.AddSeries("PS", psD, charts.WithBarChartOpts(opts.BarChart{Stack: "tasks"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#ee6666"}))
	bar.AddSeries("workers", wD, charts.WithBarChartOpts(opts.BarChart{Stack: "tasks"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#5470c6"}))
	now := charts.NewScatter()
	now.AddSeries("now: PS + workers", nowD, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#222"}),
		charts.WithScatterChartOpts(opts.ScatterChart{Symbol: "circle", SymbolSize: 8}))
	bar.Overlap(now)
	return counted(id, bar, &bar.BaseConfiguration)
}

// resources are the cluster's resource columns: every numeric column but
// node, in table order.
func resources(cluster *table.Table) []string {
	var out []string
	for i := 0; i < cluster.NumCols(); i++ {
		f := cluster.Field(i)
		if f.Name == "node" {
			continue
		}
		if f.Type.ID() == arrow.FLOAT64 || f.Type.ID() == arrow.INT64 {
			out = append(out, f.Name)
		}
	}
	return out
}

// capacities sums each resource over the nodes.
func capacities(cluster *table.Table, res []string) []float64 {
	out := make([]float64, len(res))
	for k, r := range res {
		for _, v := range numbers(cluster, r) {
			out[k] += v
		}
	}
	return out
}

// numbers reads a float or integer column as floats.
func numbers(t *table.Table, col string) []float64 {
	if t.Field(t.Index(col)).Type.ID() == arrow.INT64 {
		ints := t.Int64s(col)
		out := make([]float64, len(ints))
		for i, v := range ints {
			out[i] = float64(v)
		}
		return out
	}
	return t.Float64s(col)
}

func utilisationSection(allocs []*table.Table, names []string, cluster *table.Table) (*Section, error) {
	res := resources(cluster)
	caps := capacities(cluster, res)
	type use struct {
		name string
		pct  []float64
	}
	var uses []use
	for n, a := range allocs {
		var cols []string
		for _, r := range res {
			cols = append(cols, "ps_"+r, "worker_"+r)
		}
		if err := needColumns(a, "the utilisation of cluster resource columns", cols...); err != nil {
			return nil, err
		}
		alloc := use{name: names[n], pct: make([]float64, len(res))}
		now := use{name: "now", pct: make([]float64, len(res))}
		ps, ws, nowP, nowW := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers), a.Int64s(col.PS), a.Int64s(col.Workers)
		for k, r := range res {
			pd, wd := a.Float64s("ps_"+r), a.Float64s("worker_"+r)
			for i := range ps {
				alloc.pct[k] += float64(ps[i])*pd[i] + float64(ws[i])*wd[i]
				now.pct[k] += float64(nowP[i])*pd[i] + float64(nowW[i])*wd[i]
			}
		}
		if n == 0 {
			uses = append(uses, now)
		}
		uses = append(uses, alloc)
	}
	cols := policyColours(names)
	id := idFor("utilisation", 1)
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(base(id, "Cluster utilisation by resource", fmt.Sprintf("share of the capacity of %d nodes (%s)", cluster.NumRows(), sourceName(cluster)), wideW, wideH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		legendBottom(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "resource", NameLocation: "middle", NameGap: 30}),
		yValueAxis("used (% of cluster capacity)", 0, 100, false),
	)...)
	bar.SetXAxis(res)
	for n, u := range uses {
		var d []opts.BarData
		for k := range res {
			v := 0.0
			if caps[k] > 0 {
				v = round(100*u.pct[k]/caps[k], 4)
			}
			d = append(d, opts.BarData{Value: v})
		}
		c := cols[u.name]
		if u.name == "now" && n == 0 {
			c = thePalette().Now
		}
		bar.AddSeries(u.name, d, charts.WithItemStyleOpts(opts.ItemStyle{Color: c}))
	}
	return &Section{ID: "utilisation", Heading: "Cluster utilisation",
		Text:   []string{"For each resource, the share of the cluster's total capacity the allocation's tasks would use (their per-task demands times PS and workers), next to what the jobs use now."},
		Charts: []*Chart{counted(id, bar, &bar.BaseConfiguration).bind("tooltip.valueFormatter", "percent")}}, nil
}
