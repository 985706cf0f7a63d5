//go:build unix

package table

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with the id runs (or may: any
// answer but "no such process" counts as yes).
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
