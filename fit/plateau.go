package fit

import "math"

// Step drops and plateaus: what a log says about a step learning-rate
// schedule. A step schedule holds the loss flat between cuts, so a log
// observed in the middle of a plateau meets the convergence rule although
// the next cut will drop it again. Whether the schedule is over is not in
// the plateau itself; it is in the job's own history (has it dropped in
// steps before?) and in its family's finished runs (did their plateaus end
// in drops?).

// dropSpan is the span, in epochs, over which a learning-rate cut's drop is
// measured: a cut takes effect within an epoch or two.
const dropSpan = 3

// dropLevel is the number of points averaged on either side of a drop to
// tell its levels apart from noise.
const dropLevel = 8

// StepDrops returns the epochs (1-based, each the first epoch after its
// drop) at which a per-epoch log y (lower is better, gaps filled) dropped
// in a step: the mean of the dropLevel values after fell below the mean of
// the dropLevel values that end dropSpan epochs earlier by more than twice
// what the trend of the window before would give over the same distance,
// and by more than that trend plus 2.5 times the rule's threshold
// (relative to the log's start, its largest first value). A 1/k-shaped fall only slows down,
// so it has none; averaging keeps noise of a few percent short of the
// margin. A drop in the last dropLevel epochs is not yet seen.
func StepDrops(y []float64, rule Rule) []int {
	drops, _ := StepDropSizes(y, rule)
	return drops
}

