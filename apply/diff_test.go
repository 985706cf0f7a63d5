package apply_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// testdata/{plan,jobs,cluster}.csv are the testbed's plan, jobs and cluster:
//
//	optimus datasets export testbed -o tb
//	scripts/demo.sh's fit, predict, solve and place over it
//	optimus convert -i out/plan.parquet -o apply/testdata/plan.csv (and the same for jobs, cluster)
func testbed(t *testing.T) (apply.Plan, map[string]executor.Job) {
	t.Helper()
	pt, err := table.ReadFile("testdata/plan.csv", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := adapt.ReadPlan(pt)
	if err != nil {
		t.Fatal(err)
	}
	jt, err := table.ReadFile("testdata/jobs.csv", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	return plan, adapt.ReadJobs(jt)
}

// clone copies a plan deeply enough for a test to change its tasks.
func clone(p apply.Plan) apply.Plan {
	return apply.Plan{Jobs: append([]apply.PlanJob(nil), p.Jobs...), Tasks: append([]executor.Task(nil), p.Tasks...)}
}

// withoutTask drops one task.
func withoutTask(p apply.Plan, name string) apply.Plan {
	out := clone(p)
	out.Tasks = out.Tasks[:0]
	for _, t := range p.Tasks {
		if t.Name() != name {
			out.Tasks = append(out.Tasks, t)
		}
	}
	return out
}

// moved puts one task on another node.
func moved(p apply.Plan, name, node string) apply.Plan {
	out := clone(p)
	for i, t := range out.Tasks {
		if t.Name() == name {
			out.Tasks[i].Node = node
		}
	}
	return out
}

// waiting makes a job wait: no tasks, status waiting.
func waiting(p apply.Plan, job string) apply.Plan {
	out := clone(p)
	out.Tasks = out.Tasks[:0]
	for _, t := range p.Tasks {
		if t.Job != job {
			out.Tasks = append(out.Tasks, t)
		}
	}
	for i := range out.Jobs {
		if out.Jobs[i].Job == job {
			out.Jobs[i] = apply.PlanJob{Job: job, Status: "waiting", Reason: "cluster full"}
		}
	}
	return out
}

// withoutJob removes a job from the plan altogether.
func withoutJob(p apply.Plan, job string) apply.Plan {
	out := waiting(p, job)
	jobs := out.Jobs[:0]
	for _, j := range out.Jobs {
		if j.Job != job {
			jobs = append(jobs, j)
		}
	}
	out.Jobs = jobs
	return out
}

// keptAll marks every task of a job kept.
func keptAll(p apply.Plan, job string) apply.Plan {
	out := clone(p)
	for i := range out.Tasks {
		if out.Tasks[i].Job == job {
			out.Tasks[i].Kept = true
		}
	}
	return out
}

// summary is one line per change ("job action") and per skipped result
// ("job action skipped: message").
func summary(changes []executor.Change, skipped []executor.Result) []string {
	var out []string
	for _, c := range changes {
		out = append(out, fmt.Sprintf("%s %s: %s", c.Job.Job, c.Action, apply.Describe(c)))
	}
	for _, r := range skipped {
		out = append(out, fmt.Sprintf("%s %s skipped: %s", r.Change.Job.Job, r.Change.Action, r.Message))
	}
	return out
}

func allSkippedBut(plan apply.Plan, except map[string]bool) []string {
	var out []string
	for _, j := range plan.Jobs {
		if !except[j.Job] {
			out = append(out, j.Job)
		}
	}
	return out
}

func TestDiff(t *testing.T) {
	plan, jobs := testbed(t)
	if len(plan.Jobs) != 9 || len(plan.Tasks) != 60 {
		t.Fatalf("testbed plan: %d jobs, %d tasks; want 9 and 60", len(plan.Jobs), len(plan.Tasks))
	}
	tests := []struct {
		name    string
		plan    apply.Plan
		current []executor.Task
		opts    apply.Options
		// want lists the changes; every other job of the plan must be a
		// skipped "start" (already running as planned) unless listed in
		// wantSkipped.
		want        []string
		wantSkipped []string
		fresh       bool // nothing runs: every job is a change
	}{
		{
			name: "fresh: every job starts", plan: plan, fresh: true,
			want: []string{
				"dssm-a start: start 1 ps + 3 workers on gpu-02, gpu-04",
				"inception-a start: start 3 ps + 1 worker on gpu-01",
				"inception-b start: start 5 ps + 2 workers on cpu-02, cpu-05, cpu-06, gpu-05, gpu-06",
				"resnet50-a start: start 5 ps + 1 worker on cpu-01, cpu-03, gpu-01",
				"resnet50-b start: start 9 ps + 2 workers on cpu-01, cpu-02, cpu-03, cpu-05, gpu-03, gpu-06",
				"seq2seq-a start: start 2 ps + 2 workers on gpu-03",
				"seq2seq-b start: start 6 ps + 2 workers on cpu-04, cpu-05, cpu-07, gpu-04, gpu-05",
				"vgg16-a start: start 7 ps + 2 workers on cpu-02, cpu-04, cpu-05, cpu-06, cpu-07, gpu-02, gpu-05",
				"vgg16-b start: start 6 ps + 1 worker on cpu-01, cpu-03, cpu-04, cpu-06, cpu-07, gpu-04, gpu-06",
			},
		},
		{name: "same plan again: all skipped", plan: plan, current: plan.Tasks},
		{
			name: "one worker fewer: resize", plan: withoutTask(plan, "dssm-a-worker-2"), current: plan.Tasks,
			want: []string{"dssm-a resize: resize from 1 ps + 3 workers on gpu-02, gpu-04 to 1 ps + 2 workers on gpu-02 (checkpoint, then restart)"},
		},
		{
			name: "one worker more: resize", plan: plan, current: withoutTask(plan, "dssm-a-worker-2").Tasks,
			want: []string{"dssm-a resize: resize from 1 ps + 2 workers on gpu-02 to 1 ps + 3 workers on gpu-02, gpu-04 (checkpoint, then restart)"},
		},
		{
			name: "one worker elsewhere: move", plan: moved(plan, "seq2seq-a-worker-1", "gpu-04"), current: plan.Tasks,
			want: []string{"seq2seq-a move: move from 2 ps + 2 workers on gpu-03 to 2 ps + 2 workers on gpu-03, gpu-04 (checkpoint, then restart)"},
		},
		{
			name: "job gone from the plan, no prune: left running", plan: withoutJob(plan, "vgg16-b"), current: plan.Tasks,
			wantSkipped: []string{"vgg16-b stop skipped: not in the plan: left running (6 ps + 1 worker on cpu-01, cpu-03, cpu-04, cpu-06, cpu-07, gpu-04, gpu-06); --prune stops it"},
		},
		{
			name: "job gone from the plan, prune: stop", plan: withoutJob(plan, "vgg16-b"), current: plan.Tasks, opts: apply.Options{Prune: true},
			want: []string{"vgg16-b stop: stop 6 ps + 1 worker on cpu-01, cpu-03, cpu-04, cpu-06, cpu-07, gpu-04, gpu-06"},
		},
		{
			name: "plan says waiting, job runs: stop without prune", plan: waiting(plan, "vgg16-b"), current: plan.Tasks,
			want: []string{"vgg16-b stop: stop 6 ps + 1 worker on cpu-01, cpu-03, cpu-04, cpu-06, cpu-07, gpu-04, gpu-06"},
		},
		{
			name: "plan says waiting, job does not run: skipped", plan: waiting(plan, "vgg16-b"), current: waiting(plan, "vgg16-b").Tasks,
			wantSkipped: []string{"vgg16-b stop skipped: not running, plan says waiting: cluster full"},
		},
		{
			name: "kept tasks, running there: skipped", plan: keptAll(plan, "resnet50-a"), current: plan.Tasks,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes, skipped := apply.Diff(tt.plan, tt.current, jobs, tt.opts)
			got := summary(changes, skipped)
			want := append([]string(nil), tt.want...)
			if !tt.fresh {
				except := map[string]bool{}
				for _, w := range append(append([]string(nil), tt.want...), tt.wantSkipped...) {
					except[strings.Fields(w)[0]] = true
				}
				for _, job := range allSkippedBut(plan, except) {
					for _, r := range skipped {
						if r.Change.Job.Job == job {
							want = append(want, fmt.Sprintf("%s start skipped: %s", job, r.Message))
						}
					}
				}
				want = append(want, tt.wantSkipped...)
				for _, r := range skipped {
					if except[r.Change.Job.Job] {
						continue
					}
					if r.Change.Action != executor.ActionStart || !strings.HasPrefix(r.Message, "already running as planned: ") {
						t.Errorf("%s: skipped as %s %q, want start: already running as planned", r.Change.Job.Job, r.Change.Action, r.Message)
					}
				}
				// Skipped rows come after the changes, in job order.
				want = sortSkippedLast(want, len(tt.want))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Diff:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
			if tt.fresh && len(skipped) != 0 {
				t.Errorf("fresh apply: %d skipped, want none", len(skipped))
			}
			if !tt.fresh && len(changes)+len(skipped) != len(plan.Jobs) {
				t.Errorf("%d changes + %d skipped, want one per job (%d)", len(changes), len(skipped), len(plan.Jobs))
			}
			for _, c := range changes {
				if c.Job.Image == "" && c.Action != executor.ActionStop {
					t.Errorf("%s: change lacks the job's image from the jobs table", c.Job.Job)
				}
			}
		})
	}
}

// sortSkippedLast keeps the first n lines (the changes) and sorts the rest
// (skipped results) by job, as Diff emits them.
func sortSkippedLast(lines []string, n int) []string {
	rest := append([]string(nil), lines[n:]...)
	for i := 1; i < len(rest); i++ {
		for j := i; j > 0 && rest[j] < rest[j-1]; j-- {
			rest[j], rest[j-1] = rest[j-1], rest[j]
		}
	}
	return append(lines[:n:n], rest...)
}

// A change carries every planned and running task; Kept survives only on a
// task that runs on that node now.
func TestDiffKeptMarks(t *testing.T) {
	plan, jobs := testbed(t)
	p := keptAll(moved(plan, "seq2seq-a-worker-1", "gpu-04"), "seq2seq-a")
	changes, _ := apply.Diff(p, plan.Tasks, jobs, apply.Options{Generation: "g1"})
	if len(changes) != 1 || changes[0].Action != executor.ActionMove {
		t.Fatalf("changes %v, want one move", summary(changes, nil))
	}
	c := changes[0]
	var kept []string
	for _, task := range c.To {
		if task.Kept {
			kept = append(kept, task.Name())
		}
	}
	want := []string{"seq2seq-a-ps-0", "seq2seq-a-ps-1", "seq2seq-a-worker-0"}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("kept in To: %v, want %v (worker 1 moves, so it is not kept)", kept, want)
	}
	if len(c.From) != 4 || len(c.To) != 4 || c.Generation != "g1" {
		t.Errorf("change has %d from, %d to, generation %q; want 4, 4, g1", len(c.From), len(c.To), c.Generation)
	}
}

// The order of the inputs does not matter: changes come sorted by job.
func TestDiffIsDeterministic(t *testing.T) {
	plan, jobs := testbed(t)
	changes, skipped := apply.Diff(plan, nil, jobs, apply.Options{})
	want := summary(changes, skipped)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5 {
		p := clone(plan)
		rng.Shuffle(len(p.Tasks), func(a, b int) { p.Tasks[a], p.Tasks[b] = p.Tasks[b], p.Tasks[a] })
		rng.Shuffle(len(p.Jobs), func(a, b int) { p.Jobs[a], p.Jobs[b] = p.Jobs[b], p.Jobs[a] })
		c, s := apply.Diff(p, nil, jobs, apply.Options{})
		if got := summary(c, s); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d: %v, want %v", i, got, want)
		}
		for j := range c {
			if !reflect.DeepEqual(c[j].To, changes[j].To) {
				t.Fatalf("shuffle %d: %s's tasks in another order", i, c[j].Job.Job)
			}
		}
	}
}
