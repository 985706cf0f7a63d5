package metrics

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// DefaultLossTags and DefaultHigherTags are the tags tried, in order, for
// a job's convergence metric when none is configured: training losses
// first (logged most often), then validation losses, then accuracies.
var (
	DefaultLossTags = []string{
		"loss", "train_loss", "train/loss", "training_loss", "epoch_loss", "train/epoch_loss",
		"train_loss_epoch", "batch_loss", "train_loss_step",
		"val_loss", "epoch_val_loss", "validation/epoch_loss", "val_loss_epoch", "validation_loss", "eval_loss", "eval/loss",
	}
	DefaultHigherTags = []string{
		"eval_accuracy", "val_accuracy", "val_acc", "epoch_val_accuracy", "epoch_val_acc", "validation/epoch_accuracy",
		"val_acc_epoch", "Validation-accuracy", "accuracy", "acc", "train_accuracy", "epoch_accuracy", "Train-accuracy",
	}
)

// Metric is a job's convergence metric.
type Metric struct {
	Tag string
	// Higher is true for metrics such as accuracy, false for losses; nil
	// means inferred from the tag (HigherIsBetter).
	Higher *bool
}

// higherWords is compiled on first use, not at every start of the binary.
var higherWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^a-z])(acc|accuracy|top1|top5|top_1|top_5|precision|recall|f1|auc|map|bleu|iou|miou|dice|correct)([^a-z]|$)`)
})

// HigherIsBetter infers from a tag's name whether it is a metric that
// grows as the job converges (accuracy, top1, f1, bleu...).
func HigherIsBetter(tag string) bool { return higherWords().MatchString(tag) }

// Options are the settings of Reduce.
type Options struct {
	// Metric is the job's configured metric; Tag "" chooses by the
	// default lists.
	Metric Metric
	// StepTag is the tag whose steps and times measure speed and
	// progress; "" chooses (see Timeline).
	StepTag string
	// Changes are the job's configuration changes, oldest first (from
	// --configs); nil when not known.
	Changes []ConfigChange
	// Current is the job's configuration now (the jobs table's ps and
	// workers), attributed to its last run when nothing else is known.
	Current *Configuration
	// RestartSkip is how long after a configuration starts its speed is
	// not measured (the restart: loading the checkpoint, warming up), in
	// seconds; the first interval logged after a restart is never
	// measured either.
	RestartSkip float64
}

// ConfigChange is a configuration that a job started with at a time.
type ConfigChange struct {
	Start float64 // seconds since the Unix epoch
	Configuration
}

// LossPoint is one row of the loss table.
type LossPoint struct {
	Step  int64
	Value float64
}

// SpeedSample is one row of the speed table: the job's speed over one run
// at one configuration.
type SpeedSample struct {
	Configuration
	Speed    float64 // steps/s
	From, To int64   // the steps measured between
}

// Result is what a job's logs say.
type Result struct {
	Job            string
	Metric         string // "" when no tag could be the metric
	HigherIsBetter bool
	Loss           Loss
	Speed          []SpeedSample
	Progress       int64 // steps trained (-1: no point)
	Timeline       string
	// Superseded points (by a restart) and restarts, over all tags;
	// NonFinite values of the metric (kept: fit drops and counts them);
	// Unattributed runs whose configuration is not known.
	Superseded, Restarts, NonFinite, Unattributed int
}

// Reduce turns a job's points (steps resolved) into its rows.
func Reduce(jr *JobRead, o Options) (*Result, error) {
	res := &Result{Job: jr.Job, Progress: -1}
	latest := make([]view, len(jr.Series))
	for i := range jr.Series {
		s := &jr.Series[i]
		if s.colOn {
			// In order already: Latest would keep every point.
			latest[i] = s.view()
		} else {
			kept, sup, rs := Latest(s.Samples)
			latest[i] = view{s: kept}
			res.Superseded += sup
			res.Restarts += rs
		}
		if n := latest[i].len(); n > 0 {
			if last := latest[i].at(n - 1).Step; last > res.Progress {
				res.Progress = last
			}
		}
	}
	mi := -1
	switch {
	case o.Metric.Tag != "":
		mi = findTag(jr.Series, o.Metric.Tag)
		if mi < 0 {
			return nil, fmt.Errorf("job %q logs no metric %q (it logs %s)", jr.Job, o.Metric.Tag, tagList(jr.Series))
		}
	default:
		for _, t := range append(append([]string(nil), DefaultLossTags...), DefaultHigherTags...) {
			if mi = findTag(jr.Series, t); mi >= 0 {
				break
			}
		}
	}
	if mi >= 0 {
		res.Metric = jr.Series[mi].Tag
		res.HigherIsBetter = HigherIsBetter(res.Metric)
		if o.Metric.Higher != nil {
			res.HigherIsBetter = *o.Metric.Higher
		}
		if c := latest[mi].c; c != nil {
			res.Loss, res.NonFinite = newLossColumns(c.steps, c.vals)
		} else {
			res.Loss, res.NonFinite = newLoss(latest[mi].s)
		}
	}
	ti := timeline(jr.Series, latest, res.Progress, o.StepTag)
	if o.StepTag != "" && ti < 0 {
		return nil, fmt.Errorf("job %q logs no tag %q to measure its speed by (it logs %s)", jr.Job, o.StepTag, tagList(jr.Series))
	}
	if ti >= 0 {
		res.Timeline = jr.Series[ti].Tag
		tl := jr.Series[ti].view()
		if tl.c == nil {
			tl.s = ordered(tl.s)
		}
		res.Speed, res.Unattributed = speeds(jr, tl, o)
	}
	return res, nil
}

// findTag finds a tag exactly, else ignoring case.
func findTag(series []Series, tag string) int {
	for i, s := range series {
		if s.Tag == tag {
			return i
		}
	}
	for i, s := range series {
		if strings.EqualFold(s.Tag, tag) {
			return i
		}
	}
	return -1
}

func tagList(series []Series) string {
	var tags []string
	for i, s := range series {
		if i == 8 {
			tags = append(tags, fmt.Sprintf("and %d more", len(series)-i))
			break
		}
		tags = append(tags, quoteTag(s.Tag))
	}
	if len(tags) == 0 {
		return "none"
	}
	return strings.Join(tags, ", ")
}

// timeline picks the tag whose steps and times measure speed: stepTag
// when given, else the one logged most often among those with a time at
// every point that reach 90% of the job's progress (a tag with its own
// step counter, as Lightning's per-batch validation metrics have, falls
// short of it), ties to the first by name.
func timeline(series []Series, latest []view, progress int64, stepTag string) int {
	if stepTag != "" {
		return findTag(series, stepTag)
	}
	best := -1
	for i, s := range series {
		if n := latest[i].len(); n < 2 || !series[i].timed() || float64(latest[i].at(n-1).Step) < 0.9*float64(progress) {
			continue
		}
		if best < 0 || s.Len() > series[best].Len() {
			best = i
		}
	}
	return best
}

func (s *Series) timed() bool {
	if s.colOn {
		return !s.col.nanWall
	}
	for _, x := range s.Samples {
		if math.IsNaN(x.Wall) {
			return false
		}
	}
	return true
}

// speeds measures a job's speed over each run: a stretch of its timeline
// at one configuration, in one file, with steps increasing (a step logged
// again counts where it was first logged). A run's speed
// is (last step - first step) / (last time - first time), where the first
// point is the second of the run (the first interval after a start holds
// its warm-up) and at least RestartSkip after the configuration started.
// Runs whose configuration is not known are counted, not measured.
func speeds(jr *JobRead, tl view, o Options) ([]SpeedSample, int) {
	// A run is tl[lo:hi]: consecutive points at one configuration, in one
	// file, steps not decreasing (a step logged again counts where it was
	// first logged).
	type run struct {
		cfg    *Configuration
		start  float64 // when the configuration started
		lo, hi int
	}
	var runs []run
	changeAt := func(t float64) (*Configuration, float64) {
		var c *Configuration
		start := math.Inf(-1)
		for i := range o.Changes {
			if o.Changes[i].Start <= t {
				c, start = &o.Changes[i].Configuration, o.Changes[i].Start
			}
		}
		return c, start
	}
	colRuns := tl.c != nil && o.Changes == nil
	if c := tl.c; colRuns {
		// Steps increase throughout: a run is each file's stretch.
		for k, fi := range c.files {
			hi := c.len()
			if k+1 < len(c.starts) {
				hi = c.starts[k+1]
			}
			runs = append(runs, run{cfg: jr.Files[fi].Config, start: math.Inf(-1), lo: c.starts[k], hi: hi})
		}
	}
	for i := 0; !colRuns && i < tl.len(); i++ {
		x := tl.at(i)
		cfg, start := jr.Files[x.file].Config, math.Inf(-1)
		if o.Changes != nil {
			cfg, start = changeAt(x.Wall)
		}
		if n := len(runs); n > 0 {
			cur := &runs[n-1]
			prev := tl.at(i - 1)
			if x.Step >= prev.Step && x.file == tl.at(cur.lo).file && sameConfig(cfg, cur.cfg) && start == cur.start {
				cur.hi = i + 1
				continue
			}
		}
		runs = append(runs, run{cfg: cfg, start: start, lo: i, hi: i + 1})
	}
	if o.Current != nil && len(runs) > 0 && runs[len(runs)-1].cfg == nil && o.Changes == nil {
		runs[len(runs)-1].cfg = o.Current
	}
	var out []SpeedSample
	unattributed := 0
	for _, r := range runs {
		pts := tl.slice(r.lo, r.hi)
		// The points where each step was first logged.
		distinct := 1
		for k := 1; k < pts.len(); k++ {
			if pts.step(k) != pts.step(k-1) {
				distinct++
			}
		}
		if distinct < 3 {
			continue // too short to measure past its first interval
		}
		if r.cfg == nil || r.cfg.Workers < 1 {
			unattributed++
			continue
		}
		// The restart skip counts from when the configuration started,
		// when known, else from the run's first point.
		skipTo := pts.wall(0) + o.RestartSkip
		if !math.IsInf(r.start, -1) {
			skipTo = r.start + o.RestartSkip
		}
		// From the second distinct step on, and not before skipTo.
		k := 1
		for k < pts.len() && pts.step(k) == pts.step(0) {
			k++
		}
		for k < pts.len() && (pts.wall(k) < skipTo || pts.step(k) == pts.step(k-1)) {
			k++
		}
		if k >= pts.len() {
			continue
		}
		a, b := pts.at(k), pts.at(pts.len()-1)
		for m := pts.len() - 1; m > k && pts.step(m-1) == b.Step; m-- {
			b = pts.at(m - 1) // the first time the last step was logged
		}
		if dt := b.Wall - a.Wall; dt > 0 && b.Step > a.Step {
			out = append(out, SpeedSample{Configuration: *r.cfg, Speed: float64(b.Step-a.Step) / dt, From: a.Step, To: b.Step})
		}
	}
	return out, unattributed
}

func sameConfig(a, b *Configuration) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// SortChanges orders configuration changes by time.
func SortChanges(c []ConfigChange) {
	sort.SliceStable(c, func(i, j int) bool { return c[i].Start < c[j].Start })
}
