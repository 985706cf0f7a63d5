package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optimus-sched/optimus/internal/filelock"
)

// DefaultWait is how long an apply waits for another that holds the same
// state file, as the kubernetes executor waits for its namespace's Lease.
const DefaultWait = 30 * time.Second

// LockPath is the lock file of the state file at path (filelock.Path).
func LockPath(path string) string { return filelock.Path(path) }

// Lock takes the exclusive lock of the state file at path, so that one
// apply at a time reads what runs, changes it and records it: two applies
// that overlap (a cron round that outlasts its interval) would otherwise
// both read the same state, both make the same changes, and the later
// record would drop the earlier's. It waits up to wait while another
// holds it (not at all when wait <= 0) and gives up when ctx ends or a
// signal arrives.
func Lock(ctx context.Context, path string, wait time.Duration) (unlock func(), err error) {
	unlock, err = filelock.Lock(ctx, path, wait)
	var held *filelock.HeldError
	switch {
	case errors.As(err, &held):
		return nil, fmt.Errorf("--state %s: another optimus apply holds it (%s) and records what runs when it ends; waited %s (--state-wait); nothing was changed",
			path, held.Where(), held.Waited)
	case errors.Is(err, filelock.ErrInterrupted):
		return nil, fmt.Errorf("--state %s: interrupted while waiting for another optimus apply that holds it (%s); nothing was changed", path, LockPath(path))
	case err != nil:
		return nil, fmt.Errorf("--state %s: cannot lock it: %w", path, err)
	}
	return unlock, nil
}
