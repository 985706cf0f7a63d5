package chart

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// maxTimePoints is the most points a line over time holds: about one per
// two pixels of a chart's plot, which is what a screen can show.
const maxTimePoints = 300

// stepPoint is one point of a step line over time: the time it is drawn
// at and the index of the state (round) that holds from then.
type stepPoint struct {
	t float64
	x int
}

// thinSteps picks the points of a step line (drawn "end": a state holds
// until the next point) over times, ascending: the first, every one whose
// state differs from the one before (same(x-1, x) false), and the last, so
// that nothing is lost where nothing changed. Beyond max points it samples
// the state on max evenly spaced times from the first to the last (each
// the state that holds then), which may skip a state shorter than a
// sample's width; thinned says so.
func thinSteps(times []float64, same func(a, b int) bool, max int) (pts []stepPoint, thinned bool) {
	if len(times) == 0 {
		return nil, false
	}
	last := len(times) - 1
	for x := range times {
		if x == 0 || x == last || !same(x-1, x) {
			pts = append(pts, stepPoint{times[x], x})
		}
	}
	if len(pts) <= max || max < 2 {
		return pts, false
	}
	t0, t1 := times[0], times[last]
	out := make([]stepPoint, 0, max)
	k := 0 // the last change at or before the sample time
	for i := 0; i < max; i++ {
		t := t0 + (t1-t0)*float64(i)/float64(max-1)
		if i == max-1 {
			t = t1
		}
		for k+1 < len(pts) && pts[k+1].t <= t {
			k++
		}
		if n := len(out); n > 0 && out[n-1].x == pts[k].x {
			continue // the state has not changed since the last sample
		}
		out = append(out, stepPoint{t, pts[k].x})
	}
	if out[len(out)-1].t != t1 {
		out = append(out, stepPoint{t1, last})
	}
	return out, true
}

// setPoints replaces the data of the series last added to bc with plain
// arrays ([x, y, ...] rather than {"value": [x, y, ...]}), which echarts
// reads the same and which take a third less of the page.
func setPoints(bc *charts.BaseConfiguration, pts [][]any) {
	bc.MultiSeries[len(bc.MultiSeries)-1].Data = pts
}

// timeZoom lets a chart over time zoom: the mouse wheel or a drag on the
// plot, or the toolbox's box zoom, which also resets it.
func timeZoom() []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: []int{0}}),
	}
}
