package pipeline

import (
	"fmt"
	"math"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/solve"
)

// Cluster is the nodes a plan is made for.
type Cluster struct {
	// Source names where the cluster came from (a file), for messages.
	Source string
	// Resources names the resource kinds (gpu, cpu, memory_gb, ...).
	Resources []string
	// Nodes names the nodes; Capacity[i] is node i's capacity of each
	// resource.
	Nodes    []string
	Capacity [][]float64
}

// ClusterError is a cluster that can hold nothing.
type ClusterError struct{ Source, Msg string }

func (e *ClusterError) Error() string { return e.Source + ": " + e.Msg }

// Check reports a cluster that can hold nothing: no nodes, or no capacity
// of any resource.
func (c *Cluster) Check() error {
	if len(c.Nodes) == 0 {
		return &ClusterError{c.Source, "no nodes: the cluster table is empty"}
	}
	for _, node := range c.Capacity {
		for _, x := range node {
			if x != 0 {
				return nil
			}
		}
	}
	return &ClusterError{c.Source, fmt.Sprintf("every node has zero capacity of every resource (%s): nothing can run",
		strings.Join(c.Resources, ", "))}
}

// Request is one job as solve sees it, before the checks that decide
// whether it can be planned at all.
type Request struct {
	Job string
	// Arrival orders jobs first come, first served; Weight multiplies the
	// job's remaining time in the objective.
	Arrival, Weight float64
	// Remaining is Q, the steps left, in whatever quantile the caller
	// plans with; RemainingMissing, when not empty, says why there is no
	// prediction.
	Remaining        float64
	RemainingMissing string
	// Speed is f(p, w); SpeedMissing, when not empty, says why the job has
	// no speed model.
	Speed        fit.SpeedModel
	SpeedMissing string
	// Worker and PS are one task's demand of each of the cluster's
	// resources, in Cluster.Resources order.
	Worker, PS []float64
	// Foreign, when not empty, says which resource the cluster lacks that
	// the job's tasks need.
	Foreign string
	// CurPS and CurWorkers run now; MaxPS and MaxWorkers limit the
	// allocation (0: no limit).
	CurPS, CurWorkers, MaxPS, MaxWorkers int
	// Attained, Executed and Waited are what Tiresias ranks by (solve.Job);
	// RequestWorkers the workers the job asks for.
	Attained, Executed, Waited float64
	RequestWorkers             int
}

// SolveProblem builds solve's problem. A job that cannot be planned waits
// with the reason and the others are planned: no prediction wins over no
// speed model; a job with nothing left to do is done whatever its models;
// a demand for a resource the cluster lacks comes last.
func SolveProblem(c *Cluster, reqs []Request) *solve.Problem {
	prob := &solve.Problem{Resources: c.Resources, Nodes: c.Capacity, Jobs: make([]solve.Job, len(reqs))}
	for i, r := range reqs {
		j := solve.Job{
			Name: r.Job, Arrival: r.Arrival, Weight: r.Weight, Remaining: r.Remaining,
			Speed: r.Speed, Worker: r.Worker, PS: r.PS,
			CurPS: r.CurPS, CurWorkers: r.CurWorkers, MaxPS: r.MaxPS, MaxWorkers: r.MaxWorkers,
			Invalid:  r.SpeedMissing,
			Attained: r.Attained, Executed: r.Executed, Waited: r.Waited, RequestWorkers: r.RequestWorkers,
		}
		switch {
		case r.RemainingMissing != "":
			j.Invalid = r.RemainingMissing
			j.Remaining = math.NaN()
		case r.Remaining == 0:
			j.Invalid = "" // done: needs nothing, whatever its models
		case r.Foreign != "":
			j.Invalid = r.Foreign
		}
		if j.Speed.Mode == fit.AllReduce && j.Speed.WorkersPerNode == 0 {
			j.Speed.WorkersPerNode = WorkersPerNode(c, r.Worker)
		}
		prob.Jobs[i] = j
	}
	return prob
}

// WorkersPerNode is how many workers of the given demand the largest node
// of the cluster holds (at least 1): what an all-reduce job's speed model
// assumes when it estimates the nodes w workers span (fit.SpeedModel.Nodes:
// the fewest that hold them, as place packs them).
func WorkersPerNode(c *Cluster, worker []float64) int {
	best := 1
	for _, node := range c.Capacity {
		n := math.MaxInt
		for r, d := range worker {
			if d > 0 && r < len(node) {
				n = min(n, int(math.Floor(node[r]/d+1e-9)))
			}
		}
		if n != math.MaxInt {
			best = max(best, n)
		}
	}
	return best
}
