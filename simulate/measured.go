package simulate

import (
	"fmt"
	"math"
	"slices"

	"github.com/optimus-sched/optimus/fit"
)

// KindMeasured profiles take a model's true speed from measurements: the
// speed at (p, w) is the measured one, or an interpolation of the nearest
// measured configurations, so that the fitter is tested against real
// speeds rather than against its own model. Beyond the measured range p
// and w are clamped to it (more tasks than were ever measured train at
// the speed of the largest measured).
const KindMeasured = "measured"

// MeasuredSpeed is a speed function given by measurements, tabulated on
// the grid 1..MaxPS x 1..MaxWorkers.
type MeasuredSpeed struct {
	MaxPS, MaxWorkers int
	grid              []float64 // [(p-1)*MaxWorkers + (w-1)]
}

// interpolationNeighbours is how many nearest measured configurations an
// unmeasured one is interpolated from (inverse squared distance weights).
const interpolationNeighbours = 4

// NewMeasuredSpeed tabulates samples (failed runs, speed 0 or NaN,
// excluded; repeats of a configuration averaged).
func NewMeasuredSpeed(samples []fit.SpeedSample) (*MeasuredSpeed, error) {
	type point struct {
		p, w int
		s    float64
		n    int
	}
	byConfig := map[fit.Config]int{}
	var pts []point
	for _, smp := range samples {
		if !(smp.Speed > 0) || math.IsInf(smp.Speed, 0) || smp.PS < 1 || smp.Workers < 1 {
			continue
		}
		c := fit.Config{PS: smp.PS, Workers: smp.Workers}
		if k, ok := byConfig[c]; ok {
			pts[k].n++
			pts[k].s += (smp.Speed - pts[k].s) / float64(pts[k].n)
			continue
		}
		byConfig[c] = len(pts)
		pts = append(pts, point{smp.PS, smp.Workers, smp.Speed, 1})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("no successful speed measurement")
	}
	m := &MeasuredSpeed{}
	for _, pt := range pts {
		m.MaxPS, m.MaxWorkers = max(m.MaxPS, pt.p), max(m.MaxWorkers, pt.w)
	}
	if m.MaxPS*m.MaxWorkers > 1<<20 {
		return nil, fmt.Errorf("measurements up to %d PS and %d workers: too large a grid", m.MaxPS, m.MaxWorkers)
	}
	m.grid = make([]float64, m.MaxPS*m.MaxWorkers)
	type near struct {
		d2 float64
		k  int
	}
	nn := make([]near, len(pts))
	for p := 1; p <= m.MaxPS; p++ {
		for w := 1; w <= m.MaxWorkers; w++ {
			if k, ok := byConfig[fit.Config{PS: p, Workers: w}]; ok {
				m.grid[(p-1)*m.MaxWorkers+w-1] = pts[k].s
				continue
			}
			for k, pt := range pts {
				dp, dw := float64(pt.p-p), float64(pt.w-w)
				nn[k] = near{dp*dp + dw*dw, k}
			}
			slices.SortFunc(nn, func(a, b near) int {
				if a.d2 != b.d2 {
					if a.d2 < b.d2 {
						return -1
					}
					return 1
				}
				return a.k - b.k
			})
			var sum, wsum float64
			for _, x := range nn[:min(interpolationNeighbours, len(nn))] {
				wt := 1 / x.d2
				sum += wt * pts[x.k].s
				wsum += wt
			}
			m.grid[(p-1)*m.MaxWorkers+w-1] = sum / wsum
		}
	}
	return m, nil
}

// Speed is the measured (or interpolated) speed at (p, w); 0 when p or w
// is below 1.
func (m *MeasuredSpeed) Speed(p, w int) float64 {
	if p < 1 || w < 1 {
		return 0
	}
	p, w = min(p, m.MaxPS), min(w, m.MaxWorkers)
	return m.grid[(p-1)*m.MaxWorkers+w-1]
}
