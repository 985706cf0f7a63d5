package kubelogs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/optimus-sched/optimus/executor/kubeclient"
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

// readRestarts reads the restart count the last read saw of pod uid's
// container: 0 without a file, or when the file is of another pod of the
// same name (made again in the same generation).
func readRestarts(path string, uid types.UID) (int32, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	f := strings.Fields(string(b))
	var n int64
	if len(f) == 2 {
		n, err = strconv.ParseInt(f[1], 10, 32)
	}
	if len(f) != 2 || err != nil || n < 0 || !strings.HasSuffix(string(b), "\n") {
		return 0, &metrics.Error{File: path, Offset: -1, Line: 1, Msg: "not a file the kubernetes source wrote (want the pod's UID and a restart count)"}
	}
	if types.UID(f[0]) != uid {
		return 0, nil
	}
	return int32(n), nil
}

// writeRestarts replaces the file at once (a new file renamed over it), so
// that a crash leaves the old count or the new, never half of one.
func writeRestarts(path string, uid types.UID, n int32) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	_, err = fmt.Fprintf(f, "%s %d\n", uid, n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
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

// previous appends, when the container restarted since the last read,
// what its previous instance logged after lg's last line. It returns the
// bytes of this run's LimitBytes left for the current log, and ok false
// when the current log must wait for the next run: the previous one was
// not had whole (cut at the limit, its node unreachable), and is read
// first next time, since the current log's lines would move the file's
// last line past the rest of it.
func (c *Collector) previous(ctx context.Context, cl *kubeclient.Client, ns string, p *corev1.Pod, container, where string, lg *podlog, warn metrics.Warn) (limit int64, ok bool, err error) {
	cs := containerStatus(p, container)
	if cs == nil || cs.RestartCount == 0 {
		return c.LimitBytes, true, nil // never restarted: previous=true is an error
	}
	file := restartsFile(lg.path)
	seen, err := readRestarts(file, p.UID)
	if err != nil || cs.RestartCount <= seen {
		return c.LimitBytes, err == nil, err
	}
	after := ""
	if lg.st.lines > 0 {
		after = " after " + lg.st.last.Format(time.RFC3339Nano)
	}
	s, err := c.stream(ctx, cl, ns, p.Name, &corev1.PodLogOptions{Container: container, Previous: true}, c.LimitBytes, where, lg, warn)
	switch {
	case err != nil:
		return 0, false, err
	case s.req != nil && apierrors.IsBadRequest(s.req):
		// The kubelet's answer: no such instance (its container removed).
		warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("the previous instance's log is gone (%s): what it logged%s is lost",
			strings.TrimSpace(s.req.Error()), after)})
	case s.req != nil:
		warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("the previous instance's log not fetched this time (%s): it is read next time, before the current one",
			strings.TrimSpace(s.req.Error()))})
		return 0, false, nil
	case !s.complete:
		return 0, false, nil
	}
	// restartCount counts the instances started after the first; the
	// previous one is the one before the running instance or, while a
	// crash loop waits to start the next, the one that just ended. The
	// instance the last read saw was number seen; those from it to the
	// one before the previous are lost (the first of them, only what it
	// logged after the last read).
	prev := cs.RestartCount - 1
	if cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil {
		prev = cs.RestartCount
	}
	if lost := prev - seen; lost > 0 {
		warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("restarted %d times since the last read (restartCount %d, was %d): the kubelet keeps the log of the last ended instance only, so what %d earlier %s logged%s is lost",
			cs.RestartCount-seen, cs.RestartCount, seen, lost, plural(int(lost), "instance", "instances"), after)})
	}
	// The lines on disk before the count that says they were read.
	if err := lg.flush(); err != nil {
		return 0, false, err
	}
	if err := writeRestarts(file, p.UID, cs.RestartCount); err != nil {
		return 0, false, err
	}
	return c.LimitBytes - s.n, true, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
