// Package filelock is the lock that keeps two optimus runs from changing
// the same files at once: an advisory flock(2) (github.com/gofrs/flock) on
// a lock file beside them, waited for with a bound, that names its holder.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/optimus-sched/optimus/internal/interrupt"
)

// Path is the lock file of path: beside the file path names, through
// symbolic links (so that a link and its target, or a directory given
// with or without its trailing slash, are one lock), made on first use
// and never removed (removing it would let a second run lock a new file
// while the first still holds the old one).
func Path(path string) string { return resolve(path) + ".lock" }

// resolve is path with its symbolic links followed: the whole path when
// it exists, else its directory's.
func resolve(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(d, filepath.Base(path))
	}
	return filepath.Clean(path)
}

// retry is how often a waiting run tries the lock again.
const retry = 50 * time.Millisecond

// HeldError says another process held the lock for the whole wait.
type HeldError struct {
	Lock   string        // the lock file
	Holder string        // what the holder wrote into it ("" if nothing)
	Waited time.Duration // how long this run waited
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("held by another process (%s); waited %s", e.Where(), e.Waited)
}

// Where is the lock file and, quoted, what its holder wrote into it.
func (e *HeldError) Where() string {
	if e.Holder == "" {
		return e.Lock
	}
	return fmt.Sprintf("%s, %q", e.Lock, e.Holder)
}

// ErrInterrupted is the error of a wait that ctx ended.
var ErrInterrupted = errors.New("interrupted while waiting for the lock")

// Lock takes the exclusive lock of path (on Path(path)), waiting up to
// wait while another process holds it (not at all when wait <= 0), and
// gives up at once when ctx ends or a signal that interrupts optimus
// (internal/interrupt) arrives meanwhile (ErrInterrupted). The holder's process
// id, host and start are written into the lock file, for the message of
// a run that waits in vain (*HeldError), and cleared by unlock. The lock
// is held until unlock or the process's end: a killed holder holds
// nothing.
func Lock(ctx context.Context, path string, wait time.Duration) (unlock func(), err error) {
	// Opening a FIFO or a device there would block or reach it: only a
	// regular file (or none yet) is a lock file.
	lock := Path(path)
	if fi, err := os.Lstat(lock); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): remove it", lock, fi.Mode().Type())
	}
	l := flock.New(lock, flock.SetPermissions(0o644))
	start := time.Now()
	var ok bool
	if wait <= 0 {
		ok, err = l.TryLock()
	} else {
		if sigs := interrupt.Signals(); len(sigs) > 0 {
			var stop context.CancelFunc
			ctx, stop = signal.NotifyContext(ctx, sigs...)
			defer stop()
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		ok, err = l.TryLockContext(wctx, retry)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = nil
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ErrInterrupted
	case err != nil:
		return nil, err
	case !ok:
		return nil, &HeldError{Lock: l.Path(), Holder: holder(l.Path()), Waited: time.Since(start).Round(time.Millisecond)}
	}
	note(l.Path(), fmt.Sprintf("pid %d on %s since %s\n", os.Getpid(), hostname(), start.UTC().Format(time.RFC3339)))
	return func() {
		note(l.Path(), "")
		_ = l.Unlock()
	}, nil
}

// maxHolder bounds what is read of a lock file for the message.
const maxHolder = 256

// note writes who holds the lock into the lock file (best effort: the
// lock is what counts).
func note(path, who string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return
	}
	f.WriteString(who)
	f.Close()
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "an unknown host"
	}
	return h
}

// holder is the lock file's note: its first line, at most maxHolder bytes.
func holder(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, maxHolder)
	n, _ := f.Read(b)
	line, _, _ := strings.Cut(string(b[:n]), "\n")
	return strings.TrimSpace(line)
}
