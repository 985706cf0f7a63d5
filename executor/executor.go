// Package executor is the contract between apply's pure diff (package apply)
// and the programs that carry a plan out: the print, exec and kubernetes
// executors, each in a sub-package that registers its Kind (registry.go);
// package executor/all links them all in. Only executor/kubernetes (and
// executor/print, for the manifests it prints) imports client-go; the
// Kubernetes client, Lease and access checks that a Kubernetes-family
// executor shares are in executor/kubeclient.
package executor

import (
	"context"
	"strconv"
)

// Roles of a task.
const (
	RolePS     = "ps"
	RoleWorker = "worker"
)

// Actions apply derives per job (the actions table's `action` column).
const (
	ActionStart  = "start"  // the job runs nothing now and gets tasks
	ActionStop   = "stop"   // the job's tasks are all removed
	ActionResize = "resize" // p or w changed: checkpoint, then restart with the new tasks
	ActionMove   = "move"   // same p and w, other nodes: checkpoint, then restart there
)

// Outcomes (the actions table's `outcome` column).
const (
	OutcomeDone    = "done"
	OutcomeFailed  = "failed"
	OutcomeSkipped = "skipped" // nothing to do: already as planned
	OutcomePlanned = "planned" // dry run: would be done
)

// Task is one planned or running task of a job.
type Task struct {
	Job   string
	Role  string // RolePS or RoleWorker
	Index int    // from 0 within the job and role
	Node  string
	// Resources is what the task uses of each cluster resource, keyed by the
	// cluster's column name (gpu, cpu, memory_gb, net_gbps, ...).
	Resources map[string]float64
	// Kept: the plan leaves this task where it runs now (place --current).
	Kept bool
}

// Name is the task's name on a cluster: <job>-<role>-<index>.
func (t Task) Name() string { return t.Job + "-" + t.Role + "-" + strconv.Itoa(t.Index) }

// Job is what an executor needs of a job besides its tasks (from the jobs table).
type Job struct {
	Job         string
	Model       string
	Mode        string // sync or async
	GlobalBatch int64
	Image       string // may be empty: executors that need it reject the change before any write
	Command     string // one string, split like a shell would (no shell runs)
}

// Change is what apply wants done to one job: its tasks go from From to To.
type Change struct {
	Job        Job
	Action     string // ActionStart, ActionStop, ActionResize or ActionMove
	From       []Task // running now; empty for start
	To         []Task // wanted; empty for stop
	Generation string // the plan's generation, for labels and records
}

// Result is what an executor did with one change. Tasks lists per-task
// outcomes where the executor acts per task (kubernetes); it may be empty.
type Result struct {
	Change  Change
	Outcome string // one of the Outcome constants
	Message string
	Tasks   []TaskResult
}

// TaskResult is the outcome of one task of a change.
type TaskResult struct {
	Task    Task
	Outcome string
	Message string
}

// Executor carries changes out on one kind of cluster.
//
// Current reports what runs now (tasks this executor owns only). Validate
// checks the whole plan against the cluster before any write and returns an
// error naming the first problem (unknown node, missing image, a node over
// its allocatable). Apply carries the changes out, one Result per change, in
// the order given; dryRun changes nothing and reports OutcomePlanned. An
// error from Apply means the executor could not act at all (no connection,
// no permission); per-change failures are Results with OutcomeFailed.
type Executor interface {
	Name() string
	Current(ctx context.Context) ([]Task, error)
	Validate(ctx context.Context, plan []Task, jobs map[string]Job) error
	Apply(ctx context.Context, changes []Change, dryRun bool) ([]Result, error)
}
