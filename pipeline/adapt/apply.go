package adapt

// The tables of optimus apply: the plan, the jobs and the cluster read into
// package apply's and package executor's types, and the executors' results
// written as the actions table.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// ReadPlan reads a plan table (optimus place's output). Every task row
// needs role, index and node; a row with role and node null is a job with no
// task (waiting or done). Resource columns (the plan's pattern columns) go
// into each task's Resources. Problems are table errors naming the column
// and row (exit 2).
func ReadPlan(t *table.Table) (apply.Plan, error) {
	resources := ResourceColumns(t, schema.Plan)
	jobs, roles, nodes := t.Strings("job"), t.Strings("role"), t.Strings("node")
	roleOK, nodeOK, idxOK := t.Valid("role"), t.Valid("node"), t.Valid("index")
	idx, kept := t.Int64s("index"), t.Bools("kept")
	status, reason := t.Strings("status"), t.Strings("reason")
	use := make([][]float64, len(resources))
	for r, name := range resources {
		use[r] = t.Float64s(name)
	}
	var p apply.Plan
	seenJob := map[string]int{}      // job -> index in p.Jobs
	firstTask := map[string]int{}    // task name -> row
	jobFirstTask := map[string]int{} // job -> row of its first task
	taskless := map[string]int{}
	for r := range jobs {
		if _, ok := seenJob[jobs[r]]; !ok {
			seenJob[jobs[r]] = len(p.Jobs)
			p.Jobs = append(p.Jobs, apply.PlanJob{Job: jobs[r], Status: status[r], Reason: reason[r]})
		}
		if !roleOK[r] && !nodeOK[r] {
			if f, ok := jobFirstTask[jobs[r]]; ok {
				return apply.Plan{}, t.Errorf("role", r, "job %q has a row without a task and a task at row %d", jobs[r], f+1)
			}
			taskless[jobs[r]] = r
			continue
		}
		switch {
		case !roleOK[r]:
			return apply.Plan{}, t.Errorf("role", r, "no value on a row with a node: a task row needs its role")
		case !nodeOK[r] || nodes[r] == "":
			return apply.Plan{}, t.Errorf("node", r, "no value on a row with a role: a task row needs its node")
		case !idxOK[r]:
			return apply.Plan{}, t.Errorf("index", r, "no value: a task row needs its index")
		}
		if f, ok := taskless[jobs[r]]; ok {
			return apply.Plan{}, t.Errorf("role", r, "job %q has a task and a row without one at row %d", jobs[r], f+1)
		}
		task := executor.Task{Job: jobs[r], Role: roles[r], Index: int(idx[r]), Node: nodes[r], Kept: kept[r],
			Resources: make(map[string]float64, len(resources))}
		if f, dup := firstTask[task.Name()]; dup {
			return apply.Plan{}, t.Errorf("index", r, "task %s appears twice (first at row %d)", task.Name(), f+1)
		}
		firstTask[task.Name()] = r
		if _, ok := jobFirstTask[task.Job]; !ok {
			jobFirstTask[task.Job] = r
		}
		for i, name := range resources {
			task.Resources[name] = use[i][r]
		}
		p.Tasks = append(p.Tasks, task)
	}
	return p, nil
}

// ReadCurrent reads the tasks running now from a previous plan (what
// --current names for the print and exec executors). Rows without a task are
// ignored, and so are the kept marks: they belong to the previous round.
func ReadCurrent(t *table.Table) ([]executor.Task, error) {
	p, err := ReadPlan(t)
	if err != nil {
		return nil, err
	}
	for i := range p.Tasks {
		p.Tasks[i].Kept = false
	}
	return p.Tasks, nil
}

// ReadJobs reads what executors need of each job from a jobs table
// (or any table extending it, such as predictions).
func ReadJobs(t *table.Table) map[string]executor.Job {
	names, model, mode := t.Strings("job"), t.Strings("model"), t.Strings("mode")
	batch, image, command := t.Int64s("global_batch"), t.Strings("image"), t.Strings("command")
	jobs := make(map[string]executor.Job, len(names))
	for r, name := range names {
		jobs[name] = executor.Job{Job: name, Model: model[r], Mode: mode[r], GlobalBatch: batch[r],
			Image: strings.TrimSpace(image[r]), Command: command[r]}
	}
	return jobs
}

// CheckJobsKnown reports the first plan row naming a job the jobs table
// lacks, as a table error on the plan (exit 2).
func CheckJobsKnown(planTable *table.Table, jobs map[string]executor.Job, jobsSource string) error {
	for r, name := range planTable.Strings("job") {
		if _, ok := jobs[name]; !ok {
			return planTable.Errorf("job", r, "job %q is not in the jobs table %s", name, jobsSource)
		}
	}
	return nil
}

// ReadCapacity reads a cluster table into node -> resource ->
// capacity, for executor.ValidatePlan.
func ReadCapacity(t *table.Table) map[string]map[string]float64 {
	resources := ResourceColumns(t, schema.Cluster)
	capacity := make(map[string]map[string]float64, t.NumRows())
	cols := make([][]float64, len(resources))
	for i, name := range resources {
		cols[i] = t.Float64s(name)
	}
	for r, node := range t.Strings("node") {
		capacity[node] = make(map[string]float64, len(resources))
		for i, name := range resources {
			capacity[node][name] = cols[i][r]
		}
	}
	return capacity
}

// ActionsTable turns executor results (and apply.Diff's skipped ones) into the
// actions table, sorted by job (stable: a job's rows keep their order). A
// result with per-task outcomes gives one row per task; one without gives one
// row for the job, with role, index and node null.
func ActionsTable(results []executor.Result) (*table.Table, error) {
	sorted := append([]executor.Result(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Change.Job.Job < sorted[j].Change.Job.Job })
	var (
		job, action, role, node, outcome, message []string
		roleOK, nodeOK, messageOK, indexOK        []bool
		index                                     []int64
	)
	add := func(res executor.Result, t *executor.Task, out, msg string) {
		job, action, outcome = append(job, res.Change.Job.Job), append(action, res.Change.Action), append(outcome, out)
		message, messageOK = append(message, msg), append(messageOK, msg != "")
		if t == nil {
			role, roleOK = append(role, ""), append(roleOK, false)
			index, indexOK = append(index, 0), append(indexOK, false)
			node, nodeOK = append(node, ""), append(nodeOK, false)
			return
		}
		role, roleOK = append(role, t.Role), append(roleOK, true)
		index, indexOK = append(index, int64(t.Index)), append(indexOK, true)
		node, nodeOK = append(node, t.Node), append(nodeOK, t.Node != "")
	}
	for _, res := range sorted {
		if len(res.Tasks) == 0 {
			add(res, nil, res.Outcome, res.Message)
			continue
		}
		for _, tr := range res.Tasks {
			add(res, &tr.Task, tr.Outcome, tr.Message)
		}
	}
	out := table.New(schema.Actions, len(job))
	out.SetStrings("job", job, nil)
	out.SetStrings("action", action, nil)
	out.SetStrings("role", role, roleOK)
	out.SetInt64s("index", index, indexOK)
	out.SetStrings("node", node, nodeOK)
	out.SetStrings("outcome", outcome, nil)
	out.SetStrings("message", message, messageOK)
	t, err := table.Conform(out)
	if err != nil {
		return nil, fmt.Errorf("actions table: %w", err)
	}
	return t, nil
}
