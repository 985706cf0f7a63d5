package kubernetes

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor"
)

// AnnotJournal, on a job's Service, records the change an apply is carrying
// out on that job: the pods it means to run, by name and spec hash. Apply
// writes it before the job's first pod write (with the Service, for a
// start). A journal whose pods do not all run with those hashes is a change
// that did not end: an apply killed in between (SIGKILL, a lost node), or
// drift since; the next apply finishes it when no change of its own names
// the job (docs/kubernetes.md, "Interrupted applies"). A journal that did
// end needs no write to say so.
const AnnotJournal = "optimus.dev/journal"

// RollbackTimeout bounds the clean-up an interrupted apply still does (the
// rollback of a half-started job, the journal), on a context of its own.
const RollbackTimeout = 30 * time.Second

// journal is what AnnotJournal holds.
type journal struct {
	Holder  string           `json:"holder"`  // the apply that wrote it (its Lease identity)
	Started time.Time        `json:"started"` // when
	Change  executor.Change  `json:"change"`  // what it was doing to the job
	Pods    []journalPodNote `json:"pods"`    // the pods it meant to run
}

type journalPodNote struct {
	Name     string `json:"name"`
	SpecHash string `json:"specHash"`
}

func (e *Executor) journalOf(w *jobWork) string {
	j := journal{Holder: e.identity, Started: time.Now().UTC().Truncate(time.Second), Change: w.change}
	for _, p := range w.wantPods {
		j.Pods = append(j.Pods, journalPodNote{Name: p.Name, SpecHash: p.Annotations[AnnotSpecHash]})
	}
	b, _ := json.Marshal(j) // plain data: cannot fail
	return string(b)
}

// readJournal is the change a Service's journal records, if any.
func readJournal(svc *corev1.Service) (journal, bool) {
	var j journal
	s := svc.Annotations[AnnotJournal]
	if s == "" || json.Unmarshal([]byte(s), &j) != nil || j.Change.Job.Job != svc.Labels[LabelJob] {
		return journal{}, false
	}
	return j, true
}

// unfinished are the changes that killed applies left half done, by job:
// the journals, on the managed Services of jobs no change names, whose
// pods do not all run with their spec hashes.
func unfinished(st *state, changes []executor.Change) []journal {
	named := map[string]bool{}
	for _, c := range changes {
		named[c.Job.Job] = true
	}
	var out []journal
	for _, svc := range st.services {
		if !managed(svc) || named[svc.Labels[LabelJob]] {
			continue
		}
		if j, ok := readJournal(svc); ok && !j.ended(st) {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Change.Job.Job < out[b].Change.Job.Job })
	return out
}

// ended: every pod the journal names runs with its spec hash.
func (j journal) ended(st *state) bool {
	for _, n := range j.Pods {
		p := st.pods[n.Name]
		if p == nil || p.DeletionTimestamp != nil || !managed(p) || p.Annotations[AnnotSpecHash] != n.SpecHash {
			return false
		}
	}
	return true
}

// setJournal records (value) or removes ("") the journal on the job's
// Service svc, read again and updated once more if it changed meanwhile.
func (e *Executor) setJournal(ctx context.Context, svc *corev1.Service, value string) (*corev1.Service, error) {
	svcs := e.client.Services(e.namespace)
	cur := svc.DeepCopy()
	for try := 0; ; try++ {
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		if value == "" {
			delete(cur.Annotations, AnnotJournal)
		} else {
			cur.Annotations[AnnotJournal] = value
		}
		got, err := svcs.Update(ctx, cur, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) || try > 0 {
			return got, err
		}
		if cur, err = svcs.Get(ctx, svc.Name, metav1.GetOptions{}); err != nil {
			return nil, err
		}
	}
}
