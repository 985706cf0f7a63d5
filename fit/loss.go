package fit

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// LossPoint is one observation of a job's training loss (or metric).
type LossPoint struct {
	Step  float64
	Value float64 // NaN for a missing or non-finite observation
}

// LossOptions tune FitLoss. The zero value is not useful; start from
// DefaultLossOptions.
type LossOptions struct {
	// HigherIsBetter marks metrics such as accuracy, which are fitted on
	// their complement: 1 - v for values in [0, 1], 100 - v for percentages.
	HigherIsBetter bool
	// MinPoints is the fewest usable points a fit needs (3 coefficients).
	MinPoints int
	// Segments and SegmentWeight weight recent points more, as the authors'
	// code does: the points are cut into Segments equal runs by position and
	// run s (from 0, oldest) weighs SegmentWeight^s (1 : 16 : 256).
	Segments      int
	SegmentWeight float64
	// OutlierWidth and OutlierFloor set how far from the curve a point may
	// lie before it is dropped as an outlier (see outliersDropped).
	OutlierWidth, OutlierFloor float64
	// Grid is the number of b2 values tried before refining the best.
	Grid int
	// EarlyFractions are the shares of the points the Early fits see.
	EarlyFractions [2]float64
}

// DefaultLossOptions are the options optimus uses.
var DefaultLossOptions = LossOptions{
	MinPoints: 3, Segments: 3, SegmentWeight: 16,
	OutlierWidth: 6, OutlierFloor: 0.1, Grid: 32, EarlyFractions: [2]float64{0.5, 0.75},
}

// Fit methods, reported in the models table.
const (
	MethodB2Search = "b2-search+nnls" // profile search over b2 with a 2-variable NNLS inside
)

// Quality verdicts on a fit.
const (
	QualityGood         = "good"
	QualityFair         = "fair"
	QualityPoor         = "poor"
	QualityInsufficient = "insufficient"
)

// LossFit is a fitted convergence curve with its uncertainty and quality.
//
// The curve is fitted to normalised values y = t(v) / Scale, where t is the
// identity for losses and Complement - v for higher-is-better metrics, and
// Scale is the first finite (transformed) value, so that the curve starts
// near 1 for every job and one convergence threshold fits all.
type LossFit struct {
	Method     string
	Curve      Curve   // best fit, normalised units, k in steps
	Scale      float64 // divisor of the normalisation
	Complement float64 // 0 for a loss; 1 or 100 for a higher-is-better metric
	Used       int
	Dropped    int // non-finite values and outliers
	FirstStep  float64
	LastStep   float64
	R2, RMSE   float64 // over the used points, normalised units
	Autocorr   float64 // lag-1 autocorrelation of the residuals
	Quality    string
	// Early are the fits to the first EarlyFractions of the points (at
	// most coarseLimit of them, evenly spread: they only gauge drift). Were
	// the 1/k shape right, they would predict about what Curve predicts; how
	// far they disagree measures how much the shape is wrong for this job,
	// and widens the prediction interval (see PredictConvergence).
	Early [2]Curve
	// Recent is the fit to the second half of the points, which sees the
	// curve's latest bend: where training flattens faster (or slower) than
	// 1/k, it disagrees with the fit to all of them in the same way.
	Recent Curve
	// Cov is the covariance of (b0, b1, b2) by the Laplace approximation:
	// σ²(JᵀWJ)⁻¹ with J the Jacobian of the curve at the best fit, W the
	// weights and σ² as for the profile likelihood.
	Cov [3][3]float64
}

// Value converts a value of the fitted curve back to the metric's own units.
func (f LossFit) Value(y float64) float64 {
	v := y * f.Scale
	if f.Complement > 0 {
		return f.Complement - v
	}
	return v
}

