package chart

import (
	"fmt"
	"slices"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// Views of many jobs or nodes: above a threshold a chart of one bar per
// job or node has bars thinner than a pixel and labels on top of each
// other, so the pages draw the largest and a histogram of all.

// maxJobBars is the most jobs an allocation chart draws one bar each.
const maxJobBars = 40

// maxNodeBars is the most nodes the node fill draws one group of bars each;
// beyond, a histogram of node fill.
const maxNodeBars = 60

// topJobs are the n of jobs that get the most tasks (PS + workers) under
// any of allocs, most first (ties: in jobs' order).
func topJobs(allocs []*table.Table, jobs []string, n int) []string {
	most := map[string]int64{}
	for _, a := range allocs {
		ps, ws := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers)
		for i, j := range a.Strings(col.Job) {
			most[j] = max(most[j], ps[i]+ws[i])
		}
	}
	out := slices.Clone(jobs)
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case most[a] > most[b]:
			return -1
		case most[a] < most[b]:
			return 1
		}
		return 0
	})
	return out[:n]
}

// buckets are the categories of a histogram of whole numbers 0..hi: one
// per value up to 30 values, else 20 ranges of equal width.
func buckets(hi int64) (labels []string, of func(v int64) int) {
	if hi < 30 {
		for v := int64(0); v <= hi; v++ {
			labels = append(labels, fmt.Sprint(v))
		}
		return labels, func(v int64) int { return int(v) }
	}
	width := (hi + 20) / 20
	for lo := int64(0); lo <= hi; lo += width {
		labels = append(labels, fmt.Sprintf("%d–%d", lo, lo+width-1))
	}
	return labels, func(v int64) int { return int(v / width) }
}

// tasksHistogram counts the jobs of each allocation by the tasks they get,
// one series per policy.
func tasksHistogram(allocs []*table.Table, names []string) *Chart {
	hi := int64(0)
	for _, a := range allocs {
		ps, ws := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers)
		for i := range ps {
			hi = max(hi, ps[i]+ws[i])
		}
	}
	labels, of := buckets(hi)
	cols := policyColours(names)
	id := idFor("taskshist", 1)
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(base(id, "Jobs by the tasks they get", "every job of every allocation, by PS + workers decided (0: waits)", wideW, wideH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		legendBottom(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "tasks (PS + workers) per job", NameLocation: "middle", NameGap: 30}),
		yValueAxis("jobs", 0, nil, false),
	)...)
	bar.SetXAxis(labels)
	for n, a := range allocs {
		count := make([]int, len(labels))
		ps, ws := a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers)
		for i := range ps {
			count[of(ps[i]+ws[i])]++
		}
		d := make([]opts.BarData, len(count))
		for k, c := range count {
			d[k] = opts.BarData{Value: c}
		}
		bar.AddSeries(names[n], d, charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[names[n]]}))
	}
	return counted(id, bar, &bar.BaseConfiguration).bind("tooltip.valueFormatter", "jobs")
}

// nodeFillHistogram counts the nodes by the share of each resource the
// plan uses, in tenths, one series per resource. used[r][x] is the share
// (0 to 100) of resource r of node x.
func nodeFillHistogram(id string, res []string, used [][]float64, source string) *Chart {
	labels := []string{"0%"}
	for k := 0; k < 10; k++ {
		labels = append(labels, fmt.Sprintf("%d–%d%%", 10*k, 10*(k+1)))
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(base(id, "How full the nodes are", fmt.Sprintf("nodes by the share of each resource the plan uses (%d nodes, %s)", len(used[0]), source), wideW, wideH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		legendBottom(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "share of the node's capacity used (0%: none; a range holds its upper end)", NameLocation: "middle", NameGap: 30}),
		yValueAxis("nodes", 0, nil, false),
	)...)
	bar.SetXAxis(labels)
	for k, r := range res {
		count := make([]int, len(labels))
		for _, v := range used[k] {
			b := 0
			if v > 0 {
				b = 1 + min(9, int((v-1e-9)/10))
			}
			count[b]++
		}
		d := make([]opts.BarData, len(count))
		for i, c := range count {
			d[i] = opts.BarData{Value: c}
		}
		bar.AddSeries(r, d, charts.WithItemStyleOpts(opts.ItemStyle{Color: colour(k)}))
	}
	return counted(id, bar, &bar.BaseConfiguration)
}
