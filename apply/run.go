package apply

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/optimus-sched/optimus/executor"
)

// RunOptions steer Run.
type RunOptions struct {
	// Options are Diff's; an empty Generation is the plan's own
	// (Generation(plan)).
	Options
	// DryRun changes nothing: the executor reports what it would do, with
	// outcome planned.
	DryRun bool
}

// Report is what Run did.
type Report struct {
	Executor   string // the executor's name
	Generation string
	DryRun     bool
	// Results holds the executor's result for each change, in Diff's
	// order; Skipped one result per job that needed no change.
	Results, Skipped []executor.Result
	// Notes are what the executor says about how it checked the plan
	// (Noter), for the summary.
	Notes []string
}

// Noter is an executor that says how it checked the plan, for apply's
// summary ("allocatable less the requests of 3 pods optimus does not
// manage on 2 nodes").
type Noter interface{ Notes() []string }

// Run carries a plan out through an executor, in the order optimus apply
// does:
//
//  1. an executor that is a Keeper is told which jobs the plan leaves
//     running (LeftRunning), then ex.Validate checks the whole plan against
//     the cluster before anything is done; an error wrapping executor.ErrInvalidPlan is the
//     plan's (or the jobs') fault and is returned as is;
//  2. ex.Current says what runs now (the print and exec executors are
//     given it when built, the kubernetes executor reads it);
//  3. Diff derives one change per job; an executor that is a Repairer
//     turns the jobs that drifted from what it would write into changes
//     too;
//  4. ex.Apply carries the changes out, or with DryRun reports them (and
//     may report on more jobs: changes killed applies left half done,
//     which replace those jobs' skipped results).
//
// Run does no I/O of its own. Errors other than an invalid plan are the
// executor's, prefixed with its name; a change that failed is not an error
// but a result (Report.Failed, Report.Err).
func Run(ctx context.Context, ex executor.Executor, plan Plan, jobs map[string]executor.Job, opts RunOptions) (*Report, error) {
	if k, ok := ex.(Keeper); ok {
		k.LeaveRunning(LeftRunning(plan, opts.Prune))
	}
	if err := ex.Validate(ctx, plan.Tasks, jobs); err != nil {
		if errors.Is(err, executor.ErrInvalidPlan) {
			return nil, err
		}
		return nil, named(ex, err)
	}
	current, err := ex.Current(ctx)
	if err != nil {
		return nil, named(ex, err)
	}
	if opts.Generation == "" {
		opts.Generation = Generation(plan)
	}
	changes, skipped := Diff(plan, current, jobs, opts.Options)
	if r, ok := ex.(Repairer); ok {
		if changes, skipped, err = repairs(ctx, r, changes, skipped); err != nil {
			return nil, named(ex, err)
		}
	}
	results, err := ex.Apply(ctx, changes, opts.DryRun)
	if err != nil {
		return nil, named(ex, err)
	}
	skipped = withoutJobs(skipped, results)
	r := &Report{Executor: ex.Name(), Generation: opts.Generation, DryRun: opts.DryRun, Results: results, Skipped: skipped}
	if n, ok := ex.(Noter); ok {
		r.Notes = n.Notes()
	}
	return r, nil
}

// Keeper is an executor whose Validate counts what the jobs the plan leaves
// running use of the nodes (kubernetes: their pods' requests), told which
// jobs those are before it validates.
type Keeper interface {
	LeaveRunning(left func(job string) bool)
}

// LeftRunning says which jobs Diff leaves running: without prune, those
// that run now and that the plan neither places nor lists (a job the plan
// lists as waiting or done is stopped); with prune, none.
func LeftRunning(plan Plan, prune bool) func(job string) bool {
	if prune {
		return func(string) bool { return false }
	}
	named := map[string]bool{}
	for _, j := range plan.Jobs {
		named[j.Job] = true
	}
	for _, t := range plan.Tasks {
		named[t.Job] = true
	}
	return func(job string) bool { return !named[job] }
}

