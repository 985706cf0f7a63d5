// Package kubelogs is the kubernetes metric source: the logs of the pods the
// kubernetes executor made, fetched through the API server's pods/log
// subresource into files that the metrics package's text sources read. It
// is its own package so that client-go stays out of package metrics.
package kubelogs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/metrics"
)

// Collector fetches the chosen pods' logs (metrics.Collector).
type Collector struct {
	Conn kubeclient.Options
	// Roles are the roles whose pods are read (nil: all); Index the task
	// index read of each role (-1: all).
	Roles map[string]bool
	Index int
	// LimitBytes bounds what one container's log gives per run.
	LimitBytes int64
	Timeout    time.Duration
}

// maxStamp is the longest kubelet time prefix (RFC 3339 with nanoseconds
// and a zone offset) and its space.
const maxStamp = len("2006-01-02T15:04:05.999999999-07:00 ")

// generation is one generation of a job: its pods and their configuration.
type generation struct {
	job, gen string
	ps, w    int
}

// Collect lists the optimus pods and appends each chosen container's new
// lines to its file under root.
func (c *Collector) Collect(ctx context.Context, root string, warn metrics.Warn) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cl, err := kubeclient.Connect(c.Conn)
	if err != nil {
		return err
	}
	ns := cl.Namespace
	list, err := cl.Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: k8s.ManagedSelector})
	if err != nil {
		return fmt.Errorf("kubernetes: listing the optimus pods of namespace %s: %w", ns, err)
	}
	pods := list.Items
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	gens := map[[2]string]*generation{}
	for _, p := range pods {
		key := [2]string{p.Labels[k8s.LabelJob], p.Labels[k8s.LabelGeneration]}
		g := gens[key]
		if g == nil {
			g = &generation{job: key[0], gen: key[1]}
			gens[key] = g
		}
		switch p.Labels[k8s.LabelRole] {
		case "ps":
			g.ps++
		case "worker":
			g.w++
		}
	}
	for _, p := range pods {
		g := gens[[2]string{p.Labels[k8s.LabelJob], p.Labels[k8s.LabelGeneration]}]
		where := "pod " + ns + "/" + p.Name
		if why := badName(g.job); why != "" {
			warn(&metrics.Error{File: where, Offset: -1, Msg: "label " + k8s.LabelJob + " " + why + ": its logs are left out"})
			continue
		}
		if why := badName(g.gen); why != "" && g.gen != "" {
			warn(&metrics.Error{File: where, Offset: -1, Msg: "label " + k8s.LabelGeneration + " " + why + ": its logs are left out"})
			continue
		}
		if c.Roles != nil && !c.Roles[p.Labels[k8s.LabelRole]] {
			continue
		}
		if c.Index >= 0 && p.Labels[k8s.LabelIndex] != strconv.Itoa(c.Index) {
			continue
		}
		dir := filepath.Join(root, g.job, genDir(g.gen), configDir(g.ps, g.w))
		for _, ct := range p.Spec.Containers {
			if err := c.fetch(ctx, cl, ns, &p, ct.Name, filepath.Join(dir, p.Name+"."+ct.Name+metrics.PodLogSuffix), warn); err != nil {
				return err
			}
		}
	}
	return nil
}

// badName says why a label value cannot name a directory ("" when it
// can): label values are validated by the API server, but a foreign pod's
// are checked again here because they become paths.
func badName(v string) string {
	if v == "" {
		return "is empty"
	}
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		return fmt.Sprintf("%q is not a label value", v)
	}
	return ""
}

func genDir(gen string) string {
	if gen == "" {
		return "gen"
	}
	return "gen-" + gen
}

// configDir names a configuration the way metrics.ConfigFromPath reads it.
func configDir(ps, w int) string {
	if ps == 0 {
		return "w" + strconv.Itoa(w)
	}
	return "ps" + strconv.Itoa(ps) + "-w" + strconv.Itoa(w)
}

// state is what a container's file says of what was fetched before.
type state struct {
	size   int64     // bytes of whole lines (a line cut short by a crash is dropped)
	last   time.Time // the last line's time
	atLast int       // lines kept at that time
	lines  int
}

// readState reads a container's file: the time of its last line and how
// many lines share it, which the next fetch starts from.
func readState(path string) (state, error) {
	var st state
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, &metrics.Error{File: path, Offset: -1, Msg: err.Error()}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var pos int64
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Only the time at the start matters: read it, skip the rest.
			head := append([]byte(nil), line[:min(len(line), maxStamp)]...)
			n := int64(len(line))
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				n += int64(len(line))
			}
			if err != nil {
				break // a last line without its newline
			}
			if err := st.add(path, head, n, &pos); err != nil {
				return st, err
			}
			continue
		}
		if err != nil {
			break
		}
		if err := st.add(path, line, int64(len(line)), &pos); err != nil {
			return st, err
		}
	}
	st.size = pos
	return st, nil
}

