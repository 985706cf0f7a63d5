package chart

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

func init() {
	register(&Kind{
		Name:  "simulation",
		Short: "JCT CDF per policy, and allocation and utilisation over time, of optimus simulate's runs",
		Long: `The runs of optimus simulate (its --dir tables). From sim_jobs (-i): the cumulative
distribution of job completion times (JCT) per policy, and per knowledge (fitted, oracle) when
both were simulated, every selected seed pooled, with a table of finished jobs and mean,
median and p95 JCT. With --allocations (sim_allocations): the PS + workers of every job over
time, stacked, one chart per policy. With --utilisation (sim_utilisation): the share of each
resource of the cluster allocated over time, and the jobs waiting, one line per policy. The
charts over time show one seed: the first selected (--seed picks seeds; without it all, and
the smallest for the charts over time).`,
		Example: `  optimus simulate --seeds 1-2 --knowledge fitted,oracle -q --dir sim
  optimus chart simulation -i sim/sim_jobs.parquet --allocations sim/sim_allocations.parquet \
    --utilisation sim/sim_utilisation.parquet -o simulation.html
  optimus chart simulation -i sim/sim_jobs.parquet --utilisation sim/sim_utilisation.parquet --seed 2 -o seed2.html`,
		Inputs: []Input{
			{Flag: Main, Schema: schema.SimJobs, Required: true, Doc: "every job of every run, as optimus simulate --dir writes it"},
			{Flag: "allocations", Schema: schema.SimAllocations, Doc: "every job's tasks in every round, for the allocation over time"},
			{Flag: "utilisation", Schema: schema.SimUtilisation, Doc: "the cluster's use in every round, for the utilisation over time"},
		},
		Seeded: true,
		Build:  buildSimulation,
	})
}

const simTitle = "Simulation: job completion times, allocation and utilisation"

func buildSimulation(in Tables) (*Page, error) {
	jobs := in.One(Main)
	if jobs.NumRows() == 0 {
		return emptyPage(simTitle, jobs), nil
	}
	secs, err := simulationSections(in)
	if err != nil {
		return nil, err
	}
	return &Page{Title: simTitle, Headline: simHeadline(jobs), Lead: []string{simLead(jobs)}, Sections: secs}, nil
}

// simLead says what was simulated.
func simLead(jobs *table.Table) string {
	lines, seeds := simLines(jobs), simSeeds(jobs)
	var policies, knowledge []string
	for _, l := range lines {
		if !slices.Contains(policies, l.policy) {
			policies = append(policies, l.policy)
		}
		if !slices.Contains(knowledge, l.knowledge) {
			knowledge = append(knowledge, l.knowledge)
		}
	}
	distinct, _ := groups(jobs.Strings(col.Job))
	return fmt.Sprintf("What optimus simulate measured (%s): %d jobs replayed under the policies %s, with %s knowledge, for %s; %d runs in all.",
		sourceName(jobs), len(distinct), strings.Join(policies, ", "), strings.Join(knowledge, " and "), seedList(seeds), len(lines)*len(seeds))
}

// simulationSections are the sections of the simulation kind, for its page
// and the report. in[Main] is a sim_jobs table with rows.
func simulationSections(in Tables) ([]*Section, error) {
	jobs := in.One(Main)
	lines, seeds := simLines(jobs), simSeeds(jobs)
	both := bothKnowledge(lines)
	secs := []*Section{jctSection(jobs, lines, seeds, both)}
	shown := seeds[0]
	jobOrder, _ := groups(jobs.Strings(col.Job))
	if a := in.One("allocations"); a != nil {
		secs = append(secs, simAllocationSection(a, jobs, lines, jobOrder, shown, seeds, both), simAccuracySection(a, jobs, lines, seeds, both))
	}
	if u := in.One("utilisation"); u != nil {
		s, err := simUtilisationSections(u, jobs, lines, shown, seeds, both)
		if err != nil {
			return nil, err
		}
		secs = append(secs, s...)
	}
	return secs, nil
}

// simLine is one policy run with one knowledge: a line of the charts.
type simLine struct{ policy, knowledge string }

func (l simLine) label(both bool) string {
	if both {
		return l.policy + " (" + l.knowledge + ")"
	}
	return l.policy
}

