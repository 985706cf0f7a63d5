package pipeline

import (
	"fmt"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// Assignment is one job of an allocation as place sees it.
type Assignment struct {
	Job string
	// PS and Workers are the allocation; Status and Reason solve's verdict.
	PS, Workers int
	// AllReduce marks an all-reduce job: workers only, PS 0.
	AllReduce bool
	Status    place.Status
	Reason    string
	// PSDemand and WorkerDemand are one task's demand of each of the
	// cluster's resources.
	PSDemand, WorkerDemand []float64
	// Foreign, when not empty, says which resource the cluster lacks that
	// the job's tasks need: the job waits.
	Foreign string
	// Packing is where solve's node-level check fitted the job's tasks;
	// nil when there is none or it names a node the cluster lacks.
	Packing []layout.Slot
}

// AssignmentError is an allocation place cannot take: Index is the job's
// position in the allocation.
type AssignmentError struct {
	Index int
	Msg   string
}

func (e *AssignmentError) Error() string { return e.Msg }

// Assignments turns solve's result into place's view of each job, in the
// problem's order.
func Assignments(prob *solve.Problem, res *solve.Result) []Assignment {
	out := make([]Assignment, len(prob.Jobs))
	for j, d := range res.Decisions {
		a := Assignment{Job: prob.Jobs[j].Name, PS: d.PS, Workers: d.Workers, Status: place.Status(d.Status),
			Reason: d.Reason, PSDemand: prob.Jobs[j].PS, WorkerDemand: prob.Jobs[j].Worker,
			AllReduce: prob.Jobs[j].Speed.Mode == fit.AllReduce}
		if res.Packing != nil && d.Status == solve.Running {
			a.Packing = res.Packing[j]
		}
		out[j] = a
	}
	return out
}

// PlaceProblem builds place's problem from the allocation. A running job
// needs at least 1 PS and 1 worker (an error otherwise); one whose tasks
// need a resource the cluster lacks waits. current, when not nil, holds
// the tasks running now per job (CurrentState of the round before, or the
// current plan table): the tasks of a job whose allocation did not change
// stay where they are.
func PlaceProblem(c *Cluster, jobs []Assignment, current map[string][]place.Task) (*place.Problem, error) {
	prob := &place.Problem{Resources: c.Resources, Nodes: c.Nodes, Capacity: c.Capacity, Jobs: make([]place.Job, len(jobs))}
	for i, a := range jobs {
		j := place.Job{Name: a.Job, PS: a.PS, Workers: a.Workers, Status: a.Status,
			PSDemand: a.PSDemand, WorkerDemand: a.WorkerDemand}
		if j.Status != place.Running {
			j.Reason = a.Reason // why solve left it waiting; a running job's reason is about placement
		}
		if j.Status == place.Running {
			switch {
			case a.AllReduce && (j.PS != 0 || j.Workers < 1):
				return nil, &AssignmentError{Index: i,
					Msg: fmt.Sprintf("allreduce job %q is running with %d PS and %d workers: it needs 0 PS and at least 1 worker", a.Job, j.PS, j.Workers)}
			case !a.AllReduce && (j.PS < 1 || j.Workers < 1):
				return nil, &AssignmentError{Index: i,
					Msg: fmt.Sprintf("job %q is running with %d PS and %d workers: a running job needs at least 1 of each", a.Job, j.PS, j.Workers)}
			case a.Foreign != "":
				j.Status, j.Reason, j.PS, j.Workers = place.Waiting, a.Foreign, 0, 0
			default:
				j.Packing = a.Packing
			}
		}
		if current != nil {
			j.Current = current[a.Job]
		}
		prob.Jobs[i] = j
	}
	return prob, nil
}

// Running is a job's part of the current state: the tasks it runs and how
// many of each role.
type Running struct {
	PS, Workers int
	Tasks       []place.Task
}

// CurrentState turns a placement into what runs in the next round: per job
// with tasks placed, its tasks and counts. Jobs that wait are absent.
func CurrentState(prob *place.Problem, res *place.Result) map[string]Running {
	// The tasks of every job in one array, each job's share sized once
	// (jobs of the same name share one entry).
	count := make([]int, len(prob.Jobs))
	for _, t := range res.Tasks {
		count[t.Job]++
	}
	entry := make([]int, len(prob.Jobs)) // job index -> index in states
	names := map[string]int{}
	var states []Running
	var sizes []int
	for j, n := range count {
		if n == 0 {
			continue
		}
		k, ok := names[prob.Jobs[j].Name]
		if !ok {
			k = len(states)
			names[prob.Jobs[j].Name] = k
			states, sizes = append(states, Running{}), append(sizes, 0)
		}
		entry[j] = k
		sizes[k] += n
	}
	tasks := make([]place.Task, len(res.Tasks))
	for k, n := range sizes {
		states[k].Tasks, tasks = tasks[:0:n], tasks[n:]
	}
	for _, t := range res.Tasks {
		r := &states[entry[t.Job]]
		r.Tasks = append(r.Tasks, place.Task{Role: t.Role, Index: t.Index, Node: t.Node})
		if t.Role == place.PS {
			r.PS++
		} else {
			r.Workers++
		}
	}
	out := make(map[string]Running, len(states))
	for name, k := range names {
		out[name] = states[k]
	}
	return out
}

// CurrentTasks returns the tasks of each job of a current state, the form
// PlaceProblem takes.
func CurrentTasks(state map[string]Running) map[string][]place.Task {
	out := make(map[string][]place.Task, len(state))
	for job, r := range state {
		out[job] = r.Tasks
	}
	return out
}
