// Package kubebin hands a command over to optimus-kubernetes, the optimus
// binary that links client-go. The light binary (cmd/optimus) registers
// the Kubernetes family's entries without what carries them out, so that
// its start-up initialises none of client-go (issue 25); when a command
// chooses one of them (apply --executor kubernetes, snapshot pytorchjob,
// metrics --source kubernetes, print --manifests), the command calls
// IfUnlinked once its flags are checked, before it reads any input or
// writes any output, and optimus-kubernetes runs the same command line in
// its place.
package kubebin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Binary is the name of the optimus binary that links client-go.
const Binary = "optimus-kubernetes"

// envFrom is set, to the light binary's path, in the environment of the
// optimus-kubernetes it runs: a binary that would hand over again (a stale
// or misnamed optimus-kubernetes without client-go) fails instead of
// looping. The full binary clears it (MarkFull), so that the programs it
// runs do not inherit it.
const envFrom = "OPTIMUS_KUBERNETES_FROM"

var full bool

// MarkFull says this program is optimus-kubernetes: it never hands over.
// Its main calls it first.
func MarkFull() {
	full = true
	os.Unsetenv(envFrom)
}

// Error is a command this program cannot run and optimus-kubernetes could
// not be run for: optimus exits 2 (cmdutil.ExitCode).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// InvalidInput makes the error exit 2.
func (e *Error) InvalidInput() bool { return true }

// unlinked is a configuration (an executor's, a snapshot source's, a
// metric source's reader) that names what it needs and this program does
// not link, "" when nothing.
type unlinked interface{ Unlinked() string }

// IfUnlinked returns nil when x needs nothing this program does not link.
// Otherwise it checks x (its Check method, if any: a flag error is this
// program's to report) and runs optimus-kubernetes with this program's
// arguments, environment and standard streams: on unix in place of this
// program (execve: the same process, its signals and exit status), else
// as a child whose exit status this program exits with. optimus-kubernetes
// is looked for next to this program's executable, then on PATH. It
// returns an error only when it could not run it.
func IfUnlinked(ios *iostreams.IOStreams, x any) error {
	u, ok := x.(unlinked)
	if !ok {
		return nil
	}
	what := u.Unlinked()
	if what == "" {
		return nil
	}
	if c, ok := x.(interface{ Check() error }); ok {
		if err := c.Check(); err != nil {
			return err
		}
	}
	switch {
	case full:
		return fmt.Errorf("internal error (a bug in optimus: please report it): %s does not link %s", Binary, what)
	case !isSystem(ios):
		// In-process (tests): the streams are not the process's, so
		// another program cannot take them over.
		return &Error{Msg: fmt.Sprintf("%s is not linked into this program (%s links it)", what, Binary)}
	}
	self, _ := os.Executable()
	if from := os.Getenv(envFrom); from != "" {
		return &Error{Msg: fmt.Sprintf("%s does not link %s either (run by %s): install both binaries again with `go install ./cmd/...` from optimus' source tree, or `make install`", self, what, from)}
	}
	path, where := find(self)
	if path == "" {
		return &Error{Msg: fmt.Sprintf("%s needs %s, the optimus binary with the Kubernetes client, which is %s: install both binaries with `go install ./cmd/...` from optimus' source tree, or `make install`", what, Binary, where)}
	}
	return run(path, append(os.Environ(), envFrom+"="+self))
}

// find looks for optimus-kubernetes next to self, then on PATH. When it
// finds none, where says where it looked, and names a file next to self
// that is there but cannot be run (a copy that lost its mode bits), which
// would otherwise look like a missing one.
func find(self string) (path, where string) {
	where = "not on PATH"
	if self != "" {
		next := filepath.Join(filepath.Dir(self), Binary)
		p, err := exec.LookPath(next)
		if err == nil {
			return p, ""
		}
		where = "neither in " + filepath.Dir(self) + " nor on PATH"
		if errors.Is(err, fs.ErrPermission) {
			where = "not on PATH, and " + next + " is there but is not an executable file"
		}
	}
	if p, err := exec.LookPath(Binary); err == nil {
		return p, ""
	}
	return "", where
}

// isSystem reports whether ios are the process's own standard streams.
func isSystem(ios *iostreams.IOStreams) bool {
	return ios.In == io.Reader(os.Stdin) && ios.Out == io.Writer(os.Stdout) && ios.ErrOut == io.Writer(os.Stderr)
}
