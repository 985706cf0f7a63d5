package fit

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Training modes: Sync and Async are parameter-server jobs, AllReduce a
// data-parallel job whose workers (one per GPU) all-reduce their gradients
// and that has no parameter servers.
const (
	Sync      = "sync"
	Async     = "async"
	AllReduce = "allreduce"
)

// Modes lists every training mode.
var Modes = []string{Sync, Async, AllReduce}

// SpeedModel is the resource-speed model of Optimus (section 3.2): the
// training speed, in steps per second, of a job with p parameter servers and
// w workers.
//
// Asynchronous training, where each worker steps on its own:
//
//	f(p, w) = w / (θ0 + θ1·w/p + θ2·w + θ3·p)
//
// Synchronous training with global batch M split over the workers:
//
//	f(p, w) = 1 / (θ0·M/w + θ1 + θ2·w/p + θ3·w + θ4·p)
//
// θ0·M/w is the compute time of a worker's share of the batch, θ1 a constant
// overhead per step, θ2·w/p the time to push gradients to and pull
// parameters from p servers, and θ3·w, θ4·p per-task overheads. All θ >= 0.
// Both forms are linear in θ after inversion (w/f and 1/f), which is how
// FitSpeed fits them.
//
// All-reduce training (AllReduce: w workers, one per GPU, spanning n nodes,
// no parameter servers; p is 0) with a per-GPU batch m = M/w:
//
//	f(w, n) = 1 / (θ0·m + θ1 + θ2·[w>1] + θ3·[n>1] + θ4·[n>1]·(w-2))
//
// This is Pollux's throughput model (Qiao et al., OSDI'21, section 3.2)
// with its overlap exponent γ fixed at 1 (compute and synchronisation
// add up) so that it stays linear in θ: T_grad = θ0·m + θ1 is the compute
// time of a step, and the synchronisation time is 0 on one GPU, θ2 within
// one node and θ2 + θ3 + θ4·(w-2) across nodes (Pollux's α_r and α_n,
// β_n). Pollux's β_r (growth with w within one node, at most 4-8 GPUs)
// is left out to keep five coefficients. Every term is >= 0 and the
// network terms only switch on with n > 1, so a job on fewer nodes is
// never predicted slower than the same GPUs spread wider.
type SpeedModel struct {
	Mode        string
	GlobalBatch float64 // M, for Sync and AllReduce
	Theta       [5]float64
	// WorkersPerNode, for AllReduce, is how many workers one node holds:
	// Speed(p, w) assumes the fewest nodes that hold w workers,
	// ⌈w/WorkersPerNode⌉, as place packs them. 0 assumes one node.
	// It is the cluster's, not the job's: solve sets it from the cluster
	// (pipeline.SolveProblem).
	WorkersPerNode int
}

// NumTheta is the number of coefficients of a mode's model.
func NumTheta(mode string) int {
	if mode == Async {
		return 4
	}
	return 5
}

// row writes the design row x(p, w) with x·θ = 1/f (sync) or w/f (async).
// For AllReduce p is ignored and the nodes are one.
func row(mode string, m, p, w float64, x []float64) {
	rowAt(mode, m, p, w, 1, x)
}

// rowAt is row for a job spanning n nodes with a per-GPU batch of m/w.
func rowAt(mode string, m, p, w, n float64, x []float64) {
	switch mode {
	case Async:
		x[0], x[1], x[2], x[3] = 1, w/p, w, p
	case AllReduce:
		x[0], x[1], x[2], x[3], x[4] = m/w, 1, 0, 0, 0
		if w > 1 {
			x[2] = 1
		}
		if n > 1 {
			x[3], x[4] = 1, w-2
		}
	default:
		x[0], x[1], x[2], x[3], x[4] = m/w, 1, w/p, w, p
	}
}

// Nodes is how many nodes Speed assumes w workers span: for AllReduce the
// fewest that hold them, ⌈w/WorkersPerNode⌉ (1 when WorkersPerNode is 0);
// 0 for parameter-server modes, whose model does not see nodes.
func (s SpeedModel) Nodes(w int) int {
	if s.Mode != AllReduce || w < 1 {
		return 0
	}
	if s.WorkersPerNode <= 0 {
		return 1
	}
	return (w + s.WorkersPerNode - 1) / s.WorkersPerNode
}