// FitLoss fits the convergence model l(k) = 1/(b0·k + b1) + b2 (Optimus,
// section 3.1) to a job's loss points, which must be in increasing step
// order.
//
// Points with non-finite values are dropped, and so are outliers (points
// far from a quick fit of the whole log, such as a spike). The rest are
// normalised (see LossFit) and weighted towards recent points, 1 : 16 : 256
// over the oldest, middle and newest third as in the authors' code. For a
// fixed b2 the model is linear in (b0, b1) after the transformation
// z = 1/(y - b2) = b0·k + b1; FitLoss solves that transformed problem by
// non-negative least squares, each row weighted by (y - b2)² so that its
// residuals approximate those of y itself, and measures the weighted
// squared error in y. A search over b2 in [0, min y) (a grid, then
// golden-section refinement around the best grid point) finds the best fit.
//
// Two figures describe the uncertainty. Cov is the Laplace approximation
// of the coefficients' covariance, σ²(JᵀWJ)⁻¹, with σ² estimated from the
// weighted residuals over the effective number of points (recent-point
// weights reduce it) and inflated by (1+ρ)/(1-ρ) when the residuals are
// positively autocorrelated (ρ), as they are when the 1/k shape does not
// fit. Early holds fits to the first half and three quarters of the points,
// and Recent a fit to the second half: if the shape were right they would
// agree with the best fit, so how far their predictions drift measures the
// error of the shape itself, which no amount of noise modelling captures.
func FitLoss(points []LossPoint, opt LossOptions) (LossFit, error) {
	f := LossFit{Method: MethodB2Search}
	ks := make([]float64, 0, len(points))
	vs := make([]float64, 0, len(points))
	for i, p := range points {
		if i > 0 && p.Step <= points[i-1].Step {
			return f, fmt.Errorf("steps must increase: step %v follows step %v", p.Step, points[i-1].Step)
		}
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			f.Dropped++
			continue
		}
		ks, vs = append(ks, p.Step), append(vs, p.Value)
	}
	if opt.HigherIsBetter && len(vs) > 0 {
		hi := slices.Max(vs)
		switch {
		case hi <= 1:
			f.Complement = 1
		case hi <= 100:
			f.Complement = 100
		default:
			return f, fmt.Errorf("a higher-is-better metric must lie in [0, 1] or [0, 100] to be complemented; the largest value is %v", hi)
		}
		for i := range vs {
			vs[i] = f.Complement - vs[i]
		}
	}
	keep := outliersDropped(ks, vs, opt)
	f.Dropped += len(vs) - len(keep)
	k := make([]float64, len(keep))
	y := make([]float64, len(keep))
	for j, i := range keep {
		k[j], y[j] = ks[i], vs[i]
	}
	f.Used = len(k)
	if f.Used > 0 {
		f.FirstStep, f.LastStep = k[0], k[len(k)-1]
	}
	if f.Used < opt.MinPoints {
		f.Quality = QualityInsufficient
		return f, nil
	}
	if slices.Min(y) <= 0 {
		return f, fmt.Errorf("values must be positive to fit 1/(b0·k + b1) + b2 (after complementing a higher-is-better metric); the smallest is %v", slices.Min(y))
	}
	// The scale is the first observed value, outlier or not: the rule's
	// threshold is relative to where training started.
	f.Scale = vs[0]
	if f.Scale <= 0 {
		f.Scale = y[0]
	}
	for i := range y {
		y[i] /= f.Scale
	}
	w := segmentWeights(len(y), opt)
	pr := newProfile(k, y, w)
	pr.search(opt.Grid)
	f.Curve = pr.best.curve
	f.R2, f.RMSE, f.Autocorr = goodness(k, y, f.Curve)
	f.Cov = pr.covariance(f.Curve, f.Autocorr)
	for i, frac := range opt.EarlyFractions {
		f.Early[i] = f.Curve
		if m := int(math.Ceil(frac * float64(len(k)))); m >= opt.MinPoints && m < len(k) {
			early := newProfile(k[:m], y[:m], segmentWeights(m, opt)).strided(coarseLimit)
			early.search(opt.Grid)
			f.Early[i] = early.best.curve
		}
	}
	f.Recent = f.Curve
	if m := len(k) / 2; len(k)-m >= opt.MinPoints && m > 0 {
		rp := newProfile(k[m:], y[m:], segmentWeights(len(k)-m, opt)).strided(coarseLimit)
		rp.search(opt.Grid)
		f.Recent = rp.best.curve
	}
	f.Quality = verdict(f)
	return f, nil
}

