package kubebin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

type config struct {
	unlinked string
	check    error
}

func (c config) Unlinked() string { return c.unlinked }
func (c config) Check() error     { return c.check }

// What this program links runs here; what it does not is checked first
// (a flag error is this program's), and in-process, where the streams are
// not the process's, it is refused (exit 2) rather than exec'd.
func TestIfUnlinked(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	for _, x := range []any{nil, 3, config{}, config{check: errors.New("unused")}} {
		if err := IfUnlinked(ios, x); err != nil {
			t.Errorf("%#v: %v, want nil (linked)", x, err)
		}
	}
	bad := errors.New("--namespace is wrong")
	if err := IfUnlinked(ios, config{unlinked: "the kubernetes executor", check: bad}); err != bad {
		t.Errorf("a failing Check: %v, want it", err)
	}
	err := IfUnlinked(ios, config{unlinked: "the kubernetes executor"})
	if err == nil || err.Error() != "the kubernetes executor is not linked into this program (optimus-kubernetes links it)" {
		t.Errorf("in-process: %v", err)
	}
	if code := cmdutil.ExitCode(err); code != 2 {
		t.Errorf("in-process: exit %d, want 2", code)
	}
	full = true
	defer func() { full = false }()
	if err := IfUnlinked(ios, config{unlinked: "x"}); err == nil || !strings.Contains(err.Error(), "internal error") || cmdutil.ExitCode(err) != 1 {
		t.Errorf("the full binary never hands over: %v", err)
	}
}

// optimus-kubernetes is looked for next to this program first, then on
// PATH; a file there that cannot be run is named, not taken for missing.
func TestFind(t *testing.T) {
	self := filepath.Join(t.TempDir(), "optimus")
	onPath := t.TempDir()
	t.Setenv("PATH", onPath)
	next := filepath.Join(filepath.Dir(self), Binary)
	if p, where := find(self); p != "" || where != "neither in "+filepath.Dir(self)+" nor on PATH" {
		t.Errorf("none: %q, %q", p, where)
	}
	if p, where := find(""); p != "" || where != "not on PATH" {
		t.Errorf("no executable path: %q, %q", p, where)
	}
	if err := os.WriteFile(next, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, where := find(self); p != "" || where != "not on PATH, and "+next+" is there but is not an executable file" {
		t.Errorf("not executable: %q, %q", p, where)
	}
	other := filepath.Join(onPath, Binary)
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, _ := find(self); p != other {
		t.Errorf("on PATH: %q, want %q", p, other)
	}
	if err := os.Chmod(next, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, _ := find(self); p != next {
		t.Errorf("next to it and on PATH: %q, want %q (next to it first)", p, next)
	}
}
