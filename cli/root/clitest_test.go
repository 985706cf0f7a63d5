// Tests of cli/clitest, moved into cli/root's test binary, which links every
// command already: a test binary of their own linked the table layer
// (Arrow) again, several CPU-seconds, for well under one of tests
// (benchmarks/test-time.md, "Session 7, CPU of the tests").

package root_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

type options struct {
	IO   *iostreams.IOStreams
	Name string
	Fail string
}

// newCmd is a command in the shape of optimus' own: Options, a Run, and
// runF in its place when a test gives one.
func newCmd(ios *iostreams.IOStreams, runF func(*options) error) *cobra.Command {
	opts := &options{IO: ios}
	cmd := &cobra.Command{
		Use:  "greet",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "world", "who")
	cmd.Flags().StringVar(&opts.Fail, "fail", "", "usage, io or panic")
	return cmd
}

func run(opts *options) error {
	switch opts.Fail {
	case "usage":
		return cmdutil.Usagef("--fail usage: as asked")
	case "io":
		return errors.New("disk full")
	case "panic":
		panic("as asked")
	}
	_, err := fmt.Fprintf(opts.IO.Out, "hello %s\n", opts.Name)
	return err
}

// Run gives the exit status optimus' main would: 0, 2 for usage (cobra's
// own or a UsageError), 1 for other errors, 3 for a panic; errors printed
// once, prefixed optimus:.
func TestRunExitStatus(t *testing.T) {
	cmd := clitest.Command(func(ios *iostreams.IOStreams) *cobra.Command { return newCmd(ios, nil) })
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--name", "optimus"}, 0, "hello optimus\n", ""},
		{[]string{"--fail", "usage"}, 2, "", "optimus: --fail usage: as asked\n"},
		{[]string{"--nme", "x"}, 2, "", "optimus: unknown flag: --nme\n"},
		{[]string{"extra"}, 2, "", `optimus: unknown command "extra" for "greet"` + "\n"},
		{[]string{"--fail", "io"}, 1, "", "optimus: disk full\n"},
		{[]string{"--fail", "panic"}, 3, "", "optimus: internal error (a bug in optimus"},
	} {
		code, stdout, stderr := cmd.Run(t, nil, tc.args...)
		if code != tc.code || string(stdout) != tc.stdout || !strings.HasPrefix(stderr, tc.stderr) || tc.code != 3 && stderr != tc.stderr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
}

// Parse hands back the options runF received, and never runs Run.
func TestParse(t *testing.T) {
	if o := clitest.MustParse(t, newCmd, "--name", "x", "--fail", "panic"); o.Name != "x" || o.Fail != "panic" {
		t.Errorf("options %+v", *o)
	}
	if o := clitest.MustParse(t, newCmd); o.Name != "world" {
		t.Errorf("default --name %q", o.Name)
	}
	clitest.MustRefuse(t, newCmd, "unknown flag: --nme", "--nme", "x")
}

// A fixture is made once; Dir shares it and Copy gives each test its own,
// whose changes the fixture does not see.
func TestFixture(t *testing.T) {
	made := 0
	f := clitest.NewFixture("tables", func(dir string) error {
		made++
		if err := os.Mkdir(filepath.Join(dir, "sim"), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "sim", "jobs.csv"), []byte("job\na\n"), 0o644)
	})
	a, b, c := f.Dir(t), f.Dir(t), f.Copy(t)
	if made != 1 || a != b || c == a || filepath.Base(c) != "tables" {
		t.Fatalf("made %d times; Dir %s and %s, Copy %s", made, a, b, c)
	}
	if err := os.WriteFile(filepath.Join(c, "sim", "jobs.csv"), []byte("job\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(a, "sim", "jobs.csv")); err != nil || string(data) != "job\na\n" {
		t.Errorf("the fixture after a change of its copy: %q, %v", data, err)
	}
}

// A Memo runs a command line once and gives every later run of the same
// line its exit status and output; another line runs.
func TestMemo(t *testing.T) {
	runs := 0
	m := clitest.NewMemo(func(ios *iostreams.IOStreams) *cobra.Command {
		return newCmd(ios, func(o *options) error { runs++; return run(o) })
	})
	for i := 0; i < 2; i++ {
		if code, out, stderr := m.Run(t, "--name", "a"); code != 0 || string(out) != "hello a\n" || stderr != "" || runs != 1 {
			t.Errorf("run %d of --name a: exit %d, %q, %q after %d runs", i+1, code, out, stderr, runs)
		}
	}
	if code, _, stderr := m.Run(t, "--fail", "usage"); code != 2 || stderr != "optimus: --fail usage: as asked\n" || runs != 2 {
		t.Errorf("--fail usage: exit %d, %q after %d runs", code, stderr, runs)
	}
	if code, out, _ := m.Run(t, "--name", "b"); code != 0 || string(out) != "hello b\n" || runs != 3 {
		t.Errorf("--name b: exit %d, %q after %d runs", code, out, runs)
	}
}

// Main runs the tests with the collector at 400% unless GOGC is set, and
// then leaves it at GOGC's.
func TestMainSetsGCPercent(t *testing.T) {
	want := 400
	if env := os.Getenv("GOGC"); env == "off" {
		want = -1
	} else if env != "" {
		n, err := strconv.Atoi(env)
		if err != nil {
			t.Fatalf("GOGC=%s", env)
		}
		want = n
	}
	if got := debug.SetGCPercent(want); got != want {
		t.Errorf("GC percent %d under clitest.Main with GOGC=%q, want %d", got, os.Getenv("GOGC"), want)
	}
}
