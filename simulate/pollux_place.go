package simulate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// polluxPlace places solve's decisions as Pollux's simulator places its
// Optimus' and Tiresias' allocations (optimus.py, tiresias.py): a running
// job whose worker count is unchanged keeps its tasks; the others, in
// ascending worker count for optimus (queue, then arrival, for Tiresias),
// each take GPUs from the node with the most free GPUs (the first such
// node on a tie), as many as it has or the job still needs, until placed.
// Only for all-reduce jobs of one GPU a worker on a cluster whose only
// resource is gpu (the Pollux input).
func polluxPlace(c *pipeline.Cluster, active []*jobRun, res *solve.Result, opts solve.Options) (map[string]pipeline.Running, []string, []string, error) {
	if len(c.Resources) != 1 || c.Resources[0] != "gpu" {
		return nil, nil, nil, fmt.Errorf("pollux placement: the cluster must have gpu as its only resource, not %s", strings.Join(c.Resources, ", "))
	}
	free := make([]int, len(c.Nodes))
	for i, cp := range c.Capacity {
		free[i] = int(cp[0] + 1e-9)
	}
	n := len(active)
	state := map[string]pipeline.Running{}
	status, reason := make([]string, n), make([]string, n)
	var place_ []int
	for i, j := range active {
		if len(j.job.Worker) != 1 || j.job.Worker[0] != 1 || j.job.Mode != "allreduce" {
			return nil, nil, nil, fmt.Errorf("pollux placement: job %q is not an all-reduce job of 1 GPU a worker", j.job.Name)
		}
		d := res.Decisions[i]
		reason[i] = d.Reason
		status[i] = string(place.Waiting)
		if d.Workers <= 0 {
			continue
		}
		status[i] = string(place.Running)
		if j.run.Workers == d.Workers && len(j.run.Tasks) == d.Workers {
			state[j.job.Name] = j.run
			for _, t := range j.run.Tasks {
				free[t.Node]--
			}
			continue
		}
		place_ = append(place_, i)
	}
	queue := func(i int) int {
		q := 0
		for _, th := range opts.TiresiasThresholds {
			if active[i].attained >= th {
				q++
			}
		}
		return q
	}
	slices.SortStableFunc(place_, func(a, b int) int {
		if opts.Policy == solve.Tiresias {
			return queue(a) - queue(b)
		}
		return res.Decisions[a].Workers - res.Decisions[b].Workers
	})
	for _, i := range place_ {
		w := res.Decisions[i].Workers
		var r pipeline.Running
		for len(r.Tasks) < w {
			best := -1
			for k, f := range free {
				if f > 0 && (best < 0 || f > free[best]) {
					best = k
				}
			}
			if best < 0 {
				return nil, nil, nil, fmt.Errorf("pollux placement: job %q: no free GPU for its %d workers", active[i].job.Name, w)
			}
			take := min(free[best], w-len(r.Tasks))
			for range take {
				r.Tasks = append(r.Tasks, place.Task{Role: place.Worker, Index: len(r.Tasks), Node: best})
			}
			free[best] -= take
		}
		r.Workers = w
		state[active[i].job.Name] = r
	}
	return state, status, reason, nil
}