// verdict grades a fit. A 1/k-shaped curve leaves small residuals that
// look like noise; a curve of another shape (a step learning-rate schedule)
// leaves long runs of residuals of one sign, which the lag-1
// autocorrelation measures even where R² stays high.
func verdict(f LossFit) string {
	switch {
	case f.R2 >= 0.95 && f.Autocorr < 0.5:
		return QualityGood
	case f.R2 >= 0.8 && f.Autocorr < 0.75:
		return QualityFair
	}
	return QualityPoor
}

// outliersDropped returns the indices of the points to keep: those whose
// residual from a robust quick fit of the whole log, in units of the first
// value, lies within OutlierWidth robust standard deviations (1.4826 x the
// median absolute residual) or OutlierFloor, whichever is wider.
//
// The quick fit is iteratively reweighted with Tukey's bisquare, so that a
// spike cannot drag the curve towards itself and hide among the residuals
// it causes. A fit, unlike a running median, follows the curve's bend at
// both ends of the log; measuring in units of the first value, rather than
// of the local value, keeps a tail the 1/k shape misfits from being taken
// for outliers.
func outliersDropped(k, v []float64, opt LossOptions) []int {
	n := len(v)
	keep := make([]int, 0, n)
	if n < 5 || opt.OutlierWidth <= 0 || slices.Min(v) <= 0 {
		for i := range v {
			keep = append(keep, i)
		}
		return keep
	}
	y := make([]float64, n)
	for i := range v {
		y[i] = v[i] / v[0]
	}
	// Every point counts alike here: recent-point weights would let the
	// quick fit ignore the early points and then call them outliers.
	base := make([]float64, n)
	for i := range base {
		base[i] = 1
	}
	w := slices.Clone(base)
	dev := make([]float64, n)
	abs := make([]float64, n)
	var limit float64
	smooth := runningMedian(y)
	for iter := 0; iter < 3; iter++ {
		pr := newProfile(k, y, w)
		pr.smooth = smooth
		pr.coarse(16)
		for i := range y {
			dev[i] = y[i] - pr.best.curve.At(k[i])
			abs[i] = math.Abs(dev[i])
		}
		scale := 1.4826 * Median(abs)
		limit = math.Max(opt.OutlierWidth*scale, opt.OutlierFloor)
		// Bisquare weights for the next pass, with a tuning constant of
		// 4.685 robust standard deviations (but never below the floor).
		c := math.Max(4.685*scale, opt.OutlierFloor)
		for i := range w {
			u := abs[i] / c
			w[i] = 0
			if u < 1 {
				w[i] = base[i] * (1 - u*u) * (1 - u*u)
			}
		}
	}
	for i, d := range dev {
		if math.Abs(d) <= limit {
			keep = append(keep, i)
		}
	}
	return keep
}

// runningMedian smooths y with the median of each point and its two
// neighbours on either side (fewer at the ends).
func runningMedian(y []float64) []float64 {
	out := make([]float64, len(y))
	var win [5]float64
	for i := range y {
		w := append(win[:0], y[max(0, i-2):min(len(y), i+3)]...)
		slices.Sort(w)
		out[i] = w[len(w)/2]
	}
	return out
}

// segmentWeights weights n points in position order: Segments equal runs,
// run s weighing SegmentWeight^s.
func segmentWeights(n int, opt LossOptions) []float64 {
	w := make([]float64, n)
	segs := max(1, opt.Segments)
	size := int(math.Ceil(float64(n) / float64(segs)))
	weight := 1.0
	for i := range w {
		if i > 0 && i%size == 0 {
			weight *= opt.SegmentWeight
		}
		w[i] = weight
	}
	return w
}