func (st *state) add(path string, line []byte, n int64, pos *int64) error {
	st.lines++
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		i = len(bytes.TrimRight(line, "\n"))
	}
	t, err := time.Parse(time.RFC3339Nano, string(line[:i]))
	if err != nil {
		return &metrics.Error{File: path, Offset: -1, Line: st.lines, Msg: "the line does not start with an RFC 3339 time: not a file the kubernetes source wrote"}
	}
	switch {
	case t.After(st.last):
		st.last, st.atLast = t, 1
	case t.Equal(st.last):
		st.atLast++
	}
	*pos += n
	return nil
}

// podlog is a container's file being appended to: what it held (its
// state, brought up to date as lines are kept, so that a second stream,
// the current log after the previous one, goes on from the first) and the
// writer, opened at the first line kept.
type podlog struct {
	path string
	st   state
	out  *os.File
	bw   *bufio.Writer
}

func (lg *podlog) write(t time.Time, b ...[]byte) error {
	if lg.out == nil {
		if err := os.MkdirAll(filepath.Dir(lg.path), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(lg.path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		lg.out = out
		// Drop a last line cut short (a crash while appending): it is
		// fetched again, being after the last whole line.
		if err := out.Truncate(lg.st.size); err != nil {
			return err
		}
		if _, err := out.Seek(lg.st.size, io.SeekStart); err != nil {
			return err
		}
		lg.bw = bufio.NewWriterSize(out, 64<<10)
	}
	for _, p := range b {
		n, err := lg.bw.Write(p)
		lg.st.size += int64(n)
		if err != nil {
			return err
		}
	}
	lg.st.lines++
	switch {
	case t.After(lg.st.last):
		lg.st.last, lg.st.atLast = t, 1
	case t.Equal(lg.st.last):
		lg.st.atLast++
	}
	return nil
}

// flush writes what was appended into the file (before the restarts file
// that says it was read: restarts.go).
func (lg *podlog) flush() error {
	if lg.bw == nil {
		return nil
	}
	if err := lg.bw.Flush(); err != nil {
		return &metrics.Error{File: lg.path, Offset: -1, Msg: err.Error()}
	}
	return nil
}

func (lg *podlog) close() error {
	if lg.out == nil {
		return nil
	}
	err := lg.flush()
	if cerr := lg.out.Close(); err == nil && cerr != nil {
		err = &metrics.Error{File: lg.path, Offset: -1, Msg: cerr.Error()}
	}
	lg.out, lg.bw = nil, nil
	return err
}

// fetch appends a container's lines logged since its file's last line:
// after a restart, first the previous instance's (restarts.go), then the
// current one's.
func (c *Collector) fetch(ctx context.Context, cl *kubeclient.Client, ns string, p *corev1.Pod, container, path string, warn metrics.Warn) error {
	where := fmt.Sprintf("pod %s/%s container %s", ns, p.Name, container)
	st, err := readState(path)
	if err != nil {
		return err
	}
	lg := &podlog{path: path, st: st}
	limit, r, ok, err := c.previous(ctx, cl, ns, p, container, where, lg, warn)
	if err != nil || !ok {
		return closeErr(lg, err)
	}
	s, err := c.stream(ctx, cl, ns, p.Name, &corev1.PodLogOptions{Container: container}, limit, where, lg, warn)
	if err == nil {
		err = r.current(lg, s)
	}
	if err != nil {
		return closeErr(lg, err)
	}
	if s.req != nil {
		// Not started yet, gone since the list, its node unreachable:
		// read next time.
		why := strings.TrimSpace(s.req.Error())
		msg := "no log yet: " + why
		if lg.st.lines > 0 {
			msg = "no new lines this time: " + why
		}
		warn(&metrics.Error{File: where, Offset: -1, Msg: msg})
	} else if lg.st.lines == 0 {
		warn(&metrics.Error{File: where, Offset: -1, Msg: "no log lines yet"})
	}
	return lg.close()
}

// streamed is what one log request gave.
type streamed struct {
	n int64 // bytes
	// req is the request's error when the log could not be had (the
	// caller says what that means).
	req error
	// complete is false when the stream stopped short of the log's end
	// (at limitBytes, or broken off).
	complete bool
}

// stream asks pods/log for the lines of a container's log from lg's last
// line on (sinceTime, in whole seconds: the lines of that second already
// kept are skipped here), at most limit bytes, and appends them to lg. An
// error means the run cannot go on.
func (c *Collector) stream(ctx context.Context, cl *kubeclient.Client, ns, pod string, opts *corev1.PodLogOptions, limit int64, where string, lg *podlog, warn metrics.Warn) (streamed, error) {
	opts.Timestamps, opts.LimitBytes = true, &limit
	if !lg.st.last.IsZero() {
		since := metav1.NewTime(lg.st.last)
		opts.SinceTime = &since
	}
	rc, rerr := cl.PodLogs(ctx, ns, pod, opts)
	if rerr != nil {
		if apierrors.IsForbidden(rerr) || apierrors.IsUnauthorized(rerr) {
			return streamed{}, fmt.Errorf("kubernetes: reading the log of %s: %w (the Role needs get on pods/log: deploy/rbac.yaml)", where, rerr)
		}
		if ctx.Err() != nil {
			return streamed{}, fmt.Errorf("kubernetes: reading the log of %s: %w", where, rerr)
		}
		return streamed{req: rerr}, nil
	}
	defer rc.Close()
	from, skipAtLast := lg.st.last, lg.st.atLast
	cr := &countReader{r: rc}
	br := bufio.NewReaderSize(cr, 64<<10)
	no := 0
	complete := true
	for {
		line, rerr := br.ReadSlice('\n')
		var long int64 // a line longer than metrics.MaxLine: its length
		if errors.Is(rerr, bufio.ErrBufferFull) {
			full := append([]byte(nil), line...)
			for errors.Is(rerr, bufio.ErrBufferFull) && len(full) <= metrics.MaxLine+maxStamp {
				line, rerr = br.ReadSlice('\n')
				full = append(full, line...)
			}
			if errors.Is(rerr, bufio.ErrBufferFull) {
				long = int64(len(full))
				full = full[:maxStamp]
				for errors.Is(rerr, bufio.ErrBufferFull) {
					line, rerr = br.ReadSlice('\n')
					long += int64(len(line))
				}
			}
			line = full
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			if ctx.Err() != nil {
				return streamed{}, fmt.Errorf("kubernetes: reading the log of %s: %w", where, rerr)
			}
			warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("the log stream broke off after %d lines (%v): the rest is read next time", no, rerr)})
			complete = false
			break
		}
		if rerr != nil && long == 0 && (len(line) == 0 || line[len(line)-1] != '\n') {
			// io.EOF: the stream ended without a newline (limitBytes, or a
			// line still being written): fetched whole next time, unless it
			// is already longer than any line read.
			if len(line) <= metrics.MaxLine+maxStamp {
				break
			}
			long = int64(len(line))
			line = line[:maxStamp]
		}
		no++
		i := bytes.IndexByte(line, ' ')
		if i < 0 {
			i = len(bytes.TrimRight(line, "\n"))
		}
		t, err := time.Parse(time.RFC3339Nano, string(line[:i]))
		if err != nil {
			warn(&metrics.Error{File: where, Offset: -1, Msg: "no kubelet time at the start of line " + strconv.Itoa(no) + " of this fetch: skipped"})
		} else if t.Before(from) {
			// Before the last line kept: the rest of sinceTime's second.
		} else if t.Equal(from) && skipAtLast > 0 {
			skipAtLast--
		} else {
			if long > 0 {
				// Kept as its time alone, so that the next fetch goes on
				// after it.
				warn(&metrics.Error{File: where, Offset: -1, Msg: fmt.Sprintf("the line logged at %s has %d bytes, more than %d: skipped", line[:i], long-int64(i)-2, metrics.MaxLine)})
				err = lg.write(t, line[:i], []byte{'\n'})
			} else {
				err = lg.write(t, bytes.TrimRight(line, "\r\n"), []byte{'\n'})
			}
			if err != nil {
				return streamed{}, &metrics.Error{File: lg.path, Offset: -1, Msg: err.Error()}
			}
		}
		if rerr != nil {
			break
		}
	}
	// A stream of limit bytes may have been cut there (the kubelet's
	// limitBytes gives no sign of it).
	return streamed{n: cr.n, complete: complete && cr.n < limit}, nil
}

// countReader counts the bytes a stream gave.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func closeErr(lg *podlog, err error) error {
	if cerr := lg.close(); err == nil {
		err = cerr
	}
	return err
}