// simColours are the colours of the policies of lines (see policyColours).
func simColours(lines []simLine) map[string]string {
	var names []string
	for _, l := range lines {
		names = append(names, l.policy)
	}
	return policyColours(names)
}

// style draws oracle runs dashed, fitted ones solid (palette.json).
func (l simLine) style() string { return lineType(l.knowledge) }

// simLines lists the (policy, knowledge) pairs of a run table in order of
// first appearance.
func simLines(t *table.Table) []simLine {
	pol, kn := t.Strings(col.Policy), t.Strings(col.Knowledge)
	var out []simLine
	seen := map[simLine]bool{}
	for i := range pol {
		l := simLine{pol[i], kn[i]}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

func bothKnowledge(lines []simLine) bool {
	for _, l := range lines {
		if l.knowledge != lines[0].knowledge {
			return true
		}
	}
	return false
}

// simSeeds are the distinct seeds of a run table, ascending.
func simSeeds(t *table.Table) []int64 {
	seeds := slices.Clone(t.Int64s(col.Seed))
	slices.Sort(seeds)
	return slices.Compact(seeds)
}

// pooled says which seeds a chart pools.
func pooled(seeds []int64, one string) string {
	if len(seeds) == 1 {
		return one + seedList(seeds)
	}
	return "every run of " + seedList(seeds) + " pooled"
}

func seedList(seeds []int64) string {
	var s []string
	for _, v := range seeds {
		s = append(s, strconv.FormatInt(v, 10))
	}
	if len(s) == 1 {
		return "seed " + s[0]
	}
	return "seeds " + strings.Join(s, ", ")
}

// rowsOf groups a run table's rows by line, keeping only the rows of seed
// (all seeds when seed < 0).
func rowsOf(t *table.Table, seed int64) map[simLine][]int {
	pol, kn, sd := t.Strings(col.Policy), t.Strings(col.Knowledge), t.Int64s(col.Seed)
	out := map[simLine][]int{}
	for i := range pol {
		if seed >= 0 && sd[i] != seed {
			continue
		}
		l := simLine{pol[i], kn[i]}
		out[l] = append(out[l], i)
	}
	return out
}

// maxCDFPoints is the most points one CDF line holds; longer ones keep
// evenly spaced ranks (the last among them).
const maxCDFPoints = 1000

func jctSection(jobs *table.Table, lines []simLine, seeds []int64, both bool) *Section {
	rows := rowsOf(jobs, -1)
	status, jct := jobs.Strings(col.Status), jobs.Float64s(col.JCTS)
	restarts := jobs.Int64s(col.Restarts)
	type stats struct {
		n    int
		jcts []float64
		mean float64
	}
	st := map[simLine]*stats{}
	lo, hi := 0.0, 0.0
	for _, l := range lines {
		s := &stats{n: len(rows[l])}
		for _, i := range rows[l] {
			if status[i] == "finished" && finite(jct[i]) {
				s.jcts = append(s.jcts, jct[i])
			}
		}
		sort.Float64s(s.jcts)
		s.mean = mean(s.jcts)
		if len(s.jcts) > 0 {
			if lo == 0 || s.jcts[0] < lo {
				lo = s.jcts[0]
			}
			hi = max(hi, s.jcts[len(s.jcts)-1])
		}
		st[l] = s
	}

	runs := runStats(jobs, rows)
	grid := &Grid{Header: []string{"policy", "knowledge", "runs (seeds)", "jobs", "finished", "mean JCT of the finished (min–max over seeds)", "median JCT", "p95 JCT",
		"makespan (min–max over seeds)", "mean JCT ÷ optimus'", "× shorter than drf: mean JCT (min–max)", "× shorter than drf: makespan (min–max)", "restarts per run"},
		Numeric: []bool{false, false, true, true, true, true, true, true, true, true, true, true, true}}
	for _, l := range lines {
		s := st[l]
		var rs int64
		for _, i := range rows[l] {
			rs += restarts[i]
		}
		r := runs[l]
		ratio := "-"
		if o := st[simLine{"optimus", l.knowledge}]; o != nil && o.mean > 0 && finite(s.mean) {
			ratio = fmt.Sprintf("%.2f", s.mean/o.mean)
		}
		finished := fmt.Sprint(len(s.jcts))
		if w := s.n - len(s.jcts); w > 0 {
			finished += fmt.Sprintf(" (%d not)", w)
		}
		grid.Rows = append(grid.Rows, []string{l.policy, l.knowledge, fmt.Sprint(len(r)), fmt.Sprint(s.n), finished,
			duration(s.mean) + spread(r, func(x seedRun) float64 { return x.meanJCT }, duration), duration(fit.Median(s.jcts)), duration(fit.Quantile(s.jcts, 0.95)),
			makespanText(r), ratio, againstDRF(runs, l, func(x seedRun) float64 { return x.meanJCT }), againstDRF(runs, l, func(x seedRun) float64 { return x.makespan }),
			strconv.FormatFloat(round(float64(rs)/float64(len(r)), 3), 'f', -1, 64)})
	}
	sec := &Section{ID: "jct", Heading: "Job completion times", Grid: grid, Text: []string{
		"Each line: the share of a policy's jobs that finished within a job completion time (JCT: finish minus arrival), " + pooled(seeds, "in the runs of ") + ". " +
			"Further left and higher is better; a line that stays below 1 has jobs that did not finish." +
			map[bool]string{true: " Solid: the scheduler planned with its fits of noisy observations (fitted); dashed: with the true remaining work and speeds (oracle).", false: ""}[both],
		"The table sums up the same jobs: JCT of the finished ones (a job that did not finish has no JCT: the count of those is beside it), the makespan (first arrival to last finish) of each run, mean JCT against the optimus policy's with the same knowledge (above 1: jobs take longer than under optimus), and how many times shorter than drf's (same knowledge, same seed) each policy's mean JCT and makespan are. " +
			"The Optimus paper (EuroSys 2018, section 6) reports 2.39× and 1.63× for Optimus against DRF on its testbed. A spread is the smallest and largest over the seeds.",
	}}
	if h := paperLine(runs, lines); h != "" {
		sec.Text = append(sec.Text, h)
	}
	if hi == 0 {
		sec.Empty = "No job finished in any run: there is no completion time to draw."
		return sec
	}
	logX := lo > 0 && hi/lo > 100
	id := idFor("jct", 1)
	xName := "job completion time, JCT (s)"
	var xAxis charts.GlobalOpts
	if logX {
		xAxis = charts.WithXAxisOpts(opts.XAxis{Type: "log", Name: xName + ", log scale", NameLocation: "middle", NameGap: 28,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}})
	} else {
		xAxis = xValueAxis(xName, 0)
	}
	cols := simColours(lines)
	line := charts.NewLine()
	line.SetGlobalOptions(append(base(id, "Job completion time (CDF)", fmt.Sprintf("%s (%s)", pooled(seeds, ""), sourceName(jobs)), wideW, wideH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		lineLegend(), gridFor("70"), xAxis,
		yValueAxis("share of jobs finished", 0, 1, false),
	)...)
	for _, l := range lines {
		s := st[l]
		if len(s.jcts) == 0 {
			line.AddSeries(l.label(both), []opts.LineData{})
			continue
		}
		line.AddSeries(l.label(both), cdfData(s.jcts, s.n),
			charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: cols[l.policy], Width: 2, Type: l.style()}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[l.policy]}))
	}
	sec.Charts = []*Chart{counted(id, line, &line.BaseConfiguration).bind("tooltip.formatter", "jctTooltip")}
	return sec
}

