// Package exec is the executor that hands each change to the user's own
// program (a Slurm or in-house launcher): once per job change, with the
// change as arguments and as JSON on standard input, never through a shell.
//
// The program is called as
//
//	PROGRAM ACTION JOB --generation G --ps P --workers W
//
// where ACTION is start, stop, resize or move and P, W are the job's wanted
// parameter servers and workers (0 and 0 for stop). Standard input is one
// JSON object (Request). Exit status 0 means done, anything else failed; the
// program's standard error becomes the action's message, its standard
// output is discarded (optimus' own standard output may carry the actions
// table). A call that outlives the timeout is killed with its whole process
// group and fails.
//
// A job name becomes an argument, so Validate refuses a name the program
// would take for an option (a leading "-": --ps=999) and one holding a
// character a terminal acts on (control characters, bidi overrides), which
// would also make --dry-run's shell-quoted command line unprintable.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	osexec "os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/escape"
)

// DefaultTimeout bounds one call of the program when Options.Timeout is 0.
const DefaultTimeout = 5 * time.Minute

// pipeWait is how long a call waits, once the program has exited or been
// killed, for its standard error to close: a process it left running in the
// background (a daemon it started) may hold it open indefinitely. What the
// program itself wrote is in the pipe by then and read within this; the
// wait is paid by every such call, one after another (a launcher that
// starts `nohup train &` holds it on each start).
const pipeWait = 250 * time.Millisecond

// maxMessage bounds how much of the program's standard error a message
// keeps (its end, where errors usually are).
const maxMessage = 4000

// Options configure the exec executor.
type Options struct {
	Program string        // path or name (looked up in PATH) of the program
	Timeout time.Duration // per call; 0: DefaultTimeout
	// Current is what runs now (read from --current); nil: nothing.
	Current []executor.Task
	// Capacity, when not nil, is each node's capacity per resource, checked
	// by Validate.
	Capacity map[string]map[string]float64
}

// Executor is the exec executor.
type Executor struct {
	opts Options
	path string
	// afterFunc starts a call's timeout clock (time.AfterFunc); tests
	// replace it to fire the timeout when they choose.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	pipeWait  time.Duration
}

var _ executor.Executor = (*Executor)(nil)

// New returns an exec executor for the program, which must exist and be
// executable (a name without a slash is looked up in PATH).
func New(opts Options) (*Executor, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Program == "" {
		return nil, errors.New("the exec executor needs a program")
	}
	path, err := osexec.LookPath(opts.Program)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", opts.Program, unwrapExecError(err))
	}
	return &Executor{opts: opts, path: path, afterFunc: afterFunc, pipeWait: pipeWait}, nil
}

// Name is "exec".
func (e *Executor) Name() string { return "exec" }

// Current returns the tasks given in Options.
func (e *Executor) Current(context.Context) ([]executor.Task, error) { return e.opts.Current, nil }

// Validate checks the plan as executor.ValidatePlan does (no image needed:
// the program decides what runs), and that the name of every job of the
// plan and of what runs now (a stop is called with it too) can be an
// argument (CheckJobName).
func (e *Executor) Validate(_ context.Context, plan []executor.Task, jobs map[string]executor.Job) error {
	if err := executor.ValidatePlan(plan, jobs, executor.ValidateOptions{Capacity: e.opts.Capacity}); err != nil {
		return err
	}
	checked := map[string]bool{}
	for _, ts := range [][]executor.Task{plan, e.opts.Current} {
		for _, t := range ts {
			if !checked[t.Job] {
				checked[t.Job] = true
				if err := CheckJobName(t.Job); err != nil {
					return executor.Invalidf("%v", err)
				}
			}
		}
	}
	return nil
}

// CheckJobName refuses a job name that cannot be the program's JOB
// argument: one starting with "-" (the program's option parser would read
// it as an option) and one holding a character a terminal acts on
// (escape.Terminal's: control characters, bidi overrides, bytes that are
// not UTF-8). Any other character, $(...) and quotes included, is passed
// as it is: no shell runs.
func CheckJobName(name string) error {
	if strings.HasPrefix(name, "-") {
		return fmt.Errorf("job %q: the name starts with \"-\", so the program would read it as an option; rename the job", name)
	}
	if escape.Terminal(name) != name {
		return fmt.Errorf("job %q: the name holds control or bidi characters; rename the job", name)
	}
	return nil
}

// Request is the JSON object the program reads on standard input.
type Request struct {
	Action     string     `json:"action"`
	Job        RequestJob `json:"job"`
	Generation string     `json:"generation"`
	// From lists the job's tasks running now, To the wanted ones; a task in
	// To with kept true runs on that node now and stays.
	From []RequestTask `json:"from"`
	To   []RequestTask `json:"to"`
}

// RequestJob is the job of a request, from the jobs table.
type RequestJob struct {
	Job         string `json:"job"`
	Model       string `json:"model"`
	Mode        string `json:"mode"`
	GlobalBatch int64  `json:"global_batch"`
	Image       string `json:"image"`
	Command     string `json:"command"`
	// Argv is Command split as a shell would (executor.SplitCommand); null
	// when it cannot be split.
	Argv []string `json:"argv"`
}

// RequestTask is one task of a request.
type RequestTask struct {
	Name      string             `json:"name"` // <job>-<role>-<index>
	Role      string             `json:"role"`
	Index     int                `json:"index"`
	Node      string             `json:"node"`
	Kept      bool               `json:"kept"`
	Resources map[string]float64 `json:"resources"`
}

