//go:build unix

package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// A FIFO (or a link, or a directory) where the lock file goes is refused
// at once: opening a FIFO would wait for a writer without end.
func TestLockFileMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(Path(fifo), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Lock(context.Background(), fifo, time.Second); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
			t.Errorf("a FIFO lock file: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Lock on a FIFO lock file still waiting after 10 s")
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(Path(sub), 0o755)
	if _, err := Lock(context.Background(), sub, 0); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("a directory lock file: %v", err)
	}
}

// A link and its target are one lock.
func TestLinkAndTargetAreOneLock(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "state.parquet")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(t.TempDir(), "link.parquet")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	unlock, err := Lock(context.Background(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var held *HeldError
	if _, err := Lock(context.Background(), link, 0); !errors.As(err, &held) || held.Lock != target+".lock" {
		t.Errorf("through the link: %v, want the target's lock held", err)
	}
	unlockDir, err := Lock(context.Background(), dir+"/", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlockDir()
	if _, err := Lock(context.Background(), dir, 0); !errors.As(err, &held) {
		t.Errorf("a directory with and without its trailing slash: %v, want one lock", err)
	}
}
