package apply_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	execexec "github.com/optimus-sched/optimus/executor/exec"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// allReduce is testdata/allreduce: the pipeline's plan for 8 all-reduce
// jobs of Pollux's workload-1 on 6 nodes of 4 GPUs (its README says how
// it was made).
func allReduce(t *testing.T) (apply.Plan, map[string]executor.Job) {
	t.Helper()
	pt, err := table.ReadFile("testdata/allreduce/plan.csv", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := adapt.ReadPlan(pt)
	if err != nil {
		t.Fatal(err)
	}
	jt, err := table.ReadFile("testdata/allreduce/jobs.csv", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	return plan, adapt.ReadJobs(jt)
}

// An all-reduce plan starts workers only: no PS task in any change, and
// the words say so.
func TestDiffAllReduce(t *testing.T) {
	plan, jobs := allReduce(t)
	changes, skipped := apply.Diff(plan, nil, jobs, apply.Options{Generation: apply.Generation(plan)})
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	var got []string
	tasks := 0
	for _, c := range changes {
		got = append(got, c.Job.Job+" "+c.Action+": "+apply.Describe(c))
		for _, tk := range c.To {
			tasks++
			if tk.Role != executor.RoleWorker || tk.Resources["gpu"] != 1 {
				t.Errorf("%s: role %s, %v GPUs; want a worker of 1 GPU", tk.Name(), tk.Role, tk.Resources["gpu"])
			}
		}
		if c.Job.Mode != "allreduce" {
			t.Errorf("%s: mode %q", c.Job.Job, c.Job.Mode)
		}
	}
	want := []string{
		"cifar10-0 start: start 1 worker on node-00",
		"cifar10-4 start: start 1 worker on node-00",
		"cifar10-40 start: start 1 worker on node-00",
		"cifar10-41 start: start 1 worker on node-00",
		"cifar10-43 start: start 1 worker on node-01",
		"deepspeech2-1 start: start 2 workers on node-01",
		"imagenet-11 start: start 14 workers on node-01, node-02, node-03, node-04, node-05",
		"yolov3-31 start: start 3 workers on node-02",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("changes:\n%s\nwant:\n%s", g, w)
	}
	if tasks != 24 {
		t.Errorf("%d tasks started, want the 24 GPUs", tasks)
	}
	// The same plan again: nothing to do.
	if changes, _ := apply.Diff(plan, plan.Tasks, jobs, apply.Options{Generation: apply.Generation(plan)}); len(changes) != 0 {
		t.Errorf("the plan that runs: %d changes", len(changes))
	}
}

// The exec executor on an all-reduce plan calls the program with --ps 0
// and the job's workers, and its request lists worker tasks only. (Here
// rather than in executor/exec, so that exec's test binary does not link
// the table readers this plan is read with.)
func TestExecArgsAllReduce(t *testing.T) {
	plan, jobs := allReduce(t)
	changes, _ := apply.Diff(plan, nil, jobs, apply.Options{Generation: "g1"})
	found := false
	for _, c := range changes {
		req := execexec.NewRequest(c)
		if req.Job.Mode != "allreduce" || len(req.To) != len(c.To) {
			t.Errorf("%s: request mode %q, %d tasks", c.Job.Job, req.Job.Mode, len(req.To))
		}
		for _, tk := range req.To {
			if tk.Role != executor.RoleWorker || tk.Resources["gpu"] != 1 {
				t.Errorf("%s: task %s role %s, %v GPUs", c.Job.Job, tk.Name, tk.Role, tk.Resources["gpu"])
			}
		}
		if c.Job.Job == "imagenet-11" {
			found = true
			want := []string{"start", "imagenet-11", "--generation", "g1", "--ps", "0", "--workers", "14"}
			if got := execexec.Args(c); !slices.Equal(got, want) {
				t.Errorf("args %q, want %q", got, want)
			}
		}
	}
	if !found || len(changes) != 8 {
		t.Errorf("%d changes, imagenet-11 among them: %v", len(changes), found)
	}
}