// Speed is f(p, w) in steps per second; 0 when p or w is below 1 (for
// AllReduce, when w is below 1: p must be 0). An AllReduce job is assumed
// on the fewest nodes that hold w workers (see Nodes).
func (s SpeedModel) Speed(p, w int) float64 {
	if s.Mode == AllReduce {
		if p != 0 || w < 1 {
			return 0
		}
		return s.SpeedOn(w, s.Nodes(w), s.GlobalBatch/float64(w))
	}
	if p < 1 || w < 1 {
		return 0
	}
	var x [5]float64
	row(s.Mode, s.GlobalBatch, float64(p), float64(w), x[:])
	return s.eval(x, w)
}

// SpeedOn is an AllReduce job's f(w, n) in steps per second with w
// workers on n nodes at a per-GPU batch of localBatch examples; 0 when w
// or n is below 1 or n exceeds w.
func (s SpeedModel) SpeedOn(w, n int, localBatch float64) float64 {
	if w < 1 || n < 1 || n > w {
		return 0
	}
	var x [5]float64
	rowAt(AllReduce, localBatch*float64(w), 0, float64(w), float64(n), x[:])
	return s.eval(x, w)
}

func (s SpeedModel) eval(x [5]float64, w int) float64 {
	d := 0.0
	for i := 0; i < NumTheta(s.Mode); i++ {
		d += x[i] * s.Theta[i]
	}
	if d <= 0 {
		return math.Inf(1)
	}
	if s.Mode == Async {
		return float64(w) / d
	}
	return 1 / d
}

// SpeedSample is one measured speed.
type SpeedSample struct {
	PS, Workers int
	Speed       float64 // steps/s; 0 or NaN marks a failed run
	// Nodes and LocalBatch, for AllReduce: the nodes the workers spanned
	// (0: one node) and the per-GPU batch of the measurement (0: the job's
	// M/w).
	Nodes      int
	LocalBatch float64
}

// SpeedFit is a fitted speed model with its accuracy on the samples.
type SpeedFit struct {
	Model        SpeedModel
	Used, Failed int
	// Relative errors |f(p,w) - measured| / measured over the used samples.
	MedianRelErr, MaxRelErr float64
}

// Failed reports whether a sample is a failed run rather than a measurement.
func (s SpeedSample) failed() bool {
	return !(s.Speed > 0) || math.IsInf(s.Speed, 0)
}

// FitSpeed fits a speed model of the given mode (and global batch M, for
// sync) to samples by non-negative least squares on the inverted model
// (1/f for sync, w/f for async). Each equation is divided by its measured
// value, so the fit minimises relative rather than absolute error and fast
// and slow configurations count alike (as in the reference figures of the
// measured data's README). Samples whose speed is 0, negative or
// not finite are failed runs: excluded and counted.
//
// With fewer usable samples than coefficients the fit is underdetermined
// and an error is returned; with samples that cannot separate some terms
// (all at p == w, say) NNLS still returns a non-negative solution, in which
// the inseparable terms share their weight arbitrarily.
func FitSpeed(mode string, globalBatch float64, samples []SpeedSample) (SpeedFit, error) {
	if !slices.Contains(Modes, mode) {
		return SpeedFit{}, fmt.Errorf("fit: unknown mode %q", mode)
	}
	n := NumTheta(mode)
	fit := SpeedFit{Model: SpeedModel{Mode: mode, GlobalBatch: globalBatch}}
	var used []SpeedSample
	for _, s := range samples {
		if s.failed() || !s.valid(mode) {
			fit.Failed++
			continue
		}
		used = append(used, s)
	}
	fit.Used = len(used)
	if len(used) < n {
		return fit, fmt.Errorf("fit: %d usable speed samples, need at least %d for the %s model", len(used), n, mode)
	}
	x := make([][]float64, len(used))
	y := make([]float64, len(used))
	for i, s := range used {
		w := float64(s.Workers)
		y[i] = 1 / s.Speed
		if mode == Async {
			y[i] = w / s.Speed
		}
		x[i] = make([]float64, 5)
		sampleRow(mode, globalBatch, s, x[i])
		x[i] = x[i][:n]
	}
	// Each equation is divided by its measured value, so that residuals
	// are relative errors of 1/f (hence, to first order, of f). Tried on
	// the DL2 measurements, this generalises from 10 samples better than
	// reweighting towards the relative error of f itself.
	weights := make([]float64, len(y))
	for i := range weights {
		weights[i] = 1 / y[i]
	}
	theta, err := weightedNNLS(x, y, weights)
	if err != nil {
		return fit, err
	}
	for j := 0; j < n; j++ {
		fit.Model.Theta[j] = theta[j]
	}
	errs := make([]float64, len(used))
	for i, s := range used {
		errs[i] = math.Abs(fit.Model.SampleSpeed(s)-s.Speed) / s.Speed
	}
	fit.MedianRelErr, fit.MaxRelErr = Median(errs), slices.Max(errs)
	return fit, nil
}

