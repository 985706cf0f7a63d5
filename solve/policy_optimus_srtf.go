package solve

import (
	"fmt"
	"math"
	"slices"
)

// OptimusSRTF is the paper's marginal-gain greedy with its gains weighted
// towards the jobs with the least work left and restarts that must pay for
// themselves: see srtfGreedy.
const OptimusSRTF Policy = "optimus-srtf"

// MaxSRTFExponent bounds Options.SRTFExponent (the weights are powers of it).
const MaxSRTFExponent = 10.0

// srtfExponentKnob is Options.SRTFExponent.
var srtfExponentKnob = &Knob{
	Flag: "srtf-exponent",
	Usage: "weight each job's remaining time by (mean T1 / its T1)^`A`, T1 its remaining time on one worker, " +
		"so the greedy favours the jobs with the least work left (0: unweighted, as the paper)",
	Value: func(o *Options) FlagValue { return floatFlag{&o.SRTFExponent} },
	Check: func(o *Options) string {
		if !(o.SRTFExponent >= 0 && o.SRTFExponent <= MaxSRTFExponent) {
			return "give a number in [0, 10]"
		}
		return ""
	},
}

// restartPaybackKnob is Options.RestartPayback.
var restartPaybackKnob = &Knob{
	Flag: "restart-payback",
	Usage: "a running job's allocation changes only when the change saves it `F` times --restart-cost " +
		"(1: just the restart; more damps changes that pay back only in the plan's noise)",
	Value: func(o *Options) FlagValue { return floatFlag{&o.RestartPayback} },
	Check: func(o *Options) string {
		if !(o.RestartPayback >= 1) || math.IsInf(o.RestartPayback, 0) {
			return "give a factor >= 1"
		}
		return ""
	},
}

// srtfHysteresisKnob is Options.SRTFHysteresis.
var srtfHysteresisKnob = &Knob{
	Flag: "srtf-hysteresis",
	Usage: "a running job keeps its allocation when the plan would change its workers and its PS by at most " +
		"`FRACTION` of what it has of each (0: no hysteresis)",
	Value: func(o *Options) FlagValue { return floatFlag{&o.SRTFHysteresis} },
	Check: func(o *Options) string {
		if !(o.SRTFHysteresis >= 0 && o.SRTFHysteresis <= 1) {
			return "give a fraction in [0, 1]"
		}
		return ""
	},
}

func init() {
	registerPolicy(&PolicyEntry{
		Name:  OptimusSRTF,
		Order: 6,
		Short: "the optimus greedy, shortest remaining time first, restarts that pay back",
		Long: "the optimus greedy on the same fitted models, marginal gains and placement, with " +
			"each job's remaining time weighted by (mean T1 / its T1)^--srtf-exponent (T1 its " +
			"remaining time on one worker), so that GPUs go first to the jobs closest to done, " +
			"as shortest-remaining-time-first; jobs are admitted in that order, not by arrival; " +
			"a running job's allocation changes only when the change saves it " +
			"--restart-payback times --restart-cost of its remaining time (the reasons name that " +
			"product as the restart cost), and it keeps its allocation when the " +
			"plan would change its workers and PS by at most --srtf-hysteresis of what it has",
		Knobs: []*Knob{restartCostKnob, srtfExponentKnob, restartPaybackKnob, srtfHysteresisKnob},
		plan: func(in *instance, opts Options) *plan {
			return in.srtfGreedy(opts.SRTFExponent, opts.RestartPayback*opts.RestartCost, opts.SRTFHysteresis)
		},
	})
}

