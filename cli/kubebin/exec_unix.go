//go:build unix

package kubebin

import (
	"fmt"
	"os"
	"syscall"
)

// run replaces this program with path: it returns only when it could not.
func run(path string, env []string) error {
	err := syscall.Exec(path, os.Args, env)
	return fmt.Errorf("running %s: %w", path, err)
}
