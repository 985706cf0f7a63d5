package exec

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/executor"
)

// script writes an executable bash script into a temporary folder.
func script(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/usr/bin/env bash\nset -eu\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func change(job, action string) executor.Change {
	c := executor.Change{
		Job:        executor.Job{Job: job, Model: "resnet-50", Mode: "sync", GlobalBatch: 32, Image: "img:1", Command: `python train.py --name "resnet 50"`},
		Action:     action,
		Generation: "g123",
	}
	ps := executor.Task{Job: job, Role: executor.RolePS, Index: 0, Node: "cpu-01", Resources: map[string]float64{"cpu": 3}}
	w := executor.Task{Job: job, Role: executor.RoleWorker, Index: 0, Node: "gpu-01", Resources: map[string]float64{"cpu": 2, "gpu": 1}}
	switch action {
	case executor.ActionStart:
		c.To = []executor.Task{ps, w}
	case executor.ActionStop:
		c.From = []executor.Task{ps, w}
	default:
		w2 := w
		w2.Index = 1
		c.From, c.To = []executor.Task{ps, w}, []executor.Task{ps, w, w2}
	}
	return c
}

// A real script records its arguments and standard input; its standard
// error becomes the message.
func TestExecRecordsArgsAndStdin(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	prog := script(t, "launcher", `printf '%s\n' "$@" > "`+record+`.$2.args"
cat > "`+record+`.$2.json"
echo "launched $1 $2" >&2
`)
	e := mustNew(t, Options{Program: prog})
	changes := []executor.Change{change("resnet50-a", executor.ActionStart), change("x$(touch pwned);y", executor.ActionResize), change("vgg16-b", executor.ActionStop)}
	if err := e.Validate(context.Background(), changes[0].To, map[string]executor.Job{"resnet50-a": changes[0].Job}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Apply(context.Background(), changes, false)
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{
		"start\nresnet50-a\n--generation\ng123\n--ps\n1\n--workers\n1\n",
		"resize\nx$(touch pwned);y\n--generation\ng123\n--ps\n1\n--workers\n2\n",
		"stop\nvgg16-b\n--generation\ng123\n--ps\n0\n--workers\n0\n",
	}
	for i, c := range changes {
		if res[i].Outcome != executor.OutcomeDone || res[i].Message != "launched "+c.Action+" "+c.Job.Job {
			t.Errorf("%s: outcome %s, message %q", c.Job.Job, res[i].Outcome, res[i].Message)
		}
		args, err := os.ReadFile(record + "." + c.Job.Job + ".args")
		if err != nil {
			t.Fatal(err)
		}
		if string(args) != wantArgs[i] {
			t.Errorf("%s: args %q, want %q", c.Job.Job, args, wantArgs[i])
		}
		raw, err := os.ReadFile(record + "." + c.Job.Job + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var got Request
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: stdin is not JSON: %v\n%s", c.Job.Job, err, raw)
		}
		if got.Action != c.Action || got.Job.Job != c.Job.Job || got.Generation != "g123" || len(got.From) != len(c.From) || len(got.To) != len(c.To) {
			t.Errorf("%s: request %+v", c.Job.Job, got)
		}
		if strings.Join(got.Job.Argv, "|") != "python|train.py|--name|resnet 50" {
			t.Errorf("%s: argv %q", c.Job.Job, got.Job.Argv)
		}
	}
	if _, err := os.Stat("pwned"); err == nil {
		t.Error("a job name ran as shell code")
	}
	start, _ := os.ReadFile(record + ".resnet50-a.json")
	want := `{"action":"start","job":{"job":"resnet50-a","model":"resnet-50","mode":"sync","global_batch":32,"image":"img:1","command":"python train.py --name \"resnet 50\"","argv":["python","train.py","--name","resnet 50"]},"generation":"g123","from":[],"to":[{"name":"resnet50-a-ps-0","role":"ps","index":0,"node":"cpu-01","kept":false,"resources":{"cpu":3}},{"name":"resnet50-a-worker-0","role":"worker","index":0,"node":"gpu-01","kept":false,"resources":{"cpu":2,"gpu":1}}]}` + "\n"
	if string(start) != want {
		t.Errorf("stdin of the start:\n%s\nwant\n%s", start, want)
	}
}

// A failing call fails its change only: the others still run.
func TestExecFailureIsPerChange(t *testing.T) {
	prog := script(t, "launcher", `if [ "$2" = dssm-a ]; then echo "quota exceeded for $2" >&2; exit 3; fi
echo ok >&2
`)
	e := mustNew(t, Options{Program: prog})
	res, err := e.Apply(context.Background(), []executor.Change{change("a", "start"), change("dssm-a", "start"), change("z", "stop")}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, r.Change.Job.Job+" "+r.Outcome+": "+r.Message)
	}
	want := "a done: ok|dssm-a failed: exit status 3: quota exceeded for dssm-a|z done: ok"
	if strings.Join(got, "|") != want {
		t.Errorf("results %q, want %q", strings.Join(got, "|"), want)
	}
}

// A hanging program is killed with its children when the timeout passes.
// The timeout kills the program's whole process group. The test fires the
// timeout itself once the script has started its child and said why it
// waits, so the outcome does not depend on how fast the machine runs it.
func TestExecTimeoutKillsTheProcessGroup(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	prog := script(t, "hang", `sleep 60 &
echo "waiting forever" >&2
echo $! > "`+ready+`"
wait
`)
	e := mustNew(t, Options{Program: prog, Timeout: 300 * time.Millisecond})
	pids := make(chan string, 1)
	e.afterFunc = func(d time.Duration, fire func()) func() bool {
		if d != 300*time.Millisecond {
			t.Errorf("timeout clock set to %s, want the option's 300ms", d)
		}
		go func() {
			// Opening the FIFO blocks until the script opens it to write.
			raw, err := os.ReadFile(ready)
			if err != nil {
				t.Error(err)
			}
			pids <- string(raw)
			fire()
		}()
		return func() bool { return true }
	}
	res, err := e.Apply(context.Background(), []executor.Change{change("a", "start")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Outcome != executor.OutcomeFailed || res[0].Message != "timed out after 300ms: process group killed: waiting forever" {
		t.Errorf("outcome %s, message %q", res[0].Outcome, res[0].Message)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(<-pids))
	if err != nil {
		t.Fatal(err)
	}
	// The killed child is reaped by init; wait for it to vanish, or to be
	// a zombie (it has exited: some inits reap orphans only every second
	// or two).
	for range 500 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the script's child %d outlived the timeout", pid)
}

// zombie says whether process pid has exited and waits to be reaped
// (Linux's /proc; false where there is none).
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z")
}

func TestExecMissingProgram(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ prog, want string }{
		{"", "the exec executor needs a program"},
		{dir + "/no-such-launcher", dir + "/no-such-launcher: stat " + dir + "/no-such-launcher: no such file or directory"},
		{"no-such-launcher-in-path", `no-such-launcher-in-path: executable file not found in $PATH`},
		{notExec, notExec + ": permission denied"},
	}
	for _, tt := range tests {
		if _, err := New(Options{Program: tt.prog}); err == nil || err.Error() != tt.want {
			t.Errorf("program %q: error %v, want %q", tt.prog, err, tt.want)
		}
	}
}

func mustNew(t *testing.T, o Options) *Executor {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestExecDryRunRunsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	prog := script(t, "launcher", `touch "`+marker+`"`)
	res, err := mustNew(t, Options{Program: prog}).Apply(context.Background(), []executor.Change{change("a", "start")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Outcome != executor.OutcomePlanned || res[0].Message != "would run "+prog+" start a --generation g123 --ps 1 --workers 1" {
		t.Errorf("dry run: %s %q", res[0].Outcome, res[0].Message)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("dry run ran the program")
	}
}

// A chatty program's message keeps the end of its standard error.
func TestExecMessageKeepsTheEnd(t *testing.T) {
	prog := script(t, "chatty", `for i in $(seq 1 2000); do echo "line $i of the log" >&2; done
echo "the real error" >&2
exit 1
`)
	res, err := mustNew(t, Options{Program: prog}).Apply(context.Background(), []executor.Change{change("a", "start")}, false)
	if err != nil {
		t.Fatal(err)
	}
	msg := res[0].Message
	if !strings.HasPrefix(msg, "exit status 1: ...") || !strings.HasSuffix(msg, "line 2000 of the log\nthe real error") || len(msg) > maxMessage+len("exit status 1: ...") {
		t.Errorf("message of %d bytes: %.40q ... %q", len(msg), msg, msg[len(msg)-40:])
	}
}