// Repairer is an executor that sees more of a job than its tasks
// (kubernetes: a scheduler pod, the job's Service, each pod's spec and
// phase). Drift is given the jobs Diff found running as planned and
// returns those whose objects differ from what the executor would write
// (to be applied as changes) and, by job, what the rest's skipped result
// should say instead (pods that do not run).
type Repairer interface {
	Drift(ctx context.Context, running []executor.Change) (repair []executor.Change, say map[string]string, err error)
}

// repairs moves the jobs that drifted from skipped to changes.
func repairs(ctx context.Context, r Repairer, changes []executor.Change, skipped []executor.Result) ([]executor.Change, []executor.Result, error) {
	var running []executor.Change
	for _, s := range skipped {
		if len(s.Change.To) > 0 {
			running = append(running, s.Change)
		}
	}
	if len(running) == 0 {
		return changes, skipped, nil
	}
	repair, say, err := r.Drift(ctx, running)
	if err != nil {
		return nil, nil, err
	}
	drifted := map[string]bool{}
	for _, c := range repair {
		drifted[c.Job.Job] = true
	}
	var kept []executor.Result
	for _, s := range skipped {
		if drifted[s.Change.Job.Job] {
			continue
		}
		if msg := say[s.Change.Job.Job]; msg != "" {
			s.Message = msg
		}
		kept = append(kept, s)
	}
	changes = append(append([]executor.Change(nil), changes...), repair...)
	sort.SliceStable(changes, func(a, b int) bool { return changes[a].Job.Job < changes[b].Job.Job })
	return changes, kept, nil
}

// withoutJobs drops the skipped results of jobs the executor reported on
// (a change a killed apply left half done, which it finished).
func withoutJobs(skipped, results []executor.Result) []executor.Result {
	done := map[string]bool{}
	for _, r := range results {
		done[r.Change.Job.Job] = true
	}
	var out []executor.Result
	for _, s := range skipped {
		if !done[s.Change.Job.Job] {
			out = append(out, s)
		}
	}
	return out
}

// named prefixes an executor's error with the executor's name, unless the
// executor said it already.
func named(ex executor.Executor, err error) error {
	if strings.HasPrefix(err.Error(), ex.Name()+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", ex.Name(), err)
}

// All is every job's result: the changes', then the skipped ones.
func (r *Report) All() []executor.Result {
	return append(append([]executor.Result(nil), r.Results...), r.Skipped...)
}

// Failed counts the results that failed (Failed).
func (r *Report) Failed() int { return Failed(r.All()) }

// Err says how many changes failed, or is nil when none did.
func (r *Report) Err() error {
	if n := r.Failed(); n > 0 {
		return fmt.Errorf("%d of %d changes failed (see the actions table); apply the plan again to retry them", n, len(r.Results))
	}
	return nil
}

// Summary is one line saying what was done: the jobs by action and the
// changes by outcome.
func (r *Report) Summary() string {
	count := map[string]int{}
	outcomes := map[string]int{}
	for _, res := range r.Results {
		count[res.Change.Action]++
		outcomes[res.Outcome]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "apply (%s, generation %s", r.Executor, r.Generation)
	if r.DryRun {
		b.WriteString(", dry run")
	}
	fmt.Fprintf(&b, "): %d jobs: ", len(r.Results)+len(r.Skipped))
	for _, a := range []string{executor.ActionStart, executor.ActionStop, executor.ActionResize, executor.ActionMove} {
		fmt.Fprintf(&b, "%d %s, ", count[a], a)
	}
	fmt.Fprintf(&b, "%d unchanged; changes: %d done, %d planned, %d failed", len(r.Skipped),
		outcomes[executor.OutcomeDone], outcomes[executor.OutcomePlanned], outcomes[executor.OutcomeFailed])
	for _, n := range r.Notes {
		b.WriteString("; " + n)
	}
	return b.String()
}
