package adapt

import (
	"fmt"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
)

// Assignments reads an allocation table (optimus solve's output) as place's
// view of each job, against the cluster. A resource named like a plan
// column, a missing demand column and an unreadable alloc_nodes value are
// errors naming the file, column and row (exit 2).
func Assignments(alloc *table.Table, c *pipeline.Cluster) ([]pipeline.Assignment, error) {
	for _, r := range c.Resources {
		if _, clash := schema.Plan.Column(r); clash {
			return nil, &table.Error{Source: c.Source, Column: r,
				Msg: "a resource cannot be called like a column of the plan table; rename it"}
		}
	}
	workerDemand, err := Demands(alloc, col.PrefixWorker, c)
	if err != nil {
		return nil, err
	}
	psDemand, err := Demands(alloc, col.PrefixPS, c)
	if err != nil {
		return nil, err
	}
	if err := checkTaskCounts(alloc, col.AllocPS, col.AllocWorkers); err != nil {
		return nil, err
	}
	nodeIndex := NodeIndex(c)
	names := alloc.Strings(col.Job)
	status, reason := alloc.Strings(col.Status), alloc.Strings(col.Reason)
	packing, packingOK := alloc.Strings(col.AllocNodes), alloc.Valid(col.AllocNodes)
	aps, aw := alloc.Int64s(col.AllocPS), alloc.Int64s(col.AllocWorkers)
	foreign := ForeignDemands(alloc, c.Resources)
	modes := alloc.Strings(col.Mode)
	out := make([]pipeline.Assignment, len(names))
	// Every layout's slots in one array, sized by counting the entries.
	entries := 0
	for i, p := range packing {
		if packingOK[i] {
			entries += strings.Count(p, "{")
		}
	}
	slotsOf := make([]layout.Slot, 0, entries)
	for i, name := range names {
		a := pipeline.Assignment{Job: name, PS: int(aps[i]), Workers: int(aw[i]), Status: place.Status(status[i]),
			Reason: reason[i], PSDemand: psDemand[i], WorkerDemand: workerDemand[i], Foreign: foreign[i],
			AllReduce: modes[i] == fit.AllReduce}
		if a.Status == place.Running && packingOK[i] && a.Foreign == "" && (a.PS >= 1 || a.AllReduce) && a.Workers >= 1 {
			var slots []layout.Slot
			var ok bool
			if slots, slotsOf, ok = appendPackingFast(slotsOf, packing[i], nodeIndex); !ok {
				if slots, _, err = ParsePacking(packing[i], nodeIndex); err != nil {
					return nil, &table.Error{Source: alloc.Source, Column: col.AllocNodes, Row: i + 1, Msg: err.Error()}
				}
			}
			// A node the cluster no longer has makes the layout stale: it
			// is dropped (place.Job.Packing also drops one whose counts no
			// longer add up to the allocation).
			a.Packing = slots
		}
		out[i] = a
	}
	return out, nil
}

// PlaceProblem builds place's problem from an allocation table, the
// cluster and, when not nil, the plan running now.
func PlaceProblem(alloc *table.Table, c *pipeline.Cluster, current *table.Table) (*place.Problem, error) {
	as, err := Assignments(alloc, c)
	if err != nil {
		return nil, err
	}
	var cur map[string][]place.Task
	if current != nil {
		if cur, err = CurrentTasks(current, NodeIndex(c)); err != nil {
			return nil, err
		}
	}
	prob, err := pipeline.PlaceProblem(c, as, cur)
	if ae, ok := err.(*pipeline.AssignmentError); ok {
		return nil, &table.Error{Source: alloc.Source, Row: ae.Index + 1, Msg: ae.Msg}
	}
	return prob, err
}

// NodeIndex maps each node's name to its index.
func NodeIndex(c *pipeline.Cluster) map[string]int {
	idx := make(map[string]int, len(c.Nodes))
	for i, n := range c.Nodes {
		idx[n] = i
	}
	return idx
}

// CurrentTasks reads a plan table as the tasks running now, per job, in row
// order; a node the cluster lacks is -1. Rows without a task (waiting jobs)
// are skipped; a task listed twice, or a task row without an index, is an
// error naming the row.
func CurrentTasks(current *table.Table, nodeIndex map[string]int) (map[string][]place.Task, error) {
	jobs, roles, nodes := current.Strings(col.Job), current.Strings(col.Role), current.Strings(col.Node)
	idx, idxOK, roleOK, nodeOK := current.Int64s(col.Index), current.Valid(col.Index), current.Valid(col.Role), current.Valid(col.Node)
	type key struct {
		job, role string
		index     int64
	}
	first := map[key]int{}
	out := map[string][]place.Task{}
	for r := range jobs {
		if !roleOK[r] || !nodeOK[r] {
			continue
		}
		if !idxOK[r] {
			return nil, &table.Error{Source: current.Source, Column: col.Index, Row: r + 1, Msg: "no value: a task row needs its index"}
		}
		if idx[r] >= layout.MaxJobTasks {
			return nil, current.Errorf(col.Index, r, "task index %d: a job has at most %d tasks of a role", idx[r], layout.MaxJobTasks)
		}
		k := key{jobs[r], roles[r], idx[r]}
		if f, dup := first[k]; dup {
			return nil, &table.Error{Source: current.Source, Column: col.Index, Row: r + 1,
				Msg: fmt.Sprintf("task %s %s %d appears twice (first at row %d)", jobs[r], roles[r], idx[r], f+1)}
		}
		first[k] = r
		node, ok := nodeIndex[nodes[r]]
		if !ok {
			node = -1
		}
		role := place.Worker
		if roles[r] == "ps" {
			role = place.PS
		}
		out[jobs[r]] = append(out[jobs[r]], place.Task{Role: role, Index: int(idx[r]), Node: node})
	}
	return out, nil
}

