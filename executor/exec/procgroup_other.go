//go:build !unix

package exec

import osexec "os/exec"

// ownProcessGroup: without Unix process groups only the program itself is
// killed on timeout (os/exec's default).
func ownProcessGroup(*osexec.Cmd) {}
