package executor

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrInvalidPlan marks a Validate error caused by the plan or the jobs table
// (optimus apply exits 2 on it and writes nothing), as opposed to one caused
// by reaching the cluster (exit 1).
var ErrInvalidPlan = errors.New("invalid plan")

// Invalidf returns an error wrapping ErrInvalidPlan.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidPlan, fmt.Sprintf(format, args...))
}

// ValidateOptions say what ValidatePlan checks besides the plan's own
// consistency.
type ValidateOptions struct {
	// NeedImage: every job with a planned task needs an image, and a command
	// that SplitCommand accepts (executors that create containers).
	NeedImage bool
	// Capacity is each node's allocatable per resource (node -> resource ->
	// amount). When not nil, a task on a node missing from it is an error, and
	// so are a node's tasks using more of a resource than it has; a resource
	// a node does not list is not checked.
	Capacity map[string]map[string]float64
	// Reserved is what others use of each node's Capacity (node ->
	// resource -> amount): the plan gets what is left. ReservedBy names
	// the others in the message ("pods optimus does not manage").
	Reserved   map[string]map[string]float64
	ReservedBy string
}

// capacitySlack absorbs rounding in sums of fractional demands.
const capacitySlack = 1e-9

// ValidatePlan checks a whole plan before any write: every task's job is in
// jobs, no task appears twice, and what o asks for. It returns the first
// problem, wrapping ErrInvalidPlan.
func ValidatePlan(plan []Task, jobs map[string]Job, o ValidateOptions) error {
	seen := map[string]bool{}
	checked := map[string]bool{}
	use := map[string]map[string]float64{}
	for _, t := range plan {
		j, ok := jobs[t.Job]
		if !ok {
			return Invalidf("task %s: job %q is not in the jobs table", t.Name(), t.Job)
		}
		if t.Role != RolePS && t.Role != RoleWorker {
			return Invalidf("task %s: role %q is neither %s nor %s", t.Name(), t.Role, RolePS, RoleWorker)
		}
		if seen[t.Name()] {
			return Invalidf("task %s appears twice", t.Name())
		}
		seen[t.Name()] = true
		if o.NeedImage && !checked[t.Job] {
			checked[t.Job] = true
			if j.Image == "" {
				return Invalidf("job %q has no image: the jobs table's image column is empty", t.Job)
			}
			if _, err := SplitCommand(j.Command); err != nil {
				return Invalidf("job %q: %v", t.Job, err)
			}
		}
		if o.Capacity != nil {
			if _, ok := o.Capacity[t.Node]; !ok {
				return Invalidf("task %s: node %q is not in the cluster", t.Name(), t.Node)
			}
			if use[t.Node] == nil {
				use[t.Node] = map[string]float64{}
			}
			for r, v := range t.Resources {
				use[t.Node][r] += v
			}
		}
	}
	nodes := make([]string, 0, len(use))
	for n := range use {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		resources := make([]string, 0, len(use[n]))
		for r := range use[n] {
			resources = append(resources, r)
		}
		sort.Strings(resources)
		for _, r := range resources {
			have, listed := o.Capacity[n][r]
			taken := o.Reserved[n][r]
			if listed && use[n][r] > have-taken+capacitySlack*math.Max(1, have) {
				if taken > 0 {
					return Invalidf("node %q: the plan's tasks use %g %s, the node has %g (allocatable %g less %g requested by %s)", n, use[n][r], r, math.Max(0, have-taken), have, taken, o.ReservedBy)
				}
				return Invalidf("node %q: the plan's tasks use %g %s, the node has %g", n, use[n][r], r, have)
			}
		}
	}
	return nil
}