// PlanTable writes a placement as the plan table: one row per task, a job
// without a task placed on one row of its own; the per-job columns are runs
// of one value per job.
func PlanTable(prob *place.Problem, res *place.Result) (*table.Table, error) {
	nj := len(prob.Jobs)
	runs := make([]int, nj) // rows per job: its tasks, or one row when none
	for _, task := range res.Tasks {
		runs[task.Job]++
	}
	rows := 0
	for j := range runs {
		runs[j] = max(runs[j], 1)
		rows += runs[j]
	}
	name, status, reason, method := make([]string, nj), make([]string, nj), make([]string, nj), make([]string, nj)
	reasonOK, methodOK, even := make([]bool, nj), make([]bool, nj), make([]bool, nj)
	jps, jw, servers := make([]int64, nj), make([]int64, nj), make([]int64, nj)
	cross := make([]float64, nj)
	for j := range prob.Jobs {
		jp := &res.Jobs[j]
		name[j], status[j] = prob.Jobs[j].Name, string(jp.Status)
		reason[j], reasonOK[j] = jp.Reason, jp.Reason != ""
		method[j], methodOK[j] = jp.Method, jp.Method != ""
		jps[j], jw[j], servers[j] = int64(jp.PS), int64(jp.Workers), int64(jp.Servers)
		even[j], cross[j] = jp.Even, jp.CrossTraffic
	}
	role, node := make([]string, rows), make([]string, rows)
	roleOK, nodeOK, indexOK, kept := make([]bool, rows), make([]bool, rows), make([]bool, rows), make([]bool, rows)
	index := make([]int64, rows)
	use := make([][]float64, len(prob.Resources))
	for r := range use {
		use[r] = make([]float64, rows)
	}
	row, t := 0, 0
	for j := range prob.Jobs {
		if t >= len(res.Tasks) || res.Tasks[t].Job != j {
			row++ // the job's one row without a task: nulls and zeros
			continue
		}
		for ; t < len(res.Tasks) && res.Tasks[t].Job == j; t++ {
			task := res.Tasks[t]
			role[row], roleOK[row] = task.Role.String(), true
			index[row], indexOK[row] = int64(task.Index), true
			node[row], nodeOK[row] = prob.Nodes[task.Node], true
			kept[row] = task.Kept
			d := prob.Jobs[j].WorkerDemand
			if task.Role == place.PS {
				d = prob.Jobs[j].PSDemand
			}
			for r := range use {
				use[r][row] = d[r]
			}
			row++
		}
	}
	out := table.New(schema.Plan, rows)
	sets := []func(*table.Table){
		func(t *table.Table) { t.SetStringsRepeated(col.Job, name, nil, runs) },
		func(t *table.Table) { t.SetStrings(col.Role, role, roleOK) },
		func(t *table.Table) { t.AdoptInt64s(col.Index, index, indexOK) },
		func(t *table.Table) { t.SetStrings(col.Node, node, nodeOK) },
		func(t *table.Table) { t.SetBools(col.Kept, kept, nil) },
		func(t *table.Table) { t.SetStringsRepeated(col.Status, status, nil, runs) },
		func(t *table.Table) { t.SetStringsRepeated(col.Reason, reason, reasonOK, runs) },
		func(t *table.Table) { t.SetInt64sRepeated(col.JobPS, jps, nil, runs) },
		func(t *table.Table) { t.SetInt64sRepeated(col.JobWorkers, jw, nil, runs) },
		func(t *table.Table) { t.SetInt64sRepeated(col.JobServers, servers, nil, runs) },
		func(t *table.Table) { t.SetStringsRepeated(col.JobMethod, method, methodOK, runs) },
		func(t *table.Table) { t.SetBoolsRepeated(col.JobEven, even, nil, runs) },
		func(t *table.Table) { t.SetFloat64sRepeatedNaNAsNull(col.JobCrossTraffic, cross, runs) },
	}
	for r, name := range prob.Resources {
		sets = append(sets, func(t *table.Table) { t.AdoptFloat64s(name, use[r], nil) })
	}
	// A task row per column: the columns are built side by side.
	out.SetSideBySide(sets...)
	return table.Conform(out)
}
