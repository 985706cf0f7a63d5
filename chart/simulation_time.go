package chart

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// The simulation's charts over time: every job's tasks in every round
// (sim_allocations) and the cluster's use (sim_utilisation), for one seed.

// maxStacked is the most bands of one allocation chart: the jobs that held
// the most task-seconds one by one, the rest together as "other jobs".
// Beyond a dozen bands neither the colours nor the legend can be told
// apart.
const maxStacked = 12

// timeLines are the lines of the main table, then any that only t has.
func timeLines(t *table.Table, lines []simLine) []simLine {
	out := slices.Clone(lines)
	for _, l := range simLines(t) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// roundTimes are the distinct times of rows, ascending.
func roundTimes(time []float64, rows []int) []float64 {
	var out []float64
	for _, i := range rows {
		out = append(out, time[i])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// emptyRounds says why a per-round table draws nothing, or "".
func emptyRounds(t *table.Table, rows map[simLine][]int, seed int64) string {
	if t.NumRows() == 0 {
		return fmt.Sprintf("The %s table %s is empty (0 rows): the simulation kept no rounds (optimus simulate --intervals=false).", t.Name, sourceName(t))
	}
	if len(rows) == 0 {
		return fmt.Sprintf("The %s table %s has no rows for seed %d, the seed the charts over time show.", t.Name, sourceName(t), seed)
	}
	return ""
}

// timeAxis is the x axis of a chart over time to xmax seconds: the data
// stay in seconds, the labels are in the unit the tables use for such
// durations (timeUnit: hours beyond three hours), set by withTimeUnit.
func timeAxis(xmax float64) charts.GlobalOpts {
	unit, div := timeUnit(xmax)
	ax := opts.XAxis{Type: "value", Name: "time from the start of the simulation (" + unit + ")", NameLocation: "middle", NameGap: 28, Min: 0, Max: niceCeil(xmax),
		SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}}
	if div > 1 {
		// Ticks at whole hours (minutes): a step of 1, 2, 3, 6, 12, 24,
		// ... hours (1, 2, 5, 10, 15, 30 minutes), at most 6 of them.
		steps := []float64{1, 2, 3, 6, 12, 24, 48, 72, 168, 336, 720}
		if unit == "min" {
			steps = []float64{1, 2, 5, 10, 15, 30, 60}
		}
		n := xmax / div
		step := steps[len(steps)-1]
		for _, s := range steps {
			if n/s <= 6 {
				step = s
				break
			}
		}
		ax.Max = math.Ceil(n/step) * step * div
		ax.MinInterval, ax.MaxInterval = step*div, step*div
	}
	return charts.WithXAxisOpts(ax)
}

// allocRun is one run's allocation over time: every job's PS and workers
// after each round, until it finishes.
type allocRun struct {
	line     simLine
	rounds   int
	times    []float64 // the rounds and the jobs' finishes, ascending
	jobs     []string  // in the workload's order
	tasks    map[string][][2]int64
	restarts int
}

// allocRunOf reads the run of line at seed: rows of a, and the finish times
// of its jobs in jobs (a job frees its tasks when it finishes, not at the
// next round).
func allocRunOf(a, jobs *table.Table, l simLine, rows []int, seed int64, rank map[string]int) allocRun {
	time, job := a.Float64s(col.TimeS), a.Strings(col.Job)
	ps, ws, restarted := a.Int64s(col.PS), a.Int64s(col.Workers), a.Bools(col.Restarted)
	r := allocRun{line: l, tasks: map[string][][2]int64{}}
	rounds := roundTimes(time, rows)
	r.rounds = len(rounds)
	at := map[string]map[float64][2]int64{}
	for _, i := range rows {
		if at[job[i]] == nil {
			at[job[i]] = map[float64][2]int64{}
			r.jobs = append(r.jobs, job[i])
		}
		v := at[job[i]][time[i]]
		at[job[i]][time[i]] = [2]int64{v[0] + ps[i], v[1] + ws[i]}
		if restarted[i] {
			r.restarts++
		}
	}
	// Jobs in the workload's order, then any the jobs table lacks.
	slices.SortStableFunc(r.jobs, func(x, y string) int {
		rx, okx := rank[x]
		ry, oky := rank[y]
		switch {
		case okx && oky:
			return rx - ry
		case okx:
			return -1
		case oky:
			return 1
		}
		return 0
	})
	finish := map[string]float64{}
	jj, pol, kn, sd, fin := jobs.Strings(col.Job), jobs.Strings(col.Policy), jobs.Strings(col.Knowledge), jobs.Int64s(col.Seed), jobs.Float64s(col.FinishS)
	for i := range jj {
		if pol[i] == l.policy && kn[i] == l.knowledge && sd[i] == seed && finite(fin[i]) && at[jj[i]] != nil {
			finish[jj[i]] = fin[i]
		}
	}
	r.times = slices.Clone(rounds)
	for _, f := range finish {
		if f > rounds[0] {
			r.times = append(r.times, f)
		}
	}
	slices.Sort(r.times)
	r.times = slices.Compact(r.times)
	isRound := map[float64]bool{}
	for _, t := range rounds {
		isRound[t] = true
	}
	for _, j := range r.jobs {
		f, done := finish[j]
		var cur [2]int64
		out := make([][2]int64, len(r.times))
		for x, t := range r.times {
			if isRound[t] {
				cur = at[j][t]
			}
			if !(done && f <= t) {
				out[x] = cur
			}
		}
		r.tasks[j] = out
	}
	return r
}

func simAllocationSection(a, jobs *table.Table, lines []simLine, jobOrder []string, seed int64, seeds []int64, both bool) *Section {
	sec := &Section{ID: "simallocation", Heading: "Allocation over time", Text: []string{
		fmt.Sprintf("For each policy, the parameter servers and workers every job holds after each scheduling round until it finishes, stacked (seed %d%s). A job that is not there has not arrived yet, waits or is done.",
			seed, otherSeeds(seeds)),
		fmt.Sprintf("Beyond %d jobs a chart draws the %d that held the most task-seconds, and the rest summed as one grey band. "+
			"A line has a point only where something changed, and at most %d (the state at evenly spaced times beyond, about one every two pixels). "+
			"Scroll on a chart to zoom its time axis, drag to pan.", maxStacked, maxStacked-1, maxTimePoints),
	}}
	rows := rowsOf(a, seed)
	if sec.Empty = emptyRounds(a, rows, seed); sec.Empty != "" {
		return sec
	}
	rank := rowIndex(jobOrder)
	var runs []allocRun
	xmax, ymax := 0.0, int64(1)
	for _, l := range timeLines(a, lines) {
		if len(rows[l]) == 0 {
			continue
		}
		r := allocRunOf(a, jobs, l, rows[l], seed, rank)
		for x := range r.times {
			var sum int64
			for _, j := range r.jobs {
				sum += r.tasks[j][x][0] + r.tasks[j][x][1]
			}
			ymax = max(ymax, sum)
		}
		xmax = max(xmax, r.times[len(r.times)-1])
		runs = append(runs, r)
	}
	w, h := wideW, wideH
	if len(runs) > 1 {
		w, h = smallW, smallH
	}
	for n, r := range runs {
		sec.Charts = append(sec.Charts, allocationOverTime(idFor("simallocation", n+1), r, seed, both, sourceName(a), w, h, xmax, ymax))
	}
	if len(runs) > 1 {
		sec.Text = append(sec.Text, "Every chart has the same scale.")
	}
	return sec
}

// biggest are the n jobs of a run that held the most task-seconds, in the
// run's job order (ties: the earlier job).
func biggest(r allocRun, n int) []string {
	held := map[string]float64{}
	for _, j := range r.jobs {
		for x, v := range r.tasks[j][:len(r.times)-1] {
			held[j] += float64(v[0]+v[1]) * (r.times[x+1] - r.times[x])
		}
	}
	byHeld := slices.Clone(r.jobs)
	slices.SortStableFunc(byHeld, func(a, b string) int {
		switch {
		case held[a] > held[b]:
			return -1
		case held[a] < held[b]:
			return 1
		}
		return 0
	})
	keep := map[string]bool{}
	for _, j := range byHeld[:n] {
		keep[j] = true
	}
	var out []string
	for _, j := range r.jobs {
		if keep[j] {
			out = append(out, j)
		}
	}
	return out
}

func allocationOverTime(id string, r allocRun, seed int64, both bool, source, w, h string, xmax float64, ymax int64) *Chart {
	series := r.jobs
	tasks := r.tasks
	other := ""
	if len(series) > maxStacked {
		series = biggest(r, maxStacked-1)
		other = fmt.Sprintf("%d other jobs", len(r.jobs)-len(series))
		sum := make([][2]int64, len(r.times))
		for _, j := range r.jobs {
			if slices.Contains(series, j) {
				continue
			}
			for x, v := range r.tasks[j] {
				sum[x] = [2]int64{sum[x][0] + v[0], sum[x][1] + v[1]}
			}
		}
		tasks = map[string][][2]int64{other: sum}
		for _, j := range series {
			tasks[j] = r.tasks[j]
		}
		series = append(series, other)
	}
	subtitle := fmt.Sprintf("seed %d: %d rounds, %d jobs, %d restarts (%s)", seed, r.rounds, len(r.jobs), r.restarts, source)
	line := charts.NewLine()
	line.SetGlobalOptions(append(base(id, r.line.label(both), subtitle, w, h),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0", Left: "center",
			ItemWidth: 14, ItemHeight: 10, TextStyle: &opts.TextStyle{FontSize: 11}, Data: series}),
		gridFor("70"), timeAxis(xmax),
		yValueAxis("tasks (PS + workers)", 0, niceCeil(float64(ymax)), false),
	)...)
	line.SetGlobalOptions(timeZoom()...)
	// echarts stacks line series over a value x axis by x, not y: the stack
	// is summed here, each series the top of its band, drawn from the top
	// band down and opaque, so that each band shows its own job.
	tops := make([][]int64, len(series))
	for k, j := range series {
		tops[k] = make([]int64, len(r.times))
		for x, v := range tasks[j] {
			tops[k][x] = v[0] + v[1]
			if k > 0 {
				tops[k][x] += tops[k-1][x]
			}
		}
	}
	// Points only where a band changes, at most maxTimePoints.
	pts, _ := thinSteps(r.times, func(a, b int) bool {
		for _, j := range series {
			if tasks[j][a] != tasks[j][b] {
				return false
			}
		}
		return true
	}, maxTimePoints)
	for k := len(series) - 1; k >= 0; k-- {
		j := series[k]
		d := make([][]any, len(pts))
		for n, p := range pts {
			v := tasks[j][p.x]
			d[n] = []any{round(p.t, 6), tops[k][p.x], v[0], v[1]}
		}
		c := thePalette().Other
		if j != other {
			c = jobColour(j)
		}
		line.AddSeries(j, nil,
			charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: c, Width: 1}),
			charts.WithAreaStyleOpts(opts.AreaStyle{Color: c, Opacity: opts.Float(1)}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: c}))
		setPoints(&line.BaseConfiguration, d)
	}
	// Each point is [time, top of the job's band, PS, workers].
	// The tooltip's time in the axis' unit.
	tip := "simAllocationTooltip"
	switch unit, _ := timeUnit(xmax); unit {
	case "h":
		tip = "simAllocationTooltipHours"
	case "min":
		tip = "simAllocationTooltipMinutes"
	}
	return withTimeUnit(counted(id, line, &line.BaseConfiguration).bind("tooltip.formatter", tip), xmax)
}

