package adapt

import (
	"fmt"
	"math"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/solve"
)

// Requests reads a predictions table as solve's requests, planning with
// the given quantile (p10, p50 or p90) of the remaining steps. Whole-table
// problems (a demand column missing for a cluster resource, no job with a
// prediction) are errors naming the file and column; a problem of one job
// (no prediction, no speed model, a demand for a resource the cluster
// lacks) is said in its request, naming its row, and makes it wait.
func Requests(pred *table.Table, c *pipeline.Cluster, quantile string) ([]pipeline.Request, error) {
	workerDemand, err := Demands(pred, col.PrefixWorker, c)
	if err != nil {
		return nil, err
	}
	psDemand, err := Demands(pred, col.PrefixPS, c)
	if err != nil {
		return nil, err
	}
	if err := checkTaskCounts(pred, col.PS, col.Workers, col.MaxPS, col.MaxWorkers); err != nil {
		return nil, err
	}
	n := pred.NumRows()
	remCol := "remaining_steps_" + quantile
	remaining, remOK := pred.Float64s(remCol), pred.Valid(remCol)
	if n > 0 && !anyTrue(remOK) {
		return nil, &table.Error{Source: pred.Source, Column: remCol,
			Msg: "no job has a value: solve needs each job's predicted remaining steps, as optimus predict (or optimus datasets generate) writes them"}
	}
	for i := range n {
		if remOK[i] && remaining[i] > MaxSteps {
			return nil, pred.Errorf(remCol, i, "%g steps: more than a step counter holds (2^63)", remaining[i])
		}
	}
	var theta [5][]float64
	var thetaOK [5][]bool
	for k := range theta {
		name := fmt.Sprintf("speed_theta%d", k)
		theta[k], thetaOK[k] = pred.Float64s(name), pred.Valid(name)
	}
	names, modes := pred.Strings(col.Job), pred.Strings(col.Mode)
	batch := pred.Int64s(col.GlobalBatch)
	arrival, weight := pred.Float64s(col.ArrivalS), pred.Float64s(col.Weight)
	curPS, curW := pred.Int64s(col.PS), pred.Int64s(col.Workers)
	maxPS, maxW := pred.Int64s(col.MaxPS), pred.Int64s(col.MaxWorkers)
	maxPSOK, maxWOK := pred.Valid(col.MaxPS), pred.Valid(col.MaxWorkers)
	foreign := ForeignDemands(pred, c.Resources)

	reqs := make([]pipeline.Request, n)
	for i := range n {
		r := pipeline.Request{
			Job: names[i], Arrival: arrival[i], Weight: weight[i], Remaining: remaining[i],
			Speed:  fit.SpeedModel{Mode: modes[i], GlobalBatch: float64(batch[i])},
			Worker: workerDemand[i], PS: psDemand[i],
			CurPS: int(curPS[i]), CurWorkers: int(curW[i]), Foreign: foreign[i],
		}
		if maxPSOK[i] {
			r.MaxPS = int(maxPS[i])
		}
		if maxWOK[i] {
			r.MaxWorkers = int(maxW[i])
		}
		for k := range fit.NumTheta(modes[i]) {
			if !thetaOK[k][i] {
				r.SpeedMissing = fmt.Sprintf("no speed model: speed_theta%d is null (%s row %d)", k, pred.Source, i+1)
				break
			}
			r.Speed.Theta[k] = theta[k][i]
		}
		if !remOK[i] {
			r.RemainingMissing = fmt.Sprintf("no prediction: %s is null (%s row %d)", remCol, pred.Source, i+1)
		}
		reqs[i] = r
	}
	return reqs, nil
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// AllocationTable returns the predictions table with the decisions added:
// the allocation table. nodes names the cluster's nodes (for alloc_nodes).
func AllocationTable(pred *table.Table, res *solve.Result, nodes []string) (*table.Table, error) {
	out := pred.Take(identity(pred.NumRows()))
	out.Name, out.Version = schema.Allocation.Name, schema.Allocation.Version
	n := len(res.Decisions)
	policy := make([]string, n)
	ps, wk := make([]int64, n), make([]int64, n)
	speed, completion, gain, next, share, saves := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	changed := make([]bool, n)
	status, reason := make([]string, n), make([]string, n)
	reasonOK := make([]bool, n)
	for i, d := range res.Decisions {
		if err := checkFinite(pred, i, d); err != nil {
			return nil, err
		}
		policy[i] = string(res.Policy)
		ps[i], wk[i] = int64(d.PS), int64(d.Workers)
		speed[i], completion[i], gain[i], next[i] = d.Speed, d.Completion, d.Gain, d.NextGain
		share[i], saves[i], changed[i] = d.DominantShare, d.ChangeSaves, d.Changed
		status[i], reason[i], reasonOK[i] = string(d.Status), d.Reason, d.Reason != ""
	}
	out.SetStrings(col.AllocPolicy, policy, nil)
	out.AdoptInt64s(col.AllocPS, ps, nil)
	out.AdoptInt64s(col.AllocWorkers, wk, nil)
	out.SetFloat64sNaNAsNull(col.AllocSpeed, speed)
	out.SetFloat64sNaNAsNull(col.AllocCompletionS, completion)
	out.SetFloat64sNaNAsNull(col.AllocGain, gain)
	out.SetFloat64sNaNAsNull(col.AllocNextGain, next)
	out.AdoptFloat64s(col.AllocDominantShare, share, nil)
	out.SetBools(col.AllocChanged, changed, nil)
	out.SetFloat64sNaNAsNull(col.AllocChangeSavesS, saves)
	packing, packingOK := PackingColumn(res, nodes)
	out.SetStrings(col.AllocNodes, packing, packingOK)
	out.SetStrings(col.Status, status, nil)
	out.SetStrings(col.Reason, reason, reasonOK)
	return table.Conform(out)
}

// MaxSteps bounds a job's remaining steps (and its epoch budget in steps):
// what an int64 step counter holds. Beyond it a job's completion time, and
// the gains solve weighs it by, overflow.
const MaxSteps = math.MaxInt64

// checkFinite refuses a decision whose times or gains overflowed: the
// job's predictions (remaining steps, weight, speed model) are out of any
// range the computation holds, which is the input's fault, not solve's.
func checkFinite(pred *table.Table, row int, d solve.Decision) error {
	for _, v := range []struct {
		name  string
		value float64
	}{{col.AllocSpeed, d.Speed}, {col.AllocCompletionS, d.Completion}, {col.AllocGain, d.Gain}, {col.AllocNextGain, d.NextGain}, {col.AllocChangeSavesS, d.ChangeSaves}} {
		if math.IsInf(v.value, 0) {
			return &table.Error{Source: pred.Source, Row: row + 1,
				Msg: fmt.Sprintf("job %q: its %s overflows (%g): its remaining steps, weight or speed model are out of range", pred.Strings(col.Job)[row], v.name, v.value)}
		}
	}
	return nil
}

// SolveProblem reads the cluster and a predictions table into solve's
// problem, planning with the given quantile of the remaining steps.
func SolveProblem(pred, cluster *table.Table, quantile string) (*pipeline.Cluster, *solve.Problem, error) {
	c, err := Cluster(cluster)
	if err != nil {
		return nil, nil, err
	}
	reqs, err := Requests(pred, c, quantile)
	if err != nil {
		return nil, nil, err
	}
	return c, pipeline.SolveProblem(c, reqs), nil
}