// goodness returns R², RMSE and the lag-1 autocorrelation of the residuals,
// unweighted, in normalised units.
func goodness(k, y []float64, c Curve) (r2, rmse, rho float64) {
	n := float64(len(y))
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= n
	res := make([]float64, len(y))
	var sse, sst float64
	for i := range y {
		res[i] = y[i] - c.At(k[i])
		sse += res[i] * res[i]
		sst += (y[i] - mean) * (y[i] - mean)
	}
	r2 = 1 - sse/sst
	if sst == 0 {
		r2 = math.NaN()
	}
	rmse = math.Sqrt(sse / n)
	var num float64
	for i := 1; i < len(res); i++ {
		num += res[i] * res[i-1]
	}
	// Residuals below a millionth of the starting value are rounding and
	// search tolerance: they carry no shape information.
	if sse > 0 && rmse > 1e-6 {
		rho = num / sse
	}
	return r2, rmse, rho
}

// profile is the search over the asymptote c (b2 for the paper's model):
// for each c, the best two inner coefficients and the weighted squared
// error in y.
type profile struct {
	k, y, w []float64
	// smooth, when set, replaces y in the linearisation weights: the
	// running median of y, which the outlier search uses so that a spike,
	// far above the curve, does not weigh in by the fourth power of its own
	// height. The final fits, made without outliers, use y itself.
	smooth []float64
	minY   float64
	nEff   float64 // effective number of points under the weights
	best   profilePoint
}

type profilePoint struct {
	curve Curve
	sse   float64
}

func newProfile(k, y, w []float64) *profile {
	var sw, sw2 float64
	for _, x := range w {
		sw += x
		sw2 += x * x
	}
	// Normalise the weights to sum to the effective sample size, so that
	// the weighted error is on the scale of that many independent points.
	nEff := sw * sw / sw2
	wn := make([]float64, len(w))
	for i := range w {
		wn[i] = w[i] * nEff / sw
	}
	return &profile{k: k, y: y, w: wn, smooth: y, minY: slices.Min(y), nEff: nEff}
}

// at fits (b0, b1) for a fixed b2 and returns the fit and its weighted
// squared error in y.
func (p *profile) at(b2 float64) profilePoint {
	// Weighted least squares of z = 1/(y - b2) on (k, 1) with weights
	// w·(y - b2)⁴: dy/dz = -(y - b2)², so the residual in z times (y - b2)²
	// approximates the residual in y (see profile.smooth).
	var s00, s01, s11, t0, t1 float64
	for i, k := range p.k {
		z := 1 / (p.y[i] - b2)
		d := p.smooth[i] - b2
		ww := p.w[i] * d * d * d * d
		s00 += ww * k * k
		s01 += ww * k
		s11 += ww
		t0 += ww * k * z
		t1 += ww * z
	}
	b0, b1 := nnls2(s00, s01, s11, t0, t1)
	c := Curve{B0: b0, B1: b1, B2: b2}
	sse := 0.0
	for i, k := range p.k {
		r := p.y[i] - c.At(k)
		sse += p.w[i] * r * r
	}
	if math.IsNaN(sse) {
		sse = math.Inf(1)
	}
	return profilePoint{curve: c, sse: sse}
}

// gridB2 is the i-th of n grid values of b2 in [0, minY): with
// u = i/n, b2 = minY·(1 - (1-u)²), so the spacing shrinks towards min y,
// where the asymptote usually lies.
func gridB2(minY float64, i, n int) float64 {
	u := float64(i) / float64(n)
	return minY * (1 - (1-u)*(1-u))
}

// coarseLimit is the most points the grid phase of a search looks at: the
// grid only has to find the basin of the best b2, which a regular
// subsample shows as well as every point; the refinement uses them all.
const coarseLimit = 200

// coarse sets p.best to the best of a grid of n values of b2 and returns
// the grid index of the best.
func (p *profile) coarse(n int) int {
	q := p.strided(coarseLimit)
	bi, best := 0, math.Inf(1)
	for i := 0; i < n; i++ {
		if pt := q.at(gridB2(p.minY, i, n)); pt.sse < best {
			bi, best = i, pt.sse
		}
	}
	p.best = p.at(gridB2(p.minY, bi, n))
	return bi
}

