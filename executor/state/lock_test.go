package state

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One holder at a time: a second Lock of the same state fails at once
// (wait 0) or after its wait, naming the holder; it succeeds once the
// first lets go, within its wait; an ended context ends the wait.
func TestLockIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.parquet")
	unlock, err := Lock(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	note, _ := os.ReadFile(LockPath(path))
	if !strings.HasPrefix(string(note), "pid ") {
		t.Errorf("the lock file says %q, want the holder's pid", note)
	}

	for _, wait := range []time.Duration{0, -time.Second, 150 * time.Millisecond} {
		start := time.Now()
		_, err := Lock(context.Background(), path, wait)
		if err == nil {
			t.Fatalf("wait %s: a second Lock succeeded", wait)
		}
		if wait > 0 && time.Since(start) < wait {
			t.Errorf("wait %s: gave up after %s", wait, time.Since(start))
		}
		if !strings.Contains(err.Error(), path+".lock, \"pid ") || !strings.Contains(err.Error(), "(--state-wait); nothing was changed") {
			t.Errorf("wait %s: %v", wait, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := Lock(ctx, path, time.Minute); err == nil || !strings.Contains(err.Error(), "interrupted while waiting") {
		t.Errorf("a cancelled wait gave %v", err)
	}

	time.AfterFunc(200*time.Millisecond, unlock)
	unlock2, err := Lock(context.Background(), path, 10*time.Second)
	if err != nil {
		t.Fatalf("after the holder let go: %v", err)
	}
	unlock2()
	if note, _ := os.ReadFile(LockPath(path)); len(note) != 0 {
		t.Errorf("an unlocked lock file still says %q", note)
	}
	// The lock file stays, and locks again.
	unlock3, err := Lock(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock3()
}

func TestLockInAMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "state.parquet")
	if _, err := Lock(context.Background(), path, 0); err == nil || !strings.Contains(err.Error(), "cannot lock it") {
		t.Errorf("got %v", err)
	}
}
