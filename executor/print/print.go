// Package print is the executor that changes nothing: it reports every
// change as planned, task by task, and can write the Kubernetes objects the
// kubernetes executor would create, so that an operator sees what apply
// would do before letting it act.
package print

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/optimus-sched/optimus/executor"
)

// ManifestWriter writes the Kubernetes objects that carrying out changes
// would create, as a YAML stream (kubernetes.WriteManifests).
type ManifestWriter func(w io.Writer, changes []executor.Change) error

// Options configure the print executor.
type Options struct {
	// Current is what runs now (read from --current); nil: nothing.
	Current []executor.Task
	// Capacity, when not nil, is each node's capacity per resource; Validate
	// then checks nodes and capacities (executor.ValidatePlan).
	Capacity map[string]map[string]float64
	// Manifests, when not nil, receives the objects' YAML; Manifest writes
	// them. Jobs then need an image, as for the kubernetes executor.
	Manifests io.Writer
	Manifest  ManifestWriter
}

// Executor is the print executor.
type Executor struct{ opts Options }

// New returns a print executor.
func New(opts Options) (*Executor, error) {
	if opts.Manifests != nil && opts.Manifest == nil {
		return nil, fmt.Errorf("print executor: manifests asked for without a manifest writer")
	}
	return &Executor{opts: opts}, nil
}

var _ executor.Executor = (*Executor)(nil)

// Name is "print".
func (e *Executor) Name() string { return "print" }

// Current returns the tasks given in Options.
func (e *Executor) Current(context.Context) ([]executor.Task, error) { return e.opts.Current, nil }

// Validate checks the plan as executor.ValidatePlan does. With manifests
// every job needs an image, and the objects of every planned job must build
// (the manifest writer's own checks: names Kubernetes accepts, whole GPUs).
func (e *Executor) Validate(_ context.Context, plan []executor.Task, jobs map[string]executor.Job) error {
	if err := executor.ValidatePlan(plan, jobs, executor.ValidateOptions{NeedImage: e.opts.Manifests != nil, Capacity: e.opts.Capacity}); err != nil {
		return err
	}
	if e.opts.Manifests == nil {
		return nil
	}
	var starts []executor.Change
	byJob := map[string]int{}
	for _, t := range plan {
		i, ok := byJob[t.Job]
		if !ok {
			i = len(starts)
			byJob[t.Job] = i
			starts = append(starts, executor.Change{Job: jobs[t.Job], Action: executor.ActionStart})
		}
		starts[i].To = append(starts[i].To, t)
	}
	if err := e.opts.Manifest(io.Discard, starts); err != nil {
		return executor.Invalidf("%v", err)
	}
	return nil
}

// Apply changes nothing: every change is planned, with one task result per
// task it would start, restart, move or stop (kept tasks: skipped). With
// manifests it writes them, all or nothing.
func (e *Executor) Apply(_ context.Context, changes []executor.Change, _ bool) ([]executor.Result, error) {
	results := make([]executor.Result, len(changes))
	for i, c := range changes {
		results[i] = executor.Result{Change: c, Outcome: executor.OutcomePlanned, Tasks: TaskPlan(c)}
	}
	if e.opts.Manifests != nil {
		var buf bytes.Buffer
		if err := e.opts.Manifest(&buf, changes); err != nil {
			return nil, fmt.Errorf("manifests: %w", err)
		}
		if _, err := e.opts.Manifests.Write(buf.Bytes()); err != nil {
			return nil, fmt.Errorf("manifests: %w", err)
		}
	}
	return results, nil
}

// TaskPlan says, task by task, what carrying out a change means: each wanted
// task starts, restarts (resize: the job checkpoints and restarts with its
// new size), moves to another node or is kept; each running task not wanted
// any more stops. Outcomes are planned, kept tasks skipped.
func TaskPlan(c executor.Change) []executor.TaskResult {
	from := make(map[string]executor.Task, len(c.From))
	for _, t := range c.From {
		from[t.Name()] = t
	}
	var out []executor.TaskResult
	wanted := map[string]bool{}
	for _, t := range c.To {
		wanted[t.Name()] = true
		old, running := from[t.Name()]
		switch {
		case t.Kept:
			out = append(out, executor.TaskResult{Task: t, Outcome: executor.OutcomeSkipped, Message: "kept on " + t.Node})
		case !running:
			out = append(out, executor.TaskResult{Task: t, Outcome: executor.OutcomePlanned, Message: "start on " + t.Node})
		case old.Node != t.Node:
			out = append(out, executor.TaskResult{Task: t, Outcome: executor.OutcomePlanned, Message: "move from " + old.Node + " to " + t.Node})
		default:
			out = append(out, executor.TaskResult{Task: t, Outcome: executor.OutcomePlanned, Message: "restart on " + t.Node})
		}
	}
	for _, t := range c.From {
		if !wanted[t.Name()] {
			out = append(out, executor.TaskResult{Task: t, Outcome: executor.OutcomePlanned, Message: "stop on " + t.Node})
		}
	}
	return out
}