// cdfData are the steps of the empirical CDF of sorted over n jobs: a first
// point at (shortest, 0), then (x, share of the n jobs with JCT <= x).
func cdfData(sorted []float64, n int) []opts.LineData {
	idx := make([]int, 0, min(len(sorted), maxCDFPoints))
	if len(sorted) <= maxCDFPoints {
		for i := range sorted {
			idx = append(idx, i)
		}
	} else {
		for k := 0; k < maxCDFPoints; k++ {
			idx = append(idx, k*(len(sorted)-1)/(maxCDFPoints-1))
		}
	}
	out := []opts.LineData{{Value: []float64{round(sorted[0], 6), 0}}}
	for _, i := range idx {
		out = append(out, opts.LineData{Value: []float64{round(sorted[i], 6), round(float64(i+1)/float64(n), 5)}})
	}
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// seedRun is what one run (a line at one seed) did.
type seedRun struct {
	seed             int64
	meanJCT          float64 // of its finished jobs
	makespan         float64 // first arrival to last finish
	jobs, unfinished int
}

// runStats sums up every run of every line of rows, by ascending seed.
func runStats(jobs *table.Table, rows map[simLine][]int) map[simLine][]seedRun {
	status, jct, seed := jobs.Strings(col.Status), jobs.Float64s(col.JCTS), jobs.Int64s(col.Seed)
	arr, fin := jobs.Float64s(col.ArrivalS), jobs.Float64s(col.FinishS)
	out := map[simLine][]seedRun{}
	for l, rs := range rows {
		by := map[int64][]int{}
		var seeds []int64
		for _, i := range rs {
			if _, ok := by[seed[i]]; !ok {
				seeds = append(seeds, seed[i])
			}
			by[seed[i]] = append(by[seed[i]], i)
		}
		slices.Sort(seeds)
		for _, sd := range seeds {
			r := seedRun{seed: sd, jobs: len(by[sd])}
			var j []float64
			first, last := math.Inf(1), math.Inf(-1)
			for _, i := range by[sd] {
				first = math.Min(first, arr[i])
				if status[i] == "finished" && finite(jct[i]) {
					j = append(j, jct[i])
					last = math.Max(last, fin[i])
				} else {
					r.unfinished++
				}
			}
			r.meanJCT, r.makespan = mean(j), math.NaN()
			if !math.IsInf(last, -1) {
				r.makespan = last - first
			}
			out[l] = append(out[l], r)
		}
	}
	return out
}

// spread is " (lo–hi)" of f over the runs when there are several.
func spread(runs []seedRun, f func(seedRun) float64, format func(float64) string) string {
	if len(runs) < 2 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		if v := f(r); finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) || format(lo) == format(hi) {
		return ""
	}
	return " (" + format(lo) + "–" + format(hi) + ")"
}

