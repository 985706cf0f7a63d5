package chart

import (
	"sort"

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

// slider is an echarts dataZoom slider with the position fields that
// go-echarts' opts.DataZoom lacks (it is written as a raw option).
type slider struct {
	opts.DataZoom
	// The window's first and last category (by index): a window in
	// percent rounds outwards, 0-2.97% of 1,009 jobs showed 31 of them.
	StartValue int    `json:"startValue"`
	EndValue   int    `json:"endValue"`
	Right      string `json:"right,omitempty"`
	Width      string `json:"width,omitempty"`
	Height     string `json:"height,omitempty"`
	ShowDetail *bool  `json:"showDetail,omitempty"`
}

// Where the sliders sit. By default echarts draws a vertical slider 30 px
// wide, 7 px from the canvas' right edge, with a 7 px drag bar beyond it
// and handles 1.5 times its width centred on it: the handles reached a
// pixel past the edge, and their labels (a job's name, centred on the
// slider while it is dragged) further. The jobs' slider is 20 px wide,
// 14 px from the edge (everything it draws ends 6 px inside), and shows
// no labels: the job axis beside it names the jobs in view as it moves.
// The nodes' slider is 20 px tall rather than 30, at the same top, so that
// its handles end 12 px above the bottom edge instead of on it.
// interop/browser/overlap.mjs checks that both stay inside.
const (
	jobSliderRight   = "14"
	jobSliderWidth   = "20"
	nodeSliderHeight = "20"
)

// zoom is the grid's two sliders: the jobs' at the right edge (the
// colour scale moves left of it), the nodes' at the bottom, each opening
// on the window (echarts' dataZoom, by category index; the jobs' axis is
// inverted, so index 0, the first job, is at the top). The nodes' slider
// labels its ends with node names, shortened by page.js' sliderLabel so
// that they stay inside the canvas.
func (w *planWin) zoom() []slider {
	return []slider{
		{DataZoom: opts.DataZoom{Type: "slider", YAxisIndex: []int{0}, Orient: "vertical"}, StartValue: 0, EndValue: w.jobs - 1,
			Right: jobSliderRight, Width: jobSliderWidth, ShowDetail: opts.Bool(false)},
		{DataZoom: opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}, StartValue: 0, EndValue: w.nodes - 1, Height: nodeSliderHeight},
	}
}