// StepDropSizes is StepDrops with the size of each drop: the fall of the
// mean level across it, relative to the log's start (the scale of the
// rule's threshold).
func StepDropSizes(y []float64, rule Rule) (drops []int, sizes []float64) {
	w := max(rule.Window, dropSpan)
	if len(y) < w+dropSpan+2*dropLevel {
		return nil, nil
	}
	mean := func(a, b int) float64 {
		m := 0.0
		for _, v := range y[a:b] {
			m += v
		}
		return m / float64(b-a)
	}
	scale := 0.0 // the log's start: the largest of its first values
	for _, v := range y[:dropLevel] {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 || math.IsNaN(scale) {
		return nil, nil
	}
	gap := float64(dropSpan + dropLevel)
	best := 0.0
	for i := w + dropSpan + dropLevel; i+dropLevel <= len(y); i++ {
		before := mean(i-dropSpan-dropLevel, i-dropSpan)
		earlier := mean(i-dropSpan-dropLevel-w, i-dropSpan-w)
		d := (before - mean(i, i+dropLevel)) / scale
		trend := (earlier - before) / scale * gap / float64(w)
		if !(d > trend+2.5*rule.Threshold && d > 2*trend) {
			continue
		}
		if n := len(drops); n > 0 && i+1-drops[n-1] <= int(gap) {
			if d > best { // the same drop: keep where it is largest
				drops[n-1], sizes[n-1], best = i+1, d, d
			}
			continue
		}
		drops, sizes, best = append(drops, i+1), append(sizes, d), d
	}
	return drops, sizes
}

// Isotonic is the least-squares non-increasing fit to y, by the
// pool-adjacent-violators algorithm.
func Isotonic(y []float64) []float64 {
	type block struct {
		sum  float64
		n    int
		mean float64
	}
	var blocks []block
	for _, v := range y {
		blocks = append(blocks, block{v, 1, v})
		for len(blocks) > 1 && blocks[len(blocks)-2].mean < blocks[len(blocks)-1].mean {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			m := block{a.sum + b.sum, a.n + b.n, 0}
			m.mean = m.sum / float64(m.n)
			blocks = append(blocks[:len(blocks)-2], m)
		}
	}
	out := make([]float64, 0, len(y))
	for _, b := range blocks {
		for i := 0; i < b.n; i++ {
			out = append(out, b.mean)
		}
	}
	return out
}

// Schedule is what is known of whether a job's learning-rate schedule
// still holds a drop in store. The zero value knows nothing and changes
// nothing: Blend then predicts as before.
type Schedule struct {
	// Observed is the epochs the job has run (0: unknown, the rule is off).
	Observed int
	// Drops are the epochs of the job's own step drops (StepDrops), when
	// DropsKnown (the log itself was seen, as eval convergence sees it).
	Drops      []int
	DropsKnown bool
	// DropSizes are the drops' sizes (StepDropSizes), relative to the
	// log's start; LastFall, the largest fall over a window of the
	// smoothed log ending within a window before its floor (the last fall
	// the rule saw), on the same scale (0: unknown).
	DropSizes     []float64
	LastFall      float64
	LastFallEpoch int
	// StepShaped: the job's fit says its log is not 1/k-shaped the way a
	// step schedule's is not (residual autocorrelation at least 0.5, or
	// a poor fit). predict, which has the models table and not the log,
	// knows the job's history only this way.
	StepShaped bool
	// FamilyDrops is, for each of the family's finished runs, the number
	// of step drops in its log (nil: no finished run is known).
	FamilyDrops []int
	// Noise is the observation noise of the log in the fit's normalised
	// units (the fit's RMSE); Spacing the epochs between its points.
	Noise, Spacing float64
}

// continuation is the probability that a job on a plateau, after the n
// drops of its own log, has another drop to come: of the family's finished
// runs with at least n drops, the share that had more (with one pseudo-run
// at a half); a half when no finished run had as many (they do not know
// this recipe) or none is known, which is the honest answer to an
// ambiguous plateau. A step-shaped fit without known drops counts as n = 0
// with a drop to come at least as likely as not.
func (s Schedule) continuation() float64 {
	if len(s.FamilyDrops) == 0 {
		return 0.5
	}
	n := len(s.Drops)
	atLeast, more := 0, 0
	for _, d := range s.FamilyDrops {
		if d >= n {
			atLeast++
		}
		if d > n {
			more++
		}
	}
	if atLeast == 0 {
		return 0.5 // no finished run had as many cuts: they cannot tell
	}
	q := (float64(more) + 0.5) / float64(atLeast+1)
	if s.StepShaped && !s.DropsKnown {
		q = math.Max(q, 0.5)
	}
	return q
}

// Spent is the share of the chance of another cut that still matters to
// the rule: a step schedule multiplies the rate by the same factor at each
// cut, so its drops shrink geometrically (the loss's rate-dependent part is
// proportional to the rate). With two falls seen (the job's drops, and the
// last fall the rule saw when it came after them), the next is expected at
// the last times their ratio; a drop smaller than the rule's threshold
// does not undo convergence, so the chance is scaled by how far below the
// threshold it falls (1: the evidence does not say the schedule is over).
func (s Schedule) Spent(rule Rule) float64 {
	sizes := s.DropSizes
	// The last fall is a drop of its own when it ends more than a window
	// after the last detected drop (a drop too small for StepDrops, which
	// asks for 2.5 thresholds, may still be larger than the threshold).
	if n := len(s.Drops); n > 0 && len(sizes) == n && s.LastFall > 0 && s.LastFallEpoch > s.Drops[n-1]+rule.Window+dropSpan {
		sizes = append(sizes[:n:n], s.LastFall)
	}
	share := 1.0
	if n := len(s.Drops); n > 0 && s.Observed > 0 {
		// A plateau that has outlasted the job's longest phase so far
		// (start to first drop, or between drops) by a quarter: a
		// schedule cutting at shares of a budget or periodically would
		// have cut by now, so a cut to come, if any, is one too small to
		// see.
		longest, prev := 0, 0
		for _, d := range s.Drops {
			longest, prev = max(longest, d-prev), d
		}
		last := max(s.Drops[n-1], s.LastFallEpoch)
		if float64(s.Observed-last) > 1.25*float64(longest) {
			share = outlasted
		}
	}
	n := len(sizes)
	if n < 2 || sizes[n-2] <= 0 || rule.Threshold <= 0 {
		return share
	}
	r := math.Min(1, sizes[n-1]/sizes[n-2])
	return share * math.Min(1, sizes[n-1]*r/rule.Threshold)
}

// outlasted is the share of the chance of another cut left to a plateau
// that has outlasted the job's longest phase (Schedule.Spent); chosen, not
// fitted.
const outlasted = 0.25

// stepped says whether the job's own history shows a step schedule.
func (s Schedule) stepped() bool { return len(s.Drops) > 0 || s.StepShaped }

// StepShapedFit says whether a fit's residuals say its log is not
// 1/k-shaped the way a step schedule's is not (Schedule.StepShaped).
func StepShapedFit(f LossFit) bool {
	return f.Quality == QualityPoor || f.Autocorr >= 0.5
}

// nextDrop is the range of epochs in which the next cut is likely: one
// gap between the job's own last two drops past the last one (a periodic
// schedule) when it has two; else, with one drop at d, up to d past the
// observed epoch (cuts at shares of a budget come at least as far apart as
// the first came after the start); without any, between the observed
// epoch and twice it (scale-free ignorance, as the evidence floor's).
func (s Schedule) nextDrop() (lo, hi float64) {
	obs := float64(s.Observed)
	switch n := len(s.Drops); {
	case n >= 2:
		gap := float64(s.Drops[n-1] - s.Drops[n-2])
		next := float64(s.Drops[n-1]) + gap
		for next <= obs {
			next += gap
		}
		return math.Max(obs, next-0.25*gap), next + 0.25*gap
	case n == 1:
		return obs, obs + float64(s.Drops[0])
	}
	return obs, 2 * obs
}

// minHalfWidth is the least half-width of an interval for a job still
// training: the log's point spacing (the rule cannot place convergence
// between two points) and the epochs over which the observation noise,
// averaged over a window, is as large as the rule's threshold fall per
// epoch (a noisier log cannot tell neighbouring epochs apart); at least
// one epoch.
func (s Schedule) minHalfWidth(rule Rule) int {
	h := math.Max(1, s.Spacing)
	if s.Noise > 0 && rule.Threshold > 0 && rule.Window > 0 {
		perEpoch := rule.Threshold / float64(rule.Window)
		h = math.Max(h, s.Noise/math.Sqrt(float64(rule.Window))/perEpoch)
	}
	return int(math.Ceil(math.Min(h, float64(rule.Window))))
}
