package solve

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/optimus-sched/optimus/goodput"
)

// Pollux is goodput-based allocation with batch-size adaptation (Qiao et
// al., OSDI 2021): see pollux below.
const Pollux Policy = "pollux"

func init() {
	registerPolicy(&PolicyEntry{
		Name:  Pollux,
		Order: 6,
		Short: "goodput-optimised allocation with batch-size adaptation (OSDI'21)",
		Long: "Pollux (OSDI'21): a genetic search over the GPUs of every node for the allocation " +
			"of the highest fair (power -1) mean of the jobs' speedups, each job at the batch " +
			"size of its highest goodput (throughput x statistical efficiency), at most one " +
			"multi-node job per node. A predictions table holds speed models and no gradient " +
			"statistics, so here a job's goodput is its speed model's throughput and its " +
			"allocation's current placement is unknown (no restart penalty); optimus simulate " +
			"runs the full model: the job's batch, accumulation, efficiency and restarts, and " +
			"all-reduce jobs only",
		AdaptsBatch: true,
		plan:        func(in *instance, opts Options) *plan { return in.pollux() },
	})
}

// pollux runs goodput.Allocate on the all-reduce jobs of the problem, each
// job's speedup the ratio of its speed model's throughput on the replicas
// to its throughput at its fair share (the GPUs over the jobs), in the
// order of least attained service, then arrival. The search is seeded by
// the number of jobs and nodes: the same problem gives the same plan.
// Parameter-server jobs wait: Pollux schedules all-reduce jobs.
func (in *instance) pollux() *plan {
	pl := in.newPlan()
	var jobs []int
	for _, j := range in.order {
		if in.pre[j] != "" {
			continue
		}
		if !in.p.Jobs[j].allReduce() {
			pl.status[j], pl.reason[j] = Waiting, "pollux: plans all-reduce jobs only"
			continue
		}
		jobs = append(jobs, j)
	}
	slices.SortStableFunc(jobs, func(a, b int) int { return cmp.Compare(in.p.Jobs[a].Attained, in.p.Jobs[b].Attained) })
	prob := &goodput.AllocProblem{Capacity: in.p.Nodes, Seed1: uint64(len(jobs)), Seed2: uint64(len(in.p.Nodes))}
	for _, j := range jobs {
		job := &in.p.Jobs[j]
		sp := job.Speed
		d := 0.0
		for r, x := range job.Worker {
			if in.capacity[r] > 0 {
				d = math.Max(d, x/in.capacity[r])
			}
		}
		fair := 1 // the job's fair share of replicas
		if d > 0 {
			fair = max(1, int(math.Ceil(1/d/float64(len(jobs)))))
		}
		base := sp.Speed(0, fair)
		maxW := job.MaxWorkers
		if maxW <= 0 {
			maxW = math.MaxInt32
		}
		prob.Jobs = append(prob.Jobs, goodput.AllocJob{
			Speedup: func(nodes, replicas int) float64 {
				if replicas <= 0 || !(base > 0) {
					return 0
				}
				return sp.Speed(0, replicas) / base
			},
			Demand: job.Worker, MaxReplicas: maxW, RestartFactor: 1,
		})
	}
	res := goodput.Allocate(prob)
	nn := len(in.p.Nodes)
	for k, j := range jobs {
		w := 0
		for _, c := range res.Best[k*nn : (k+1)*nn] {
			w += c
		}
		if w == 0 {
			pl.status[j], pl.reason[j] = Waiting, "pollux: no GPU in the allocation of the best fair goodput"
			continue
		}
		if misfit := in.tryAdd(pl, j, w, 0); misfit != fitted {
			pl.status[j], pl.reason[j] = Waiting, fmt.Sprintf("pollux: %s for its %d workers", full(misfit), w)
			continue
		}
		pl.status[j], pl.reason[j] = Running, fmt.Sprintf("pollux: %d workers, the allocation of the best fair goodput", w)
	}
	return pl
}
