// Package iostreams carries a command's standard streams and whether each is
// a terminal, so that commands can be run in-process by tests with buffers
// in place of the real streams.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	verbosity                      Verbosity
}

// Verbosity says how much a command says on standard error besides its
// errors (set by optimus' --quiet and --verbose).
type Verbosity int

// Verbosities.
const (
	Quiet   Verbosity = -1 // errors only: what cron mails is what went wrong
	Normal  Verbosity = 0  // warnings and notes; summaries when standard error is a terminal
	Verbose Verbosity = 1  // summaries too, wherever standard error goes
)

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Test returns streams over buffers, none a terminal, and the buffers.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdinTTY reports whether standard input is a terminal (no piped input).
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether standard output is a terminal (a person
// reads it, so tables are printed as text rather than Arrow).
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether standard error is a terminal (progress may be
// shown there).
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// Verbosity is what --quiet and --verbose asked for.
func (s *IOStreams) Verbosity() Verbosity { return s.verbosity }

// SetVerbosity sets it.
func (s *IOStreams) SetVerbosity(v Verbosity) { s.verbosity = v }

// SetStdinTTY, SetStdoutTTY and SetStderrTTY let tests pretend.
func (s *IOStreams) SetStdinTTY(v bool)  { s.stdinTTY = v }
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }
