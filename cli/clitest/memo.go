package clitest

import (
	"strings"
	"sync"
	"testing"
)

// A Memo runs each command line once per test binary and gives its exit
// status, standard output and standard error to every test that runs the
// same line again: for tests that check different things on one run of a
// command that writes no file (a simulation's summary on standard output,
// say). Standard input is empty.
type Memo struct {
	cmd  Command
	mu   sync.Mutex
	runs map[string]memoRun
}

type memoRun struct {
	code   int
	stdout []byte
	stderr string
}

// NewMemo returns a Memo that runs cmd.
func NewMemo(cmd Command) *Memo { return &Memo{cmd: cmd} }

// Run runs args like Command.Run, or returns what the same command line
// gave before. Callers must not change the standard output it returns.
func (m *Memo) Run(t testing.TB, args ...string) (code int, stdout []byte, stderr string) {
	t.Helper()
	key := strings.Join(args, "\x00")
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.runs[key]; ok {
		return r.code, r.stdout, r.stderr
	}
	code, stdout, stderr, _ = m.cmd.run(nil, args)
	if m.runs == nil {
		m.runs = map[string]memoRun{}
	}
	m.runs[key] = memoRun{code, stdout, stderr}
	return code, stdout, stderr
}
