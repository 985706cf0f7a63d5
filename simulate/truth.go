package simulate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/pipeline"
)

// truth is what the simulator knows of a job and the scheduler does not.
type truth struct {
	loss  lossCurve
	speed fit.SpeedModel // the oracle's speed model
	// speedAt is the true speed: speed's, or the profile's measurements
	// scaled by the job's SpeedScale.
	speedAt func(p, w int) float64
	// speedOn, for a KindPlaced profile, is the true speed of workers
	// placed perNode; nil otherwise.
	speedOn func(perNode []int) float64
	curve   fit.Curve // in steps
	total   float64   // steps to train
	ideal   float64   // seconds at the fastest allocation, no restarts
	// never, when not empty, says why the job can never run on the cluster.
	never string
}

// TrueSpeed is a job's true speed model: its profile's, at the job's own
// global batch, scaled by the job's SpeedScale.
func TrueSpeed(j *Job, p *Profile) fit.SpeedModel {
	s := p.Speed
	s.Mode, s.GlobalBatch = j.Mode, float64(j.GlobalBatch)
	for k := range s.Theta {
		s.Theta[k] /= j.SpeedScale
	}
	return s
}

// lossCurve is a job's true loss in steps: a 1/k curve, with the excess
// over b2 cut by factor at each drop (in steps).
type lossCurve struct {
	curve  fit.Curve
	drops  []float64
	factor float64
}

func (l lossCurve) At(step float64) float64 {
	excess := l.curve.At(step) - l.curve.B2
	for _, d := range l.drops {
		if step >= d {
			excess *= l.factor
		}
	}
	return l.curve.B2 + excess
}

// trueLoss is a job's true loss curve in steps: the profile's curve in
// epochs, stretched by ConvergenceScale.
func trueLoss(j *Job, p *Profile) lossCurve {
	steps := float64(j.EpochSteps) * j.ConvergenceScale
	l := lossCurve{curve: fit.Curve{B0: p.Loss.B0 / steps, B1: p.Loss.B1, B2: p.Loss.B2}, factor: p.DropFactor}
	for _, d := range p.Drops {
		l.drops = append(l.drops, d*steps)
	}
	return l
}

// totalSteps is what a job trains: its budget, or until its true curve
// meets the rule (after its last learning-rate drop, if any).
func totalSteps(j *Job, l lossCurve, rule fit.Rule) float64 {
	epochSteps := float64(j.EpochSteps)
	if j.HasBudget {
		return math.Ceil(j.EpochBudget * epochSteps)
	}
	if len(l.drops) == 0 {
		e, _ := rule.ConvergenceEpoch(l.curve, epochSteps, l.curve.At(0))
		return float64(max(e, 1)) * epochSteps
	}
	// Scan whole epochs from the last drop: the first at which the loss
	// fell by no more than the threshold (relative to the loss at the
	// start) over the window, at most the cap after the last drop.
	last := int(math.Ceil(slices.Max(l.drops) / epochSteps))
	scale := l.At(0)
	for e := last + rule.Window; e <= last+rule.Cap; e++ {
		if (l.At(float64(e-rule.Window)*epochSteps)-l.At(float64(e)*epochSteps))/scale <= rule.Threshold {
			return float64(e) * epochSteps
		}
	}
	return float64(last+rule.Cap) * epochSteps
}

// neverFits says why a job can never run on the cluster: one of its tasks
// fits no node, or one PS and one worker exceed the cluster's total.
func neverFits(j *Job, c *pipeline.Cluster) string {
	for _, role := range []struct {
		name   string
		demand []float64
	}{{"worker", j.Worker}, {"ps", j.PS}} {
		if role.name == "ps" && j.Mode == fit.AllReduce {
			continue // no parameter servers
		}
		if !slices.ContainsFunc(role.demand, func(d float64) bool { return d > 0 }) {
			return fmt.Sprintf("one %s demands nothing of any resource: give its demands", role.name)
		}
		fits := false
		for _, node := range c.Capacity {
			ok := true
			for r, d := range role.demand {
				if d > node[r]+eps {
					ok = false
					break
				}
			}
			if ok {
				fits = true
				break
			}
		}
		if !fits {
			var need []string
			for r, d := range role.demand {
				if d > 0 {
					need = append(need, fmt.Sprintf("%g %s", d, c.Resources[r]))
				}
			}
			return fmt.Sprintf("one %s needs %s: no node of the cluster has that much", role.name, strings.Join(need, ", "))
		}
	}
	return ""
}