func otherSeeds(seeds []int64) string {
	if len(seeds) <= 1 {
		return ""
	}
	return fmt.Sprintf(" of %s; pick another with --seed", seedList(seeds))
}

// utilResources are the resources of the util_<resource> columns, in
// table order.
func utilResources(u *table.Table) []string {
	var out []string
	for _, c := range u.ColumnNames() {
		if r, ok := strings.CutPrefix(c, "util_"); ok && r != "" {
			out = append(out, r)
		}
	}
	return out
}

func simUtilisationSections(u, jobs *table.Table, lines []simLine, seed int64, seeds []int64, both bool) ([]*Section, error) {
	res := utilResources(u)
	if len(res) == 0 && u.NumRows() > 0 {
		return nil, table.Errorf(u.Source, "the utilisation over time needs util_<resource> columns (the share of each resource allocated), which the %s table lacks", u.Name)
	}
	sec := &Section{ID: "simutilisation", Heading: "Utilisation over time", Text: []string{
		fmt.Sprintf("The share of each resource of the cluster that the jobs' tasks hold after each scheduling round (0: none, 1: all of it), one line per policy, until the run's last job finishes; and the jobs that are ready but wait for tasks (seed %d%s).",
			seed, otherSeeds(seeds)) +
			map[bool]string{true: " Solid: fitted knowledge; dashed: oracle.", false: ""}[both],
	}}
	rows := rowsOf(u, seed)
	if sec.Empty = emptyRounds(u, rows, seed); sec.Empty != "" {
		return []*Section{sec}, nil
	}
	time, waiting := u.Float64s(col.TimeS), u.Int64s(col.Waiting)
	var drawn []simLine
	xmax, wmax := 0.0, int64(1)
	for _, l := range timeLines(u, lines) {
		if len(rows[l]) == 0 {
			continue
		}
		drawn = append(drawn, l)
		for _, i := range rows[l] {
			xmax = max(xmax, time[i])
			wmax = max(wmax, waiting[i])
		}
		xmax = max(xmax, runEnd(jobs, l, seed))
	}
	cols := simColours(drawn)
	chart := func(id, title, subtitle, yName string, ymax float64, valueFormatter string, value func(i int) float64) *Chart {
		line := charts.NewLine()
		line.SetGlobalOptions(append(base(id, title, subtitle, smallW, smallH),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
			lineLegend(), gridFor("70"), timeAxis(xmax),
			yValueAxis(yName, 0, ymax, false),
		)...)
		line.SetGlobalOptions(timeZoom()...)
		for _, l := range drawn {
			byTime := sortedByTime(time, rows[l])
			ts := make([]float64, len(byTime))
			for n, i := range byTime {
				ts[n] = time[i]
			}
			pts, _ := thinSteps(ts, func(a, b int) bool { return round(value(byTime[a]), 4) == round(value(byTime[b]), 4) }, maxTimePoints)
			var d [][]any
			last := 0.0
			for _, p := range pts {
				d = append(d, []any{round(p.t, 6), round(value(byTime[p.x]), 4)})
				last = p.t
			}
			// The last round's share holds until the run's last job
			// finishes, when every task is free.
			if end := runEnd(jobs, l, seed); end > last {
				d = append(d, []any{round(end, 6), 0})
			}
			line.AddSeries(l.label(both), nil,
				charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Color: cols[l.policy], Width: 2, Type: l.style()}),
				charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[l.policy]}))
			setPoints(&line.BaseConfiguration, d)
		}
		return withTimeUnit(counted(id, line, &line.BaseConfiguration).bind("tooltip.valueFormatter", valueFormatter), xmax)
	}
	for k, r := range res {
		vals := u.Float64s("util_" + r)
		sec.Charts = append(sec.Charts, chart(idFor("simutilisation", k+1), r+": share of the cluster allocated",
			fmt.Sprintf("seed %d (%s)", seed, sourceName(u)), "share of the cluster's "+r, 1, "share",
			func(i int) float64 { return vals[i] }))
	}
	sec.Charts = append(sec.Charts, chart(idFor("simwaiting", 1), "Jobs waiting for tasks",
		fmt.Sprintf("ready (profiled) but given no tasks, seed %d (%s)", seed, sourceName(u)), "jobs waiting", niceCeil(float64(wmax)),
		"jobs", func(i int) float64 { return float64(waiting[i]) }))
	return []*Section{sec}, nil
}

