// Package clitest runs optimus commands in-process for tests, as a user
// would run them: over injected streams (iostreams.Test), through
// cmdutil.Execute, so that the exit status is the one optimus' main returns
// (0, 1, 2 for usage and invalid input, 3 for a panic).
//
// It does not import the root command: the root command's own tests use
// it, and a command package's external tests pass root.NewCmd to run
// whole pipelines, or their own constructor to run one command alone.
//
// Its tests are in cli/root (clitest_test.go), run by cli/root's test binary,
// which links every command already: a test binary of this package's
// own would link Arrow again, some 4 CPU-seconds of every go test ./...
// (benchmarks/test-time.md, "Session 7, CPU of the tests").
package clitest

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

// A Command builds a command over the streams it is given: root.NewCmd, or
// a subcommand's constructor with its runF bound.
type Command func(*iostreams.IOStreams) *cobra.Command

// Run runs the command with args on stdin (none: nil) and returns its exit
// status, its standard output and its standard error. No stream is a
// terminal.
func (c Command) Run(t testing.TB, stdin []byte, args ...string) (code int, stdout []byte, stderr string) {
	t.Helper()
	code, stdout, stderr, _ = c.run(stdin, args)
	return code, stdout, stderr
}

// run runs the command and also returns its command line, for messages.
func (c Command) run(stdin []byte, args []string) (code int, stdout []byte, stderr, line string) {
	ios, in, out, errOut := iostreams.Test()
	in.Write(stdin)
	cmd := c(ios)
	// The root command silences cobra's own printing; a subcommand run
	// alone must too, so that errors are printed once, as optimus prints them.
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if args == nil {
		args = []string{} // cobra reads os.Args (the test binary's flags) when given nil
	}
	code = cmdutil.Execute(ios, cmd, args)
	return code, out.Bytes(), errOut.String(), strings.Join(append([]string{cmd.CommandPath()}, args...), " ")
}

// MustRun runs the command like Run and fails the test unless it exits 0;
// it returns standard output and standard error.
func (c Command) MustRun(t testing.TB, stdin []byte, args ...string) (stdout []byte, stderr string) {
	t.Helper()
	code, stdout, stderr, line := c.run(stdin, args)
	if code != cmdutil.ExitOK {
		t.Fatalf("%s: exit %d: %s", line, code, stderr)
	}
	return stdout, stderr
}

// Parse runs the command built by newCmd with args, capturing the options
// its runF receives instead of running it: what a command line parses
// into. It returns nil options and the exit status and standard error when
// the command line is refused before reaching runF (an unknown flag, a
// value of the wrong type, a wrong number of arguments).
func Parse[O any](t testing.TB, newCmd func(*iostreams.IOStreams, func(*O) error) *cobra.Command, args ...string) (opts *O, code int, stderr string) {
	t.Helper()
	opts, code, stderr, _ = parse(newCmd, args)
	return opts, code, stderr
}

func parse[O any](newCmd func(*iostreams.IOStreams, func(*O) error) *cobra.Command, args []string) (opts *O, code int, stderr, line string) {
	code, _, stderr, line = Command(func(ios *iostreams.IOStreams) *cobra.Command {
		return newCmd(ios, func(o *O) error { opts = o; return nil })
	}).run(nil, args)
	return opts, code, stderr, line
}

// MustParse is Parse that fails the test unless the command line reaches
// runF.
func MustParse[O any](t testing.TB, newCmd func(*iostreams.IOStreams, func(*O) error) *cobra.Command, args ...string) *O {
	t.Helper()
	opts, code, stderr, line := parse(newCmd, args)
	if opts == nil {
		t.Fatalf("%s: exit %d before running: %s", line, code, stderr)
	}
	return opts
}

// MustRefuse fails the test unless the command line is refused before it
// reaches runF, with exit status 2 (usage) and a message containing want.
func MustRefuse[O any](t testing.TB, newCmd func(*iostreams.IOStreams, func(*O) error) *cobra.Command, want string, args ...string) {
	t.Helper()
	opts, code, stderr, line := parse(newCmd, args)
	if opts != nil || code != cmdutil.ExitInvalid || !strings.Contains(stderr, want) {
		t.Errorf("%s: exit %d (ran: %v), %q; want exit 2 before running, and %q", line, code, opts != nil, stderr, want)
	}
}
