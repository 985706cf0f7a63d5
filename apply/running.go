package apply

import (
	"sort"

	"github.com/optimus-sched/optimus/executor"
)

// Running is what runs once the report's changes are carried out, as far as
// the results say: a job whose change was done runs its wanted tasks; a job
// whose change failed, was only planned (dry run, print) or was skipped
// runs what it ran before. It is the state an executor that cannot read the
// cluster (print, exec) hands the next round, so a change that succeeded is
// not asked for again and one that failed is retried without holding the
// others back. Tasks come by job name, each job's PS first, then by index;
// kept marks are cleared (they belong to this round).
func (r *Report) Running() []executor.Task {
	var out []executor.Task
	for _, res := range r.All() {
		tasks := res.Change.From
		if res.Outcome == executor.OutcomeDone {
			tasks = res.Change.To
		}
		first := len(out)
		for _, t := range tasks {
			t.Kept = false
			out = append(out, t)
		}
		SortTasks(out[first:])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Job < out[j].Job })
	return out
}

// Done counts the changes that were done.
func (r *Report) Done() int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == executor.OutcomeDone {
			n++
		}
	}
	return n
}
