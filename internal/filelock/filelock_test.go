//go:build unix

package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A SIGTERM while a run waits for the lock ends the wait (ErrInterrupted)
// instead of the process: the caller says what was not done.
func TestSignalEndsTheWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	unlock, err := Lock(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	time.AfterFunc(200*time.Millisecond, func() { syscall.Kill(syscall.Getpid(), syscall.SIGTERM) })
	start := time.Now()
	_, err = Lock(context.Background(), path, time.Minute)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the wait ended after %s", d)
	}
	var held *HeldError
	if _, err := Lock(context.Background(), path, 0); !errors.As(err, &held) || held.Where() == held.Lock {
		t.Errorf("a held lock: %v, want a HeldError naming its holder", err)
	}
}