// valid reports whether a sample's configuration belongs to the mode:
// p, w >= 1 for parameter-server modes; p == 0, w >= 1 and 0 <= nodes <= w
// for AllReduce.
func (s SpeedSample) valid(mode string) bool {
	if mode == AllReduce {
		return s.PS == 0 && s.Workers >= 1 && s.Nodes >= 0 && s.Nodes <= s.Workers && s.LocalBatch >= 0
	}
	return s.PS >= 1 && s.Workers >= 1
}

// sampleRow writes the design row of a sample.
func sampleRow(mode string, globalBatch float64, s SpeedSample, x []float64) {
	p, w := float64(s.PS), float64(s.Workers)
	if mode != AllReduce {
		row(mode, globalBatch, p, w, x)
		return
	}
	m := globalBatch
	if s.LocalBatch > 0 {
		m = s.LocalBatch * w
	}
	n := max(s.Nodes, 1)
	rowAt(mode, m, p, w, float64(n), x)
}

// SampleSpeed is the model's speed at a sample's configuration: for
// AllReduce on the sample's nodes and per-GPU batch (defaulting as
// SpeedSample says), else f(p, w).
func (s SpeedModel) SampleSpeed(x SpeedSample) float64 {
	if s.Mode != AllReduce {
		return s.Speed(x.PS, x.Workers)
	}
	m := s.GlobalBatch / float64(max(x.Workers, 1))
	if x.LocalBatch > 0 {
		m = x.LocalBatch
	}
	return s.SpeedOn(x.Workers, max(x.Nodes, 1), m)
}

// weightedNNLS solves min Σ (weights_i (x_i·θ - y_i))², θ >= 0, with the
// columns scaled to unit norm so that NNLS's tolerances treat every term
// alike whatever its units (M/w can be 1000 times w/p).
func weightedNNLS(x [][]float64, y, weights []float64) ([]float64, error) {
	m, n := len(x), len(x[0])
	a := mat.NewDense(m, n, nil)
	b := mat.NewVecDense(m, nil)
	for i := range x {
		for j := 0; j < n; j++ {
			a.Set(i, j, x[i][j]*weights[i])
		}
		b.SetVec(i, y[i]*weights[i])
	}
	scale := make([]float64, n)
	for j := 0; j < n; j++ {
		scale[j] = mat.Norm(a.ColView(j), 2)
		if scale[j] == 0 {
			scale[j] = 1
		}
		for i := 0; i < m; i++ {
			a.Set(i, j, a.At(i, j)/scale[j])
		}
	}
	t, _, err := NNLS(a, b)
	if err != nil {
		return nil, err
	}
	theta := make([]float64, n)
	for j := range theta {
		theta[j] = t.AtVec(j) / scale[j]
	}
	return theta, nil
}

// Median of xs (NaN for none); xs is not modified.
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// Quantile of xs at q in [0, 1], interpolating linearly between order
// statistics (type 7 of Hyndman and Fan, the default of R and NumPy); NaN
// for an empty slice. xs is not modified. It selects the two order
// statistics it needs (quickselect) rather than sorting.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	h := q * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	vi := nth(s, i)
	if i+1 >= len(s) || h == lo {
		return vi
	}
	// After selecting the i-th, everything above index i is >= it: the
	// next order statistic is their minimum.
	return vi + (h-lo)*(slices.Min(s[i+1:])-vi)
}

// nth rearranges s so that s[k] is the value a sort would put there, with
// no larger value before it and no smaller one after, and returns it
// (Hoare's selection with a median-of-three pivot).
func nth(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

// Verdict grades a speed fit by its errors on its own samples: good (median
// <= 5%, largest <= 15%), fair (<= 10%, <= 30%), poor otherwise, and
// insufficient when the samples cannot determine every coefficient. Errors
// on the fitted samples flatter the model; optimus eval speed measures
// errors on configurations the fit did not see.
func (f SpeedFit) Verdict(identifiable bool) string {
	switch {
	case !identifiable || f.Used < NumTheta(f.Model.Mode):
		return QualityInsufficient
	case f.MedianRelErr <= 0.05 && f.MaxRelErr <= 0.15:
		return QualityGood
	case f.MedianRelErr <= 0.10 && f.MaxRelErr <= 0.30:
		return QualityFair
	}
	return QualityPoor
}
