package exec

import (
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/executor"
)

// A job name the program would read as an option, or one a terminal would
// act on, is refused before anything runs: in the plan, and in what runs now
// (a stop is called with its name too).
func TestExecRefusesNamesThatCannotBeArguments(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	prog := script(t, "launcher", `touch "`+marker+`"`)
	for _, tt := range []struct {
		name, want string
	}{
		{"--ps=999", `job "--ps=999": the name starts with "-", so the program would read it as an option; rename the job`},
		{"-x", `job "-x": the name starts with "-"`},
		{"a\x1b]0;pwned\a", `job "a\x1b]0;pwned\a": the name holds control or bidi characters; rename the job`},
		{"evil\u202etxt.exe", `job "evil\u202etxt.exe": the name holds control or bidi characters`},
		{"two\nlines", `job "two\nlines": the name holds control`},
	} {
		c := change(tt.name, executor.ActionStart)
		jobs := map[string]executor.Job{tt.name: c.Job}
		err := mustNew(t, Options{Program: prog}).Validate(context.Background(), c.To, jobs)
		if !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("plan job %q: Validate error %v, want one containing %q", tt.name, err, tt.want)
		}
		// Stopped: the name comes from --current only.
		stop := change(tt.name, executor.ActionStop)
		e := mustNew(t, Options{Program: prog, Current: stop.From})
		if err := e.Validate(context.Background(), nil, nil); !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("current job %q: Validate error %v, want one containing %q", tt.name, err, tt.want)
		}
		// Apply without Validate (a library caller) fails the change and runs nothing.
		res, err := e.Apply(context.Background(), []executor.Change{stop}, false)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Outcome != executor.OutcomeFailed || !strings.Contains(res[0].Message, tt.want) {
			t.Errorf("job %q: Apply gave %s %q", tt.name, res[0].Outcome, res[0].Message)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the program ran for a refused name")
	}
	// Names a shell would act on are fine: no shell runs.
	for _, name := range []string{"x$(touch pwned);y", "a'b", "`id`", "a b", "résumé-α", "<img src=x onerror=alert(1)>", "__f__(1)__f__"} {
		c := change(name, executor.ActionStart)
		if err := mustNew(t, Options{Program: prog}).Validate(context.Background(), c.To, map[string]executor.Job{name: c.Job}); err != nil {
			t.Errorf("job %q: %v", name, err)
		}
	}
}

// --dry-run's line, pasted into a shell, runs exactly the argv apply would
// run: the test gives the printed line to sh -c and compares what the
// program received.
func TestExecDryRunLineIsShellQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my launchers")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "argv")
	prog := filepath.Join(dir, "launch $(id)")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nprintf '%s\\0' \"$@\" > '"+record+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, name := range []string{"resnet50-a", "x$(touch pwned);y", "a'b'' c", "`touch pwned`", "*", "~root", "a\\b", "#c", "é ü", "$HOME", "!x", "{a,b}", "<img src=x onerror=alert(1)>", "__f__(document.body.dataset.x=1)__f__", strings.Repeat("n", 10000)} {
		c := change(name, executor.ActionResize)
		res, err := mustNew(t, Options{Program: prog}).Apply(context.Background(), []executor.Change{c}, true)
		if err != nil {
			t.Fatal(err)
		}
		line, ok := strings.CutPrefix(res[0].Message, "would run ")
		if res[0].Outcome != executor.OutcomePlanned || !ok {
			t.Fatalf("job %.40q: %s %.80q", name, res[0].Outcome, res[0].Message)
		}
		sh := osexec.Command("sh", "-c", line)
		sh.Dir = work
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("job %.40q: sh -c %.200q: %v: %s", name, line, err, out)
		}
		raw, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
		if want := Args(c); !reflect.DeepEqual(got, want) {
			t.Errorf("job %.40q: sh -c %.200q ran argv %.200q, want %.200q", name, line, got, want)
		}
		split, err := executor.SplitCommand(line)
		if want := append([]string{prog}, Args(c)...); err != nil || !reflect.DeepEqual(split, want) {
			t.Errorf("job %.40q: SplitCommand(%.200q) = %.200q, %v", name, line, split, err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
		t.Error("the pasted line ran a job name as shell code")
	}
}

// A launcher that exits 0 and leaves a background process holding its
// standard error (a daemon it started) is done, as the exit status says,
// with what it said before exiting. The child sleeps far beyond the pipe
// wait, so the outcome does not depend on timing.
func TestExecBackgroundChildHoldingStderrIsDone(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	prog := script(t, "launcher", `sleep 120 &
echo $! > "`+pidFile+`"
echo "submitted $2" >&2
exit 0
`)
	e := mustNew(t, Options{Program: prog})
	e.pipeWait = 100 * time.Millisecond
	t.Cleanup(func() {
		if raw, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	res, err := e.Apply(context.Background(), []executor.Change{change("a", executor.ActionStart)}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "submitted a (standard error was left open by a process the program started: not read after it exited)"
	if res[0].Outcome != executor.OutcomeDone || res[0].Message != want {
		t.Errorf("outcome %s, message %q; want done, %q", res[0].Outcome, res[0].Message, want)
	}
	// The same launcher exiting 1 still fails.
	fail := script(t, "failing", `sleep 120 &
echo $! > "`+pidFile+`"
echo "no quota" >&2
exit 1
`)
	e = mustNew(t, Options{Program: fail})
	e.pipeWait = 100 * time.Millisecond
	res, err = e.Apply(context.Background(), []executor.Change{change("a", executor.ActionStart)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Outcome != executor.OutcomeFailed || !strings.HasPrefix(res[0].Message, "exit status 1") {
		t.Errorf("failing launcher: outcome %s, message %q", res[0].Outcome, res[0].Message)
	}
}
