//go:build unix

package exec

import (
	osexec "os/exec"
	"syscall"
)

// ownProcessGroup starts the program in a process group of its own and makes
// cancellation kill the whole group, so that a shell script's children die
// with it.
func ownProcessGroup(cmd *osexec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
