package solve

import (
	"math"
	"reflect"
	"slices"
)

// TiresiasMemo remembers the last problem a Tiresias solve was given and
// its result, so that a caller solving round after round (optimus
// simulate) need not solve again a round whose decisions cannot differ
// from the round before's. The zero value is ready to use.
type TiresiasMemo struct {
	opts      Options
	resources []string
	nodes     [][]float64
	jobs      []tiresiasJobKey
	spare     []tiresiasJobKey // the buffer of the next call's keys
	res       *Result
}

// tiresiasJobKey is what Tiresias' decisions for one job depend on,
// besides the cluster and the options: tiresias (its queue, the starvation
// guard's verdict, its request), eligibility (the checks that pass for
// every job the memo takes: a finite remaining > 0, a finite weight > 0, a
// usable speed at its fewest PS and one worker; an all-reduce job's
// CurPS), the packing (the demands, in arrival order) and the order.
type tiresiasJobKey struct {
	name                                            string
	arrival                                         float64
	allReduce                                       bool
	curPS, curWorkers, maxPS, maxWorkers, reqWorker int
	queue                                           int
	worker, ps                                      []float64
}

// Solve returns Solve(p, opts). When opts' policy is Tiresias and p
// differs from the problem of the last call only where Tiresias' decisions
// do not look (the remaining steps and speed models, within what makes a
// job eligible; the attained, executed and waited time, within the same
// queue and the same verdict of the starvation guard), it returns the last
// call's *Result without solving: its Decisions' PS, Workers, Status and
// Reason and its Packing are then Solve's for p, but its other fields
// (speeds, completion times, savings, objective) are those of the last
// problem. A caller that reads more than the decisions and the packing
// calls Solve.
func (m *TiresiasMemo) Solve(p *Problem, opts Options) (*Result, error) {
	full := opts.WithDefaults()
	if full.Policy != Tiresias {
		return Solve(p, opts)
	}
	jobs, ok := tiresiasKeys(p, full, m.spare)
	m.spare = jobs
	if ok && m.res != nil && slices.Equal(m.resources, p.Resources) && slices.EqualFunc(m.nodes, p.Nodes, slices.Equal[[]float64]) &&
		reflect.DeepEqual(m.opts, full) && slices.EqualFunc(m.jobs, jobs, sameTiresiasJob) {
		return m.res, nil
	}
	res, err := Solve(p, opts)
	if err != nil || !ok {
		m.res = nil
		return res, err
	}
	// Kept: copies of what the caller may change afterwards.
	m.opts = full
	m.opts.TiresiasThresholds = slices.Clone(full.TiresiasThresholds)
	m.resources = slices.Clone(p.Resources)
	m.nodes = make([][]float64, len(p.Nodes))
	for i, n := range p.Nodes {
		m.nodes[i] = slices.Clone(n)
	}
	m.jobs, m.spare = jobs, m.jobs
	for i := range m.jobs {
		m.jobs[i].worker, m.jobs[i].ps = slices.Clone(m.jobs[i].worker), slices.Clone(m.jobs[i].ps)
	}
	m.res = res
	return res, nil
}

// tiresiasKeys is every job's key, and false when some job is one whose
// decision (its reason) depends on more than its key: a job not eligible
// for want of a usable prediction, weight or speed model, or an invalid one.
func tiresiasKeys(p *Problem, opts Options, out []tiresiasJobKey) ([]tiresiasJobKey, bool) {
	out = out[:0]
	for i := range p.Jobs {
		j := &p.Jobs[i]
		if j.Invalid != "" || !(j.Remaining > 0) || math.IsInf(j.Remaining, 0) || !(j.Weight > 0) || math.IsInf(j.Weight, 0) {
			return out, false
		}
		if s := j.Speed.Speed(j.minPS(), 1); !(s > 0) || math.IsInf(s, 0) {
			return out, false
		}
		q := 0
		for _, th := range opts.TiresiasThresholds {
			if j.Attained >= th {
				q++
			}
		}
		if opts.TiresiasStarve > 0 && q > 0 && j.Waited >= opts.TiresiasStarve*j.Executed {
			q = 0
		}
		out = append(out, tiresiasJobKey{name: j.Name, arrival: j.Arrival, allReduce: j.allReduce(),
			curPS: j.CurPS, curWorkers: j.CurWorkers, maxPS: j.MaxPS, maxWorkers: j.MaxWorkers, reqWorker: j.RequestWorkers,
			queue: q, worker: j.Worker, ps: j.PS})
	}
	return out, true
}

func sameTiresiasJob(a, b tiresiasJobKey) bool {
	return a.name == b.name && a.arrival == b.arrival && a.allReduce == b.allReduce && a.curPS == b.curPS &&
		a.curWorkers == b.curWorkers && a.maxPS == b.maxPS && a.maxWorkers == b.maxWorkers && a.reqWorker == b.reqWorker &&
		a.queue == b.queue &&
		slices.Equal(a.worker, b.worker) && slices.Equal(a.ps, b.ps)
}
