//go:build tableproto

// A prototype of placecmd.Plan over table.Set*Repeated
// (benchmarks/table-layer.md, recommendation 1), behind a build tag because
// placecmd.Plan and plan_test.go's helpers are moving:
//
//	go test -tags tableproto ./benchmarks -run PlanByJob -bench TablePlan -benchtime 10x

package benchmarks

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/placecmd"
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// planByJob builds the plan table as placecmd.Plan does, with the per-job
// columns as runs of repeated values (table.Set*Repeated) and the per-task
// columns in slices sized once: a sketch for the hand-off code, checked
// against placecmd.Plan by TestPlanByJobIsPlan.
func planByJob(prob *place.Problem, res *place.Result) (*table.Table, error) {
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
	out.SetStringsRepeated("job", name, nil, runs)
	out.SetStrings("role", role, roleOK)
	out.SetInt64s("index", index, indexOK)
	out.SetStrings("node", node, nodeOK)
	out.SetBools("kept", kept, nil)
	out.SetStringsRepeated("status", status, nil, runs)
	out.SetStringsRepeated("reason", reason, reasonOK, runs)
	out.SetInt64sRepeated("job_ps", jps, nil, runs)
	out.SetInt64sRepeated("job_workers", jw, nil, runs)
	out.SetInt64sRepeated("job_servers", servers, nil, runs)
	out.SetStringsRepeated("job_method", method, methodOK, runs)
	out.SetBoolsRepeated("job_even", even, nil, runs)
	out.SetFloat64sRepeatedNaNAsNull("job_cross_traffic", cross, runs)
	for r, name := range prob.Resources {
		out.SetFloat64s(name, use[r], nil)
	}
	return table.Conform(out)
}

func placedWorkload(tb testing.TB) (*place.Problem, *place.Result) {
	cluster, pred, err := datasets.Workload(datasets.WorkloadConfig{Seed: 1, Tasks: 100000, Nodes: 16000, Running: 0.3})
	if err != nil {
		tb.Fatal(err)
	}
	prob, err := solvecmd.BuildProblem(pred, cluster, "p50")
	if err != nil {
		tb.Fatal(err)
	}
	res, err := solve.Solve(prob, solve.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	pp := placeProblem(prob, cluster.Strings("node"), res)
	pres, err := place.Place(pp, place.Options{Policy: place.Optimus, Candidates: place.DefaultCandidates})
	if err != nil {
		tb.Fatal(err)
	}
	return pp, pres
}

func TestPlanByJobIsPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 tasks")
	}
	prob, res := placedWorkload(t)
	want, err := placecmd.Plan(prob, res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := planByJob(prob, res)
	if err != nil {
		t.Fatal(err)
	}
	if d := table.Diff(got, want); d != "" {
		t.Fatal(d)
	}
}

// BenchmarkTablePlan compares placecmd.Plan with planByJob at 100,000
// tasks, from the same placement.
func BenchmarkTablePlan(b *testing.B) {
	prob, res := placedWorkload(b)
	for _, c := range []struct {
		name  string
		build func(*place.Problem, *place.Result) (*table.Table, error)
	}{{"placecmd.Plan", placecmd.Plan}, {"planByJob", planByJob}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.build(prob, res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