// trueSpeedAt is a job's true speed function.
func trueSpeedAt(j *Job, p *Profile, model fit.SpeedModel) func(p, w int) float64 {
	if p.Kind == KindPlaced {
		st, batch := p.Placed.StepTime, float64(j.GlobalBatch)
		per := model.WorkersPerNode
		return func(_, w int) float64 { return 1 / st(layout.SpreadEvenly(w, (w+max(per, 1)-1)/max(per, 1)), batch) }
	}
	if p.Kind == KindMeasured && p.Measured != nil {
		m, scale := p.Measured, j.SpeedScale
		return func(ps, w int) float64 { return scale * m.Speed(ps, w) }
	}
	return model.Speed
}

// idealMeasured is idealTime for a measured speed: the largest speed on
// the measured grid (beyond it the speed is clamped) among the
// configurations within the cluster's totals and the job's limits.
func idealMeasured(j *Job, m *MeasuredSpeed, scale, total float64, c *pipeline.Cluster) float64 {
	best := 0.0
	for p := 1; p <= m.MaxPS; p++ {
		for w := 1; w <= m.MaxWorkers; w++ {
			if j.MaxPS > 0 && p > j.MaxPS || j.MaxWorkers > 0 && w > j.MaxWorkers || !fitsTotals(j, p, w, c) {
				continue
			}
			best = math.Max(best, scale*m.Speed(p, w))
		}
	}
	if best <= 0 {
		return math.Inf(1)
	}
	return total / best
}

// fitsTotals reports whether p PS and w workers of a job fit the cluster's
// total capacity of every resource.
func fitsTotals(j *Job, p, w int, c *pipeline.Cluster) bool {
	for r := range c.Resources {
		var capR float64
		for _, node := range c.Capacity {
			capR += node[r]
		}
		if float64(p)*j.PS[r]+float64(w)*j.Worker[r] > capR+eps {
			return false
		}
	}
	return true
}

// idealTime is a job's total steps at the fastest allocation whose tasks fit
// the cluster's totals (within its limits): a lower bound on its time, since
// no allocation, placement or restart lets it train faster. For a fixed
// number of workers the speed is unimodal in p (its inverse is convex in p),
// so the best p is the floor or the ceiling of the continuous optimum,
// clamped to what fits.
func idealTime(j *Job, s fit.SpeedModel, total float64, c *pipeline.Cluster) float64 {
	capTotal := make([]float64, len(c.Resources))
	for _, node := range c.Capacity {
		for r, x := range node {
			capTotal[r] += x
		}
	}
	maxTasks := func(fixed []float64, nFixed int, per []float64) int {
		n := math.MaxInt32
		for r := range capTotal {
			room := capTotal[r] - float64(nFixed)*fixed[r]
			if per[r] > 0 {
				n = min(n, int(math.Floor((room+eps)/per[r])))
			} else if room < -eps {
				return 0
			}
		}
		return n
	}
	wMax := maxTasks(j.PS, 1, j.Worker)
	if j.MaxWorkers > 0 {
		wMax = min(wMax, j.MaxWorkers)
	}
	wMax = min(wMax, 4096)
	best := 0.0
	for w := 1; w <= wMax; w++ {
		pMax := maxTasks(j.Worker, w, j.PS)
		if j.MaxPS > 0 {
			pMax = min(pMax, j.MaxPS)
		}
		pMax = min(pMax, 4096)
		if pMax < 1 {
			break
		}
		// 1/f (sync) or w/f (async) = a·w/p + b·p + const in p: best p = sqrt(a·w/b).
		var a, b float64
		if s.Mode == fit.Async {
			a, b = s.Theta[1], s.Theta[3]
		} else {
			a, b = s.Theta[2], s.Theta[4]
		}
		pc := float64(pMax)
		if b > 0 {
			pc = math.Sqrt(a * float64(w) / b)
		}
		for _, p := range []int{int(math.Floor(pc)), int(math.Ceil(pc)), 1, pMax} {
			p = max(1, min(p, pMax))
			best = math.Max(best, s.Speed(p, w))
		}
	}
	if best <= 0 {
		return math.Inf(1)
	}
	return total / best
}

