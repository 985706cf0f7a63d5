package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// DefaultWait is how long an apply waits for another that holds the same
// state file, as the kubernetes executor waits for its namespace's Lease.
const DefaultWait = 30 * time.Second

// lockRetry is how often a waiting apply tries the lock again.
const lockRetry = 50 * time.Millisecond

// LockPath is the lock file of the state file at path: beside it, made on
// first use and never removed (removing it would let a second apply lock a
// new file while the first still holds the old one).
func LockPath(path string) string { return path + ".lock" }

// HeldError says another apply held the state file's lock for the whole
// wait.
type HeldError struct {
	State  string
	Holder string // what the holder wrote into the lock file ("" if nothing)
	Waited time.Duration
}

func (e *HeldError) Error() string {
	holder := ""
	if e.Holder != "" {
		holder = fmt.Sprintf(", %q", e.Holder)
	}
	return fmt.Sprintf("--state %s: another optimus apply holds it (%s%s) and records what runs when it ends; waited %s (--state-wait); nothing was changed",
		e.State, LockPath(e.State), holder, e.Waited)
}

// Lock takes the exclusive lock of the state file at path, so that one
// apply at a time reads what runs, changes it and records it: two applies
// that overlap (a cron round that outlasts its interval) would otherwise
// both read the same state, both make the same changes, and the later
// record would drop the earlier's. It waits up to wait while another
// process holds the lock (not at all when wait <= 0) and gives up at once
// when ctx ends. The lock is an advisory flock(2) on LockPath(path), held
// until unlock (or the process's end: a killed apply holds nothing).
func Lock(ctx context.Context, path string, wait time.Duration) (unlock func(), err error) {
	l := flock.New(LockPath(path), flock.SetPermissions(0o644))
	start := time.Now()
	var ok bool
	if wait <= 0 {
		ok, err = l.TryLock()
	} else {
		wctx, cancel := context.WithTimeout(ctx, wait)
		ok, err = l.TryLockContext(wctx, lockRetry)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = nil
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("--state %s: interrupted while waiting for another optimus apply that holds it (%s); nothing was changed", path, LockPath(path))
	case err != nil:
		return nil, fmt.Errorf("--state %s: cannot lock it: %w", path, err)
	case !ok:
		return nil, &HeldError{State: path, Holder: holder(LockPath(path)), Waited: time.Since(start).Round(time.Millisecond)}
	}
	note(l, fmt.Sprintf("pid %d on %s since %s\n", os.Getpid(), hostname(), start.UTC().Format(time.RFC3339)))
	return func() {
		note(l, "")
		_ = l.Unlock()
	}, nil
}

// maxHolder bounds what is read of a lock file for the message.
const maxHolder = 256

// note writes who holds the lock into the lock file (and "" as the lock
// is given back), for the message of an apply that waits in vain; best
// effort: the lock is what counts.
func note(l *flock.Flock, who string) {
	f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_TRUNC, 0)
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

// holder is the lock file's note, one line at most maxHolder bytes.
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
