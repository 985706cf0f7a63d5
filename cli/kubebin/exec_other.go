//go:build !unix

package kubebin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// run runs path as a child on this program's standard streams and exits
// with its status; it returns only when it could not run it.
func run(path string, env []string) error {
	cmd := exec.Command(path, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	// An interrupt reaches the child too (the console's process group):
	// the child decides, and this program waits for its status.
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", path, err)
	}
	os.Exit(0)
	return nil
}