const eps = 1e-9

// idealPlaced is idealTime for a placed profile: the fastest speed over
// the worker counts within the cluster's totals and the job's limits,
// each packed on the fewest nodes or spread evenly over more.
func idealPlaced(j *Job, ps *PlacedSpeed, total float64, c *pipeline.Cluster) float64 {
	return idealFrom(bestPlaced(j, ps, c), total)
}

// idealFrom is total steps at the best speed (infinite without one).
func idealFrom(best, total float64) float64 {
	if best <= 0 {
		return math.Inf(1)
	}
	return total / best
}

// bestPlaced is idealPlaced's fastest speed. It depends on the job only
// through its profile, batch, worker limit and worker demand (placedKey).
func bestPlaced(j *Job, ps *PlacedSpeed, c *pipeline.Cluster) float64 {
	best := 0.0
	per := workersPerNode(c, j)
	buf := make([]int, len(c.Nodes)) // one placement at a time: StepTime only reads it
	for w := 1; fitsTotals(j, 0, w, c) && (j.MaxWorkers == 0 || w <= j.MaxWorkers); w++ {
		for n := (w + per - 1) / per; n <= min(w, len(c.Nodes)); n++ {
			best = math.Max(best, 1/ps.StepTime(spreadEvenlyInto(buf, w, n), float64(j.GlobalBatch)))
		}
	}
	return best
}

// spreadEvenlyInto is layout.SpreadEvenly(w, n) written into buf (which
// must hold min(n, w) nodes).
func spreadEvenlyInto(buf []int, w, n int) []int {
	n = max(1, min(n, w))
	out := buf[:n]
	for i := range out {
		out[i] = w / n
		if i < w%n {
			out[i]++
		}
	}
	return out
}

// placedKey is what bestPlaced reads of a job (a worker demand of up to
// four resources; jobs of more are not cached).
type placedKey struct {
	model      string
	batch      int64
	maxWorkers int
	resources  int
	worker     [4]float64
}

// idealPlacedCached is idealPlaced, computing bestPlaced once per
// placedKey: a workload's jobs share a few profiles and batches, and each
// search asks for a few hundred step times.
func (s *sim) idealPlacedCached(j *Job, ps *PlacedSpeed, total float64) float64 {
	if len(j.Worker) > len(placedKey{}.worker) {
		return idealPlaced(j, ps, total, s.in.Cluster)
	}
	k := placedKey{model: j.Model, batch: j.GlobalBatch, maxWorkers: j.MaxWorkers, resources: len(j.Worker)}
	copy(k.worker[:], j.Worker)
	best, ok := s.bestPlaced[k]
	if !ok {
		best = bestPlaced(j, ps, s.in.Cluster)
		if s.bestPlaced == nil {
			s.bestPlaced = map[placedKey]float64{}
		}
		s.bestPlaced[k] = best
	}
	return idealFrom(best, total)
}

// workersPerNode is how many of a job's workers the largest node holds.
func workersPerNode(c *pipeline.Cluster, j *Job) int {
	return pipeline.WorkersPerNode(c, j.Worker)
}
