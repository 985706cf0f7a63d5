package solve

import (
	"fmt"
	"math"
	"slices"
)

// Tiresias is discretised two-dimensional least-attained-service (Gu et
// al., NSDI 2019): see tiresias below.
const Tiresias Policy = "tiresias"

// tiresiasThresholdsKnob is Options.TiresiasThresholds, given in GPU-hours
// (worker-hours).
var tiresiasThresholdsKnob = &Knob{
	Flag:  "tiresias-thresholds",
	Usage: "attained service, in `GPU-HOURS` (ascending), at which a job moves to the next queue",
	Value: func(o *Options) FlagValue { return &scaledFloatsFlag{p: &o.TiresiasThresholds, scale: 3600} },
	Check: func(o *Options) string {
		if !slices.IsSorted(o.TiresiasThresholds) || slices.ContainsFunc(o.TiresiasThresholds, func(x float64) bool { return !(x > 0) || math.IsInf(x, 0) }) {
			return "give ascending numbers of GPU-hours > 0"
		}
		return ""
	},
}

// tiresiasStarveKnob is Options.TiresiasStarve.
var tiresiasStarveKnob = &Knob{
	Flag:  "tiresias-starve",
	Usage: "starvation guard: a job that has waited `FACTOR` times the time it has run goes back to the first queue (0: none)",
	Value: func(o *Options) FlagValue { return floatFlag{&o.TiresiasStarve} },
	Check: nonNegative(func(o *Options) *float64 { return &o.TiresiasStarve }, "give a factor >= 0 (0: no starvation guard)"),
}

func init() {
	registerPolicy(&PolicyEntry{
		Name:  Tiresias,
		Order: 5,
		Short: "discretised two-dimensional least-attained-service (NSDI'19)",
		Long: "discretised 2D least-attained-service (NSDI'19): jobs in queues by the " +
			"service they attained (GPU-seconds; thresholds --tiresias-thresholds), a lower " +
			"queue first, arrival order within one; each job its whole request or nothing. " +
			"A predictions table carries no attained service, so here every job is in the " +
			"first queue (optimus simulate tracks it)",
		Knobs: []*Knob{tiresiasThresholdsKnob, tiresiasStarveKnob},
		plan: func(in *instance, opts Options) *plan {
			return in.tiresias(opts.TiresiasThresholds, opts.TiresiasStarve)
		},
	})
}

// DefaultTiresiasThresholds is one threshold of 16 GPU-hours: two queues,
// as in the Tiresias runs of Pollux's simulator.
var DefaultTiresiasThresholds = []float64{16 * 3600}

// tiresias is discretised two-dimensional least-attained-service (Gu et
// al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning",
// NSDI 2019, section 3): a job's priority is its attained service in both
// dimensions, the GPUs (workers) it holds times the time it has run
// (Job.Attained). The service is discretised into queues by thresholds: a
// job is in queue k when it has attained at least k of them, and a lower
// queue goes first; within a queue, first come first served (by arrival).
// In that order every job gets all it requests or nothing (gang
// scheduling: RequestWorkers, else max_workers, else what it runs with,
// else 1; a PS job also its PS request as FIFO's); a job that does not fit
// waits and the next one is tried. A running job of a lower priority is
// thereby preempted when a higher one needs its GPUs. Tiresias knows no
// speed model and no remaining work.
//
// The starvation guard (starve > 0): a job that has waited at least starve
// times the time it has run is put back in the highest queue (the paper's
// STARVE_LIMIT; off in the Tiresias runs of Pollux's simulator).
func (in *instance) tiresias(thresholds []float64, starve float64) *plan {
	if thresholds == nil {
		thresholds = DefaultTiresiasThresholds
	}
	pl := in.newPlan()
	queue := make([]int, len(in.p.Jobs))
	var jobs []int
	for _, j := range in.order {
		if in.pre[j] != "" {
			continue
		}
		job := &in.p.Jobs[j]
		for _, th := range thresholds {
			if job.Attained >= th {
				queue[j]++
			}
		}
		if starve > 0 && queue[j] > 0 && job.Waited >= starve*job.Executed {
			queue[j] = 0
		}
		jobs = append(jobs, j)
	}
	// in.order is by arrival: a stable sort by queue keeps it within one.
	slices.SortStableFunc(jobs, func(a, b int) int { return queue[a] - queue[b] })
	for _, j := range jobs {
		job := &in.p.Jobs[j]
		nw := job.RequestWorkers
		if nw <= 0 {
			nw = request(job.MaxWorkers, job.CurWorkers)
		}
		if job.MaxWorkers > 0 {
			nw = min(nw, job.MaxWorkers)
		}
		np := 0
		if !job.allReduce() {
			np = request(job.MaxPS, job.CurPS)
		}
		if misfit := in.tryAdd(pl, j, nw, np); misfit == fitted {
			pl.status[j] = Running
			pl.reason[j] = fmt.Sprintf("tiresias: queue %d, got its request", queue[j])
		} else {
			pl.status[j] = Waiting
			pl.reason[j] = fmt.Sprintf("tiresias: queue %d: %s: its request of %d PS + %d workers did not fit in what the jobs before it left", queue[j], full(misfit), np, nw)
		}
	}
	return pl
}
