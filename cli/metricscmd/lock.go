package metricscmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/optimus-sched/optimus/internal/filelock"
	"github.com/optimus-sched/optimus/metrics"
)

// RootLock is the file under ROOT a collecting run locks (filelock.Path
// of it): hidden, so the readers skip it, and inside ROOT, which the
// collector writes anyway (its parent need not be writable).
func RootLock(root string) string { return filepath.Join(root, ".optimus-metrics") }

// lockRoot takes ROOT's lock for the rest of the run, so that one run at a
// time fetches into ROOT and reads it: two cron rounds that overlap would
// otherwise append to the same files at once, and one could read a file
// while the other writes its last line.
func lockRoot(root string, c metrics.Collector) (unlock func(), err error) {
	wait, flag := 30*time.Second, ""
	if w, ok := c.(metrics.LockWaiter); ok {
		wait, flag = w.LockWait()
	}
	unlock, err = filelock.Lock(context.Background(), RootLock(root), wait)
	var held *filelock.HeldError
	switch {
	case errors.As(err, &held):
		if flag != "" {
			flag = " (" + flag + ")"
		}
		return nil, fmt.Errorf("metrics: %s: another optimus metrics run collects into it (%s); waited %s%s; nothing was fetched", root, held.Where(), held.Waited, flag)
	case errors.Is(err, filelock.ErrInterrupted):
		return nil, fmt.Errorf("metrics: %s: interrupted while waiting for another optimus metrics run that collects into it (%s); nothing was fetched", root, filelock.Path(RootLock(root)))
	case err != nil:
		return nil, fmt.Errorf("metrics: %s: cannot lock it: %w", root, err)
	}
	return unlock, nil
}