// runEnd is when the last job of a run that finished them all finished,
// or 0 when a job did not finish.
func runEnd(jobs *table.Table, l simLine, seed int64) float64 {
	pol, kn, sd, fin := jobs.Strings(col.Policy), jobs.Strings(col.Knowledge), jobs.Int64s(col.Seed), jobs.Float64s(col.FinishS)
	end := 0.0
	for i := range pol {
		if pol[i] == l.policy && kn[i] == l.knowledge && sd[i] == seed {
			if !finite(fin[i]) {
				return 0
			}
			end = max(end, fin[i])
		}
	}
	return end
}

// sortedByTime orders rows by time, keeping table order among equal times.
func sortedByTime(time []float64, rows []int) []int {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b int) int {
		switch {
		case time[a] < time[b]:
			return -1
		case time[a] > time[b]:
			return 1
		}
		return 0
	})
	return out
}

// withTimeUnit labels the x axis of c (seconds) in timeUnit(xmax)'s unit.
func withTimeUnit(c *Chart, xmax float64) *Chart {
	switch unit, _ := timeUnit(xmax); unit {
	case "h":
		return c.bind("xAxis.0.axisLabel.formatter", "secondsAsHours")
	case "min":
		return c.bind("xAxis.0.axisLabel.formatter", "secondsAsMinutes")
	}
	return c
}