// NewRequest is the request for a change.
func NewRequest(c executor.Change) Request {
	argv, err := executor.SplitCommand(c.Job.Command)
	if err != nil || argv == nil {
		argv = nil
	}
	return Request{
		Action: c.Action, Generation: c.Generation,
		Job: RequestJob{Job: c.Job.Job, Model: c.Job.Model, Mode: c.Job.Mode, GlobalBatch: c.Job.GlobalBatch,
			Image: c.Job.Image, Command: c.Job.Command, Argv: argv},
		From: requestTasks(c.From), To: requestTasks(c.To),
	}
}

func requestTasks(ts []executor.Task) []RequestTask {
	out := make([]RequestTask, len(ts))
	for i, t := range ts {
		res := t.Resources
		if res == nil {
			res = map[string]float64{}
		}
		out[i] = RequestTask{Name: t.Name(), Role: t.Role, Index: t.Index, Node: t.Node, Kept: t.Kept, Resources: res}
	}
	return out
}

// Args are the program's arguments for a change (after the program itself).
func Args(c executor.Change) []string {
	ps, workers := 0, 0
	for _, t := range c.To {
		if t.Role == executor.RolePS {
			ps++
		} else {
			workers++
		}
	}
	return []string{c.Action, c.Job.Job, "--generation", c.Generation, "--ps", strconv.Itoa(ps), "--workers", strconv.Itoa(workers)}
}

// Apply runs the program once per change, in order, and goes on after a
// failure: every change gets its result. With dryRun nothing runs and each
// change is planned, its message the command line that would run, quoted
// for a POSIX shell (pasted into one, it runs exactly that argv).
func (e *Executor) Apply(ctx context.Context, changes []executor.Change, dryRun bool) ([]executor.Result, error) {
	results := make([]executor.Result, len(changes))
	for i, c := range changes {
		args := Args(c)
		if err := CheckJobName(c.Job.Job); err != nil { // Validate was not called
			results[i] = executor.Result{Change: c, Outcome: executor.OutcomeFailed, Message: err.Error()}
			continue
		}
		if dryRun {
			results[i] = executor.Result{Change: c, Outcome: executor.OutcomePlanned,
				Message: "would run " + executor.ShellQuote(append([]string{e.opts.Program}, args...))}
			continue
		}
		outcome, msg := e.run(ctx, c, args)
		results[i] = executor.Result{Change: c, Outcome: outcome, Message: msg}
	}
	return results, nil
}

// run calls the program for one change.
func (e *Executor) run(ctx context.Context, c executor.Change, args []string) (outcome, message string) {
	input, err := json.Marshal(NewRequest(c))
	if err != nil {
		return executor.OutcomeFailed, "encoding the request: " + err.Error()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := e.afterFunc(e.opts.Timeout, func() { cancel(errTimedOut) })
	defer stop()
	cmd := osexec.CommandContext(ctx, e.path, args...)
	cmd.Stdin = bytes.NewReader(append(input, '\n'))
	cmd.Stdout = nil // the null device: no pipe a background child could hold
	var stderr tailBuffer
	cmd.Stderr = &stderr
	ownProcessGroup(cmd)
	// Once exited or killed, wait this long for the pipes to close.
	cmd.WaitDelay = e.pipeWait
	err = cmd.Run()
	if errors.Is(err, osexec.ErrWaitDelay) && ctx.Err() == nil {
		// The program exited 0 (ErrWaitDelay is returned only then) and
		// left a process holding its standard error or input: done, as
		// the exit status says.
		const note = "(standard error was left open by a process the program started: not read after it exited)"
		if said := strings.TrimSpace(stderr.String()); said != "" {
			return executor.OutcomeDone, said + " " + note
		}
		return executor.OutcomeDone, note
	}
	said := strings.TrimSpace(stderr.String())
	var exitErr *osexec.ExitError
	switch {
	case context.Cause(ctx) == errTimedOut:
		return executor.OutcomeFailed, join(fmt.Sprintf("timed out after %s: process group killed", e.opts.Timeout), said)
	case ctx.Err() != nil:
		return executor.OutcomeFailed, join("interrupted: process group killed", said)
	case errors.As(err, &exitErr):
		return executor.OutcomeFailed, join(fmt.Sprintf("exit status %d", exitErr.ExitCode()), said)
	case err != nil:
		return executor.OutcomeFailed, join("cannot run "+e.opts.Program+": "+unwrapExecError(err).Error(), said)
	}
	return executor.OutcomeDone, said
}

// errTimedOut is the cause of a call's cancellation when it outlives the
// timeout.
var errTimedOut = errors.New("timed out")

func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

func join(what, said string) string {
	if said == "" {
		return what
	}
	return what + ": " + said
}

// unwrapExecError drops os/exec's repetition of the program name.
func unwrapExecError(err error) error {
	var ee *osexec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// tailBuffer keeps the last maxMessage bytes written to it.
type tailBuffer struct {
	buf       []byte
	truncated bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*maxMessage {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-maxMessage:]...)
		b.truncated = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	s := b.buf
	if len(s) > maxMessage {
		s, b.truncated = s[len(s)-maxMessage:], true
	}
	if b.truncated {
		return "..." + strings.ToValidUTF8(string(s), "")
	}
	return string(s)
}