// strided returns a profile over every s-th point, s chosen so that at
// most limit points remain (p itself when it has no more).
func (p *profile) strided(limit int) *profile {
	n := len(p.k)
	if n <= limit {
		return p
	}
	s := (n + limit - 1) / limit
	q := &profile{minY: p.minY, nEff: p.nEff}
	for i := 0; i < n; i += s {
		q.k, q.y, q.w, q.smooth = append(q.k, p.k[i]), append(q.y, p.y[i]), append(q.w, p.w[i]), append(q.smooth, p.smooth[i])
	}
	return q
}

// search finds the best b2: a grid of n values (on a subsample, see
// coarse), then golden-section refinement on every point between the best
// grid value's neighbours.
func (p *profile) search(n int) {
	bi := p.coarse(n)
	lo := gridB2(p.minY, max(0, bi-1), n)
	hi := p.minY * (1 - 1e-9)
	if bi+1 < n {
		hi = gridB2(p.minY, bi+1, n)
	}
	const invPhi = 0.6180339887498949
	a, b := lo, hi
	c, d := b-invPhi*(b-a), a+invPhi*(b-a)
	fc, fd := p.at(c), p.at(d)
	// 24 steps shrink the bracket, two grid cells wide, by 0.618^24 ≈ 1e-5.
	for it := 0; it < 24; it++ {
		if fc.sse < fd.sse {
			b, d, fd = d, c, fc
			c = b - invPhi*(b-a)
			fc = p.at(c)
		} else {
			a, c, fc = c, d, fd
			d = a + invPhi*(b-a)
			fd = p.at(d)
		}
	}
	for _, pt := range []profilePoint{fc, fd} {
		if pt.sse < p.best.sse {
			p.best = pt
		}
	}
}

// covariance is σ²(JᵀWJ)⁻¹ at curve c (zero when singular).
func (p *profile) covariance(c Curve, rho float64) [3][3]float64 {
	var out [3][3]float64
	dof := math.Max(1, p.nEff-3)
	sigma2 := p.best.sse / dof
	if rho > 0 {
		rho = math.Min(rho, 0.95)
		sigma2 *= (1 + rho) / (1 - rho)
	}
	h := mat.NewSymDense(3, nil)
	for i, k := range p.k {
		d := c.B0*k + c.B1
		j := [3]float64{-k / (d * d), -1 / (d * d), 1}
		for a := 0; a < 3; a++ {
			for b := a; b < 3; b++ {
				h.SetSym(a, b, h.At(a, b)+p.w[i]*j[a]*j[b])
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(h); err != nil {
		return out
	}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			out[a][b] = sigma2 * inv.At(a, b)
		}
	}
	return out
}

// nnls2 solves the two-variable non-negative least-squares problem given
// its normal equations
//
//	[s00 s01] [b0]   [t0]
//	[s01 s11] [b1] = [t1],   b0, b1 >= 0,
//
// by trying each active set: both free, b0 alone, b1 alone, neither. The
// objective is convex, so the first candidate that satisfies the
// Karush-Kuhn-Tucker conditions is the optimum.
func nnls2(s00, s01, s11, t0, t1 float64) (b0, b1 float64) {
	det := s00*s11 - s01*s01
	if det > 1e-14*s00*s11 {
		b0 = (t0*s11 - t1*s01) / det
		b1 = (t1*s00 - t0*s01) / det
		if b0 >= 0 && b1 >= 0 {
			return b0, b1
		}
		// The unconstrained optimum is infeasible: by convexity the
		// constrained one lies on the boundary.
	}
	// The optimum lies on a face: one variable at zero and the other at its
	// own least-squares value (if positive), or both at zero. The objective
	// f(b) = bᵀSb/2 - tᵀb is convex, so the best face optimum is the
	// constrained optimum.
	best, bb0, bb1 := 0.0, 0.0, 0.0 // f(0, 0) = 0
	if s00 > 0 && t0 > 0 {
		if f := -t0 * t0 / (2 * s00); f < best {
			best, bb0, bb1 = f, t0/s00, 0
		}
	}
	if s11 > 0 && t1 > 0 {
		if f := -t1 * t1 / (2 * s11); f < best {
			bb0, bb1 = 0, t1/s11
		}
	}
	return bb0, bb1
}
