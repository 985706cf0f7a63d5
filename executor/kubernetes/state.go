package kubernetes

import (
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/optimus-sched/optimus/executor"
)

// StateError is a cluster whose objects optimus cannot read into valid
// tables: a node listed twice, a capacity or resource annotation with a
// negative amount, two pods running one task. It names the node or pod;
// optimus exits 2 on it, as on any invalid input, and writes nothing.
type StateError struct{ Msg string }

func (e *StateError) Error() string { return "kubernetes: " + e.Msg }

// InvalidInput makes the error exit 2 (cmdutil.ExitCode).
func (e *StateError) InvalidInput() bool { return true }

func stateErrorf(format string, args ...any) error {
	return &StateError{Msg: fmt.Sprintf(format, args...)}
}

// checkAmounts refuses a negative or non-finite amount of a resource.
func checkAmounts(what string, amounts map[string]float64) error {
	names := make([]string, 0, len(amounts))
	for r := range amounts {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		if v := amounts[r]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return stateErrorf("%s: %s %g: amounts must be finite and not negative", what, r, v)
		}
	}
	return nil
}

// snapshotTasks reads the managed pods of a namespace into the tasks that
// run there, for optimus snapshot, so that the plan it writes is one the
// next command accepts:
//   - two pods running the same task (job, role and index) are refused,
//     naming both: which one should run is the operator's call;
//   - a task's resources (its annotation, or its requests) must not be
//     negative: refused, naming the pod;
//   - a pod on no node, or on a node the cluster does not list (deleted
//     since, the pod lingering), runs nothing: it is left out of the plan
//     and of the jobs' counts, and said so in a warning (a later apply
//     replaces the task).
//
// Pods that are not ps or worker tasks (schedulers) are skipped. The tasks
// are sorted by job, role and index.
func snapshotTasks(pods []corev1.Pod, nodes []Node, namespace string) (tasks []executor.Task, warnings []string, err error) {
	listed := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		listed[n.Name] = true
	}
	owner := map[string]string{} // task name -> pod
	for i := range pods {
		p := &pods[i]
		t, ok := TaskOf(p)
		if !ok {
			continue
		}
		if first, dup := owner[t.Name()]; dup {
			a, b := first, p.Name
			if b < a {
				a, b = b, a
			}
			return nil, nil, stateErrorf("pods %q and %q in namespace %s both run task %s (labels %s, %s, %s): delete the one that should not run",
				a, b, namespace, t.Name(), LabelJob, LabelRole, LabelIndex)
		}
		owner[t.Name()] = p.Name
		if err := checkAmounts(fmt.Sprintf("pod %q in namespace %s (task %s): resources", p.Name, namespace, t.Name()), t.Resources); err != nil {
			return nil, nil, err
		}
		switch {
		case t.Node == "":
			warnings = append(warnings, fmt.Sprintf("pod %s (task %s) is on no node: left out of the plan", p.Name, t.Name()))
			continue
		case !listed[t.Node]:
			warnings = append(warnings, fmt.Sprintf("pod %s (task %s) is on node %s, which the cluster does not list: left out of the plan", p.Name, t.Name(), t.Node))
			continue
		}
		tasks = append(tasks, t)
	}
	sort.Strings(warnings)
	sortTasks(tasks)
	return tasks, warnings, nil
}