// srtfGreedy is the optimus policy's greedy and stability rule
// (stableGreedy) on reweighted jobs. The paper's objective Σ_j W_j·T_j
// makes the marginal gain of a task proportional to the job's remaining
// work Q_j, so the greedy gives GPUs to the longest jobs, while the mean
// job completion time is smallest when the shortest finish first
// (shortest-remaining-time-first is optimal on one machine: Schrage, 1968).
// Here job j's weight is multiplied by
//
//	(mean_k T1_k / T1_j)^A,   T1_j = T_j(minPS, 1)
//
// over the jobs to plan, so a job's gain scales with T1_j^(1-A): A = 1
// makes the gain of a task its relative speed-up, A > 1 prefers short jobs
// outright. The jobs are also admitted (each its first worker) in the
// order of their weights, heaviest first, so that when GPUs are short the
// shortest jobs run and the longest wait. A running job's change is
// weighed against restartCost (RestartPayback times the real cost), as in
// stableGreedy.
func (in *instance) srtfGreedy(exponent, restartCost, hysteresis float64) *plan {
	if exponent > 0 {
		// The result reports the objective in the caller's weights.
		defer func(p *Problem) { in.p = p }(in.p)
		in.weightBySRTF(exponent)
	}
	pl := in.stableGreedy(restartCost)
	if hysteresis <= 0 {
		return pl
	}
	// Hysteresis: a running job the plan changes by at most the fraction
	// keeps what it has, and the others are planned around it (even when
	// that leaves a job waiting that the plan runs: on workload-1 that
	// exception gave the same mean JCT with more restarts).
	nj := len(in.p.Jobs)
	pin := make([]bool, nj)
	small := make([]bool, nj)
	for j := range nj {
		job := &in.p.Jobs[j]
		if !in.pinnable(j) || pl.status[j] != Running {
			continue
		}
		dw, dp := math.Abs(float64(pl.wk[j]-job.CurWorkers)), math.Abs(float64(pl.ps[j]-job.CurPS))
		if dw == 0 && dp == 0 {
			pin[j] = true
			continue
		}
		if dw <= hysteresis*float64(job.CurWorkers) && dp <= hysteresis*float64(job.CurPS) {
			pin[j], small[j] = true, true
		}
	}
	if !slices.Contains(small, true) {
		return pl
	}
	out := in.greedy(pin)
	in.chargeRestarts(out, restartCost)
	for j := range nj {
		job := &in.p.Jobs[j]
		if !out.kept[j] {
			continue
		}
		if small[j] {
			out.reason[j] = fmt.Sprintf("kept %d PS + %d workers: the change to %d PS + %d workers is within --srtf-hysteresis %g",
				job.CurPS, job.CurWorkers, pl.ps[j], pl.wk[j], hysteresis)
		} else {
			out.reason[j], out.gain[j], out.next[j] = pl.reason[j], pl.gain[j], pl.next[j]
			out.byLimits[j], out.limits[j] = pl.byLimits[j], pl.limits[j]
		}
	}
	return out
}

// weightBySRTF multiplies the weight of every job to plan that has work
// left by (mean T1 / its T1)^exponent, on a copy of the problem's jobs,
// and re-orders the instance by weight (heaviest first, ties by arrival).
func (in *instance) weightBySRTF(exponent float64) {
	t1 := make([]float64, len(in.p.Jobs))
	sum, n := 0.0, 0
	for j := range in.p.Jobs {
		if in.pre[j] != "" {
			continue
		}
		if t := in.T(j, in.minPS[j], 1); t > 0 && !math.IsInf(t, 0) {
			t1[j] = t
			sum += t
			n++
		}
	}
	if n == 0 {
		return
	}
	p := *in.p
	p.Jobs = slices.Clone(in.p.Jobs)
	in.p = &p
	mean := sum / float64(n)
	for j := range p.Jobs {
		if t1[j] > 0 {
			if w := p.Jobs[j].Weight * math.Pow(mean/t1[j], exponent); w > 0 && !math.IsInf(w, 0) {
				p.Jobs[j].Weight = w
			}
		}
	}
	slices.SortStableFunc(in.order, func(a, b int) int { return cmpFloat(p.Jobs[b].Weight, p.Jobs[a].Weight) })
	for k, j := range in.order {
		in.rank[j] = k
	}
}
