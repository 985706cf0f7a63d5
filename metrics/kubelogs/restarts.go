package kubelogs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/metrics"
)

// A container the kubelet restarted in its pod (restartCount above 0)
// starts a new log: the lines its ended instance logged after the last
// read are only in the previous log (pods/log previous=true), and the
// kubelet keeps that of the last ended instance alone. So when the pod's
// status shows more restarts than the last read saw, the previous log is
// read first, from the file's last line as the current one is, then the
// current log goes on from there; the count seen is then kept beside the
// file (restartsFile), the one piece of state besides the .podlog files.
// A job restored from a checkpoint logs steps again after this: the
// metrics readers keep the later points (package metrics, "purge orphaned
// data").

// restartsFile is where the restart count the last read saw is kept: a
// hidden file beside the container's, which metrics.Discover leaves out.
func restartsFile(podlog string) string {
	base := strings.TrimSuffix(filepath.Base(podlog), metrics.PodLogSuffix)
	return filepath.Join(filepath.Dir(podlog), "."+base+".restarts")
}

// restartState is what a restarts file says of a pod's container: the
// restart count the last read saw, and whether the instance whose log it
// read had ended and was read to its end (read while a crash loop waited
// to start the next: then none of its lines can be lost).
type restartState struct {
	count int32
	ended bool
}

// readRestarts reads the restarts file of pod uid's container ("UID COUNT
// ended" or "UID COUNT running"): the zero state without a file, or when
// the file is of another pod of the same name (made again in the same
// generation).
func readRestarts(path string, uid types.UID) (restartState, error) {
	b, err := readSmall(path, maxRestartsFile)
	if errors.Is(err, os.ErrNotExist) {
		return restartState{}, nil
	}
	if err != nil {
		return restartState{}, &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	f := strings.Fields(string(b))
	var n int64
	if len(f) == 3 {
		n, err = strconv.ParseInt(f[1], 10, 32)
	}
	if len(f) != 3 || err != nil || n < 0 || (f[2] != "ended" && f[2] != "running") || !strings.HasSuffix(string(b), "\n") {
		return restartState{}, &metrics.Error{File: path, Offset: -1, Line: 1, Msg: "not a file the kubernetes source wrote (want the pod's UID, a restart count, and ended or running)"}
	}
	if types.UID(f[0]) != uid {
		return restartState{}, nil
	}
	return restartState{count: int32(n), ended: f[2] == "ended"}, nil
}

// maxRestartsFile bounds what readRestarts reads: the file holds one short
// line, so anything longer is not one the source wrote.
const maxRestartsFile = 512

// readSmall reads the file at path if it holds at most max bytes; a larger
// file is an error, read no further than max+1 bytes.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("longer than %d bytes: not a file the kubernetes source wrote", max)
	}
	return b, nil
}

// writeRestarts replaces the file at once (table.AtomicWrite: a new file
// renamed over it, removed if a signal stops the write), so that a crash
// leaves the old state or the new, never half of one.
func writeRestarts(path string, uid types.UID, st restartState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	err := table.AtomicWrite(path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s %d %s\n", uid, st.count, map[bool]string{true: "ended", false: "running"}[st.ended])
		return err
	})
	if err != nil {
		return &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	return nil
}

func containerStatus(p *corev1.Pod, container string) *corev1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == container {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// restarts is a container's restart state for one fetch: the pod's status
// and what its restarts file says.
type restarts struct {
	file    string
	uid     types.UID
	count   int32 // the status's restartCount
	waiting bool  // crashed, waiting to start again: the current log is the ended instance's
	stored  restartState
}

// save writes st unless the file says it already.
func (r *restarts) save(lg *podlog, st restartState) error {
	if st == r.stored {
		return nil
	}
	// The lines in the file before the state that says they were read.
	if err := lg.flush(); err != nil {
		return err
	}
	if err := writeRestarts(r.file, r.uid, st); err != nil {
		return err
	}
	r.stored = st
	return nil
}

// current records, after the current log was read to its end, that a
// crashed instance waiting for its restart (whose log that is) was read
// whole.
func (r *restarts) current(lg *podlog, s streamed) error {
	if r == nil || !r.waiting || s.req != nil || !s.complete {
		return nil
	}
	return r.save(lg, restartState{count: r.count, ended: true})
}

// previous appends, when the container restarted since the last read,
// what its previous instance logged after lg's last line. It returns the
// bytes of this run's LimitBytes left for the current log, and ok false
// when the current log must wait for the next run: the previous one was
// not had whole (cut at the limit, its node unreachable), and is read
// first next time, since the current log's lines would move the file's
// last line past the rest of it.
func (c *Collector) previous(ctx context.Context, cl *kubeclient.Client, ns string, p *corev1.Pod, container, where string, lg *podlog, warn metrics.Warn) (limit int64, r *restarts, ok bool, err error) {
	cs := containerStatus(p, container)
	if cs == nil {
		return c.LimitBytes, nil, true, nil
	}
	r = &restarts{file: restartsFile(lg.path), uid: p.UID, count: cs.RestartCount,
		waiting: cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil}
	if r.count == 0 && !r.waiting {
		return c.LimitBytes, nil, true, nil // never restarted: previous=true is an error
	}
	if r.stored, err = readRestarts(r.file, p.UID); err != nil {
		return 0, nil, false, err
	}
	seen := r.stored
	if r.count <= seen.count {
		return c.LimitBytes, r, true, nil
	}
	// restartCount counts the instances started after the first; the
	// previous one is the one before the running instance or, while a
	// crash loop waits to start the next, the one that just ended. The
	// instance the last read saw was number seen.count: those from it
	// (unless it had ended and was read whole) to the one before the
	// previous are lost, the first of them only what it logged after the
	// last read.
	prev := r.count - 1
	if r.waiting {
		prev = r.count
	}
	lost := prev - seen.count
	if seen.ended {
		lost--
	}
	after := ""
	if lg.st.lines > 0 {
		after = " after " + lg.st.last.Format(time.RFC3339Nano)
	}
	var s streamed
	if prev > seen.count || !seen.ended { // else the previous log was read whole
		s, err = c.stream(ctx, cl, ns, p.Name, &corev1.PodLogOptions{Container: container, Previous: true}, c.LimitBytes, where, lg, warn)
		switch {
		case err != nil:
			return 0, nil, false, err
		case s.req != nil && apierrors.IsBadRequest(s.req):
			// The kubelet's answer: no such instance (its container removed).
			warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("the previous instance's log is gone (%s): what it logged%s is lost",
				strings.TrimSpace(s.req.Error()), after)})
		case s.req != nil:
			warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("the previous instance's log not fetched this time (%s): it is read next time, before the current one",
				strings.TrimSpace(s.req.Error()))})
			return 0, nil, false, nil
		case !s.complete:
			return 0, nil, false, nil
		}
	}
	if lost > 0 {
		warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("restarted %d %s since the last read (restartCount %d, was %d): the kubelet keeps the log of the last ended instance only, so what %d earlier %s logged%s is lost",
			r.count-seen.count, plural(int(r.count-seen.count), "time", "times"), r.count, seen.count, lost, plural(int(lost), "instance", "instances"), after)})
	}
	// While a crash loop waits, the previous instance is the one just
	// ended, now read whole.
	if err := r.save(lg, restartState{count: r.count, ended: r.waiting && s.req == nil}); err != nil {
		return 0, nil, false, err
	}
	return c.LimitBytes - s.n, r, true, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
