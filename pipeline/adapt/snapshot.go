package adapt

// The tables of optimus snapshot: what runs on a cluster (package
// executor's Snapshot) as the cluster, plan and jobs tables the pipeline
// starts from.

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/place"
)

// SnapshotCluster is the cluster table of the nodes that may take tasks; left
// is told about the others. Resource columns: gpu, cpu, memory_gb, then
// those the nodes' annotations declare, sorted.
//
// A node listed twice, or a negative or non-finite capacity, is an input
// error naming the node (a source reads the cluster and should refuse
// these itself; this keeps any source from writing a table the next
// command rejects).
func SnapshotCluster(nodes []executor.Node, left func(name, why string)) (*table.Table, []string, error) {
	var usable []executor.Node
	extra := map[string]bool{}
	listed := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if listed[n.Name] {
			return nil, nil, table.Errorf("snapshot", "node %q is listed twice", n.Name)
		}
		listed[n.Name] = true
		if err := checkSnapshotAmounts("node "+strconv.Quote(n.Name)+": capacity", n.Capacity); err != nil {
			return nil, nil, err
		}
	}
	for _, n := range nodes {
		if n.Unusable != "" {
			left(n.Name, n.Unusable)
			continue
		}
		usable = append(usable, n)
		for r := range n.Capacity {
			extra[r] = true
		}
	}
	resources := []string{"gpu", "cpu", "memory_gb"}
	for _, r := range resources {
		delete(extra, r)
	}
	var more []string
	for r := range extra {
		more = append(more, r)
	}
	sort.Strings(more)
	resources = append(resources, more...)
	names := make([]string, len(usable))
	for i, n := range usable {
		names[i] = n.Name
	}
	t := table.New(schema.Cluster, len(usable))
	t.SetStrings("node", names, nil)
	for _, r := range resources {
		col := make([]float64, len(usable))
		for i, n := range usable {
			col[i] = n.Capacity[r]
		}
		t.SetFloat64s(r, col, nil)
	}
	t.Source = "snapshot"
	out, err := table.Conform(t)
	return out, resources, err
}

// checkSnapshotAmounts refuses a negative or non-finite amount.
func checkSnapshotAmounts(what string, amounts map[string]float64) error {
	names := make([]string, 0, len(amounts))
	for r := range amounts {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		if v := amounts[r]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return table.Errorf("snapshot", "%s: %s %g: amounts must be finite and not negative", what, r, v)
		}
	}
	return nil
}

// SnapshotPlan is the plan running now: one row per task, in job, role and
// index order, each job marked running with its counts, servers, evenness
// and cross-server traffic share (as optimus place computes them), and
// every resource column of the cluster and of the tasks. A task listed
// twice, or one with a negative or non-finite resource, is an input error
// naming the task.
func SnapshotPlan(tasks []executor.Task, resources []string) (*table.Table, error) {
	named := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		if named[t.Name()] {
			return nil, table.Errorf("snapshot", "task %s is listed twice", t.Name())
		}
		named[t.Name()] = true
		if err := checkSnapshotAmounts("task "+t.Name()+": resources", t.Resources); err != nil {
			return nil, err
		}
	}
	cols := append([]string(nil), resources...)
	seen := map[string]bool{}
	for _, r := range cols {
		seen[r] = true
	}
	var more []string
	for _, t := range tasks {
		for r := range t.Resources {
			if !seen[r] {
				seen[r] = true
				more = append(more, r)
			}
		}
	}
	sort.Strings(more)
	cols = append(cols, more...)

	type jobStats struct {
		ps, workers int
		nodes       []string // in the order first met
		perNode     map[string][2]int
		even        bool
		cross       float64
	}
	stats := map[string]*jobStats{}
	var order []*jobStats
	for _, t := range tasks {
		s := stats[t.Job]
		if s == nil {
			s = &jobStats{perNode: map[string][2]int{}}
			stats[t.Job] = s
			order = append(order, s)
		}
		c, seen := s.perNode[t.Node]
		if !seen {
			s.nodes = append(s.nodes, t.Node)
		}
		if t.Role == executor.RolePS {
			s.ps++
			c[0]++
		} else {
			s.workers++
			c[1]++
		}
		s.perNode[t.Node] = c
	}
	for _, s := range order {
		s.even, s.cross = place.JobSpread(len(s.nodes), func(i int) (int, int) {
			c := s.perNode[s.nodes[i]]
			return c[0], c[1]
		})
	}
	n := len(tasks)
	job, role, node, status := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	index, jps, jw, servers := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	kept, even := make([]bool, n), make([]bool, n)
	cross := make([]float64, n)
	use := make([][]float64, len(cols))
	for i := range use {
		use[i] = make([]float64, n)
	}
	for i, t := range tasks {
		s := stats[t.Job]
		job[i], role[i], node[i], status[i], index[i] = t.Job, t.Role, t.Node, "running", int64(t.Index)
		jps[i], jw[i], servers[i] = int64(s.ps), int64(s.workers), int64(len(s.perNode))
		even[i], cross[i] = s.even, s.cross
		for r, name := range cols {
			use[r][i] = t.Resources[name]
		}
	}
	out := table.New(schema.Plan, n)
	out.SetStrings("job", job, nil)
	out.SetStrings("role", role, nil)
	out.SetInt64s("index", index, nil)
	out.SetStrings("node", node, nil)
	out.SetBools("kept", kept, nil)
	out.SetStrings("status", status, nil)
	out.SetStrings("reason", make([]string, n), make([]bool, n))
	out.SetInt64s("job_ps", jps, nil)
	out.SetInt64s("job_workers", jw, nil)
	out.SetInt64s("job_servers", servers, nil)
	out.SetStrings("job_method", make([]string, n), make([]bool, n))
	out.SetBools("job_even", even, nil)
	out.SetFloat64sNaNAsNull("job_cross_traffic", cross)
	for r, name := range cols {
		out.SetFloat64s(name, use[r], nil)
	}
	out.Source = "snapshot"
	return table.Conform(out)
}

// SnapshotJobs is the user's jobs table with ps and workers set to what runs
// now; unknown is told about running jobs the table lacks.
func SnapshotJobs(jobs *table.Table, tasks []executor.Task, unknown func(job string, tasks int)) (*table.Table, error) {
	ps, workers := map[string]int64{}, map[string]int64{}
	count := map[string]int{}
	for _, t := range tasks {
		count[t.Job]++
		if t.Role == executor.RolePS {
			ps[t.Job]++
		} else {
			workers[t.Job]++
		}
	}
	names := jobs.Strings("job")
	known := map[string]bool{}
	p, w := make([]int64, len(names)), make([]int64, len(names))
	for i, name := range names {
		known[name] = true
		p[i], w[i] = ps[name], workers[name]
	}
	var missing []string
	for job := range count {
		if !known[job] {
			missing = append(missing, job)
		}
	}
	sort.Strings(missing)
	for _, job := range missing {
		unknown(job, count[job])
	}
	jobs.SetInt64s("ps", p, nil)
	jobs.SetInt64s("workers", w, nil)
	out, err := table.Conform(jobs)
	if err != nil {
		return nil, fmt.Errorf("jobs table with the running ps and workers: %w", err)
	}
	return out, nil
}
