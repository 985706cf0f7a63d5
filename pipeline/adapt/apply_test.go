package adapt_test

import (
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/pipeline/adapt/adapttest"
)

// testbed is apply/testdata's testbed plan and jobs.
func testbed(t *testing.T) (apply.Plan, map[string]executor.Job) { return adapttest.Testbed(t) }

func TestReadPlan(t *testing.T) {
	plan, jobs := testbed(t)
	first := plan.Tasks[0]
	if first.Name() != "resnet50-a-ps-0" || first.Node != "cpu-01" || first.Resources["cpu"] != 3 || first.Resources["memory_gb"] != 9 || first.Resources["gpu"] != 0 {
		t.Errorf("first task %+v, want resnet50-a-ps-0 on cpu-01 using 3 cpu, 9 memory_gb, 0 gpu", first)
	}
	if len(first.Resources) != 4 {
		t.Errorf("resources %v, want gpu, cpu, memory_gb, net_gbps", first.Resources)
	}
	j := jobs["seq2seq-a"]
	if j.Image != "example.com/optimus/mxnet-train:1.9" || j.Mode != "sync" || j.GlobalBatch != 64 || j.Model != "seq2seq" ||
		j.Command != "python sockeye.train --encoder rnn --decoder rnn --kv-store dist_sync" {
		t.Errorf("seq2seq-a: %+v", j)
	}
}

func TestReadPlanBadRows(t *testing.T) {
	header := "job,role,index,node,kept,status,gpu\n"
	tests := []struct{ name, csv, want string }{
		{"role without node", "a,ps,0,,false,running,0\n", `column "node", row 1 (line 2): no value on a row with a role`},
		{"node without role", "a,,0,n1,false,running,0\n", `column "role", row 1 (line 2): no value on a row with a node`},
		{"no index", "a,ps,,n1,false,running,0\n", `column "index", row 1 (line 2): no value`},
		{"twice", "a,ps,0,n1,false,running,0\na,ps,0,n2,false,running,0\n", `row 2 (line 3): task a-ps-0 appears twice (first at row 1)`},
		{"task and no task", "a,ps,0,n1,false,running,0\na,,,,false,waiting,0\n", `row 2 (line 3): job "a" has a row without a task and a task at row 1`},
	}
	for _, tt := range tests {
		pt, err := table.Decode([]byte(header+tt.csv), table.CSV, "plan.csv", schema.Plan)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, err = adapt.ReadPlan(pt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckJobsKnown(t *testing.T) {
	pt, err := table.Decode([]byte("job,role,index,node,gpu\na,ps,0,n1,0\nghost,ps,0,n1,0\n"), table.CSV, "plan.csv", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	err = adapt.CheckJobsKnown(pt, map[string]executor.Job{"a": {Job: "a"}}, "jobs.csv")
	if want := `plan.csv: column "job", row 2 (line 3): job "ghost" is not in the jobs table jobs.csv`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestReadCapacity(t *testing.T) {
	ct, err := table.ReadFile("../../apply/testdata/cluster.csv", schema.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	c := adapt.ReadCapacity(ct)
	if len(c) != 13 || c["gpu-01"]["gpu"] != 4 || c["cpu-07"]["memory_gb"] != 128 || c["cpu-07"]["gpu"] != 0 {
		t.Errorf("capacity %v", c)
	}
}

func TestActionsTable(t *testing.T) {
	task := executor.Task{Job: "b", Role: executor.RoleWorker, Index: 1, Node: "n2"}
	results := []executor.Result{
		{Change: executor.Change{Job: executor.Job{Job: "b"}, Action: executor.ActionStart}, Outcome: executor.OutcomeDone,
			Tasks: []executor.TaskResult{{Task: task, Outcome: executor.OutcomeFailed, Message: "quota"}}},
		{Change: executor.Change{Job: executor.Job{Job: "a"}, Action: executor.ActionStop}, Outcome: executor.OutcomeSkipped, Message: "not running"},
	}
	out, err := adapt.ActionsTable(results)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := table.Write(&b, table.CSV, out); err != nil {
		t.Fatal(err)
	}
	want := "job,action,role,index,node,outcome,message\na,stop,,,,skipped,not running\nb,start,worker,1,n2,failed,quota\n"
	if b.String() != want {
		t.Errorf("actions table:\n%s\nwant\n%s", b.String(), want)
	}
	if apply.Failed(results) != 1 {
		t.Errorf("Failed = %d, want 1", apply.Failed(results))
	}
}
