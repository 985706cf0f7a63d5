package kubernetes

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/optimus-sched/optimus/executor"
)

// Drift checks the jobs apply's diff found running as planned against
// their objects (apply.Repairer): a job whose scheduler pod or Service is
// missing, or one of whose pods runs another spec than the one the plan
// and the jobs table make now (AnnotSpecHash), is returned to be repaired;
// a job with pods that do not run (Pending, failed) is said to be so rather
// than running as planned. It makes no write.
func (e *Executor) Drift(ctx context.Context, running []executor.Change) ([]executor.Change, map[string]string, error) {
	st, err := e.readState(ctx)
	if err != nil {
		return nil, nil, err
	}
	nodes := map[string]Node{}
	if ns, err := e.Nodes(ctx); err == nil {
		for _, n := range ns {
			nodes[n.Name] = n
		}
	}
	var repair []executor.Change
	say := map[string]string{}
	for _, c := range running {
		w := e.plan(c, st)
		if w.conflict == "" && w.writes() {
			repair = append(repair, c)
			continue
		}
		var bad []string
		for _, p := range w.skip {
			if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodSucceeded {
				bad = append(bad, p.Name+": "+whyPending(p, nodes))
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			say[c.Job.Job] = fmt.Sprintf("placed as planned, but %d of %d pods do not run: %s", len(bad), len(w.skip), strings.Join(bad, "; "))
		}
	}
	return repair, say, nil
}
