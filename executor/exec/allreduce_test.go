package exec

import (
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// An all-reduce plan (apply/testdata/allreduce: 8 jobs of Pollux's
// workload-1, workers only) calls the program with --ps 0 and the job's
// workers, and its request lists worker tasks only.
func TestArgsAllReduce(t *testing.T) {
	pt, err := table.ReadFile("../../apply/testdata/allreduce/plan.csv", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := adapt.ReadPlan(pt)
	if err != nil {
		t.Fatal(err)
	}
	jt, err := table.ReadFile("../../apply/testdata/allreduce/jobs.csv", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := apply.Diff(plan, nil, adapt.ReadJobs(jt), apply.Options{Generation: "g1"})
	found := false
	for _, c := range changes {
		req := NewRequest(c)
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
			if got := Args(c); !slices.Equal(got, want) {
				t.Errorf("args %q, want %q", got, want)
			}
		}
	}
	if !found || len(changes) != 8 {
		t.Errorf("%d changes, imagenet-11 among them: %v", len(changes), found)
	}
}
