package chart

import (
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// planWindowJobs is how many jobs (rows) of a large plan's grid show at a
// time: 28 px a row keeps the chart 1,010 px tall whatever the plan's size.
const planWindowJobs = 30

// planWindowNodes is the most nodes (columns) shown at first: the grid's
// plot is about 1,000 px wide in a 1400 px window and 500 px in an 800 px
// one, so a cell stays at least 3 px wide.
const planWindowNodes = 150

// planWin is the window a large plan's grid opens on: its first
// planWindowJobs jobs and the nodes they use.
type planWin struct {
	jobs  int   // rows shown at first
	order []int // the used nodes' indexes, by the first job on each, then node order
	nodes int   // columns shown at first
	total int   // jobs
}

// planWindow orders the nodes that hold a task (used: node, job index
// pairs) by the first job on each, so that a window over the first jobs
// opens on the nodes they use, and sizes that window.
func planWindow(jobs, nodes int, used [][2]int) *planWin {
	first := make([]int, nodes)
	for x := range first {
		first[x] = -1
	}
	for _, k := range used {
		if first[k[0]] < 0 || k[1] < first[k[0]] {
			first[k[0]] = k[1]
		}
	}
	w := &planWin{jobs: min(planWindowJobs, jobs), total: jobs}
	for x, y := range first {
		if y >= 0 {
			w.order = append(w.order, x)
		}
	}
	sort.SliceStable(w.order, func(a, b int) bool { return first[w.order[a]] < first[w.order[b]] })
	for _, x := range w.order {
		if first[x] < w.jobs {
			w.nodes++
		}
	}
	w.nodes = max(1, min(w.nodes, planWindowNodes))
	return w
}

// zoom is the grid's two sliders: the jobs' at the right edge (the
// colour scale moves left of it), the nodes' at the bottom, each opening on the window (echarts' dataZoom, in percent of the
// axis; the jobs' axis is inverted, so 0% is the first job, at the top).
func (w *planWin) zoom() []charts.GlobalOpts {
	pct := func(n, of int) float32 { return float32(100 * float64(n) / float64(max(of, 1))) }
	return []charts.GlobalOpts{
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", YAxisIndex: []int{0}, Orient: "vertical", Start: 0, End: pct(w.jobs, w.total)}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}, Start: 0, End: pct(w.nodes, len(w.order))}),
	}
}