// makespanText is the mean makespan over runs and its spread; "≥" when a
// run left jobs unfinished (its makespan is longer than its last finish).
func makespanText(runs []seedRun) string {
	var ms []float64
	open := false
	for _, r := range runs {
		if finite(r.makespan) {
			ms = append(ms, r.makespan)
		}
		open = open || r.unfinished > 0
	}
	if len(ms) == 0 {
		return "-"
	}
	s := duration(mean(ms)) + spread(runs, func(x seedRun) float64 { return x.makespan }, duration)
	if open {
		s = "≥ " + s
	}
	return s
}

// ratiosToDRF are drf's figure f over line l's, run by run (the same
// seed, the same knowledge): how many times shorter than drf's l's is.
func ratiosToDRF(runs map[simLine][]seedRun, l simLine, f func(seedRun) float64) []float64 {
	d := map[int64]float64{}
	for _, r := range runs[simLine{"drf", l.knowledge}] {
		d[r.seed] = f(r)
	}
	var out []float64
	for _, r := range runs[l] {
		if v, ok := d[r.seed]; ok && finite(v) && finite(f(r)) && f(r) > 0 {
			out = append(out, v/f(r))
		}
	}
	return out
}

func againstDRF(runs map[simLine][]seedRun, l simLine, f func(seedRun) float64) string {
	rs := ratiosToDRF(runs, l, f)
	if len(rs) == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.2f", mean(rs))
	if len(rs) > 1 {
		s += fmt.Sprintf(" (%.2f–%.2f)", slices.Min(rs), slices.Max(rs))
	}
	return s
}

// paperLine sets optimus' ratios to drf beside the paper's, when both ran.
func paperLine(runs map[simLine][]seedRun, lines []simLine) string {
	for _, l := range lines {
		if l.policy != "optimus" {
			continue
		}
		j := ratiosToDRF(runs, l, func(x seedRun) float64 { return x.meanJCT })
		m := ratiosToDRF(runs, l, func(x seedRun) float64 { return x.makespan })
		if len(j) == 0 {
			continue
		}
		return fmt.Sprintf("Here, optimus (%s) against drf: mean JCT %s× shorter, makespan %s× shorter (the paper: 2.39× and 1.63×), over %s.",
			l.knowledge, againstDRF(runs, l, func(x seedRun) float64 { return x.meanJCT }), againstDRF(runs, l, func(x seedRun) float64 { return x.makespan }), plural(max(len(j), len(m)), "seed"))
	}
	return ""
}
