package root

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// snapshotSources are the names of the registered snapshot sources, as the
// shell completes `optimus snapshot` (TestCompletion compares candidates
// without their descriptions).
func snapshotSources() string {
	var names []string
	for _, s := range executor.Sources() {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}

// The shell completes flag values: policies per command, formats,
// quantiles, table kinds, dataset and model names, and table files by
// extension.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the candidates, then the directive
	}{
		// The policies are the registries', the built-in ones first.
		{[]string{"solve", "--policy", ""}, solve.PolicyNames(" ") + " :4"},
		{[]string{"place", "--policy", ""}, place.PolicyNames(" ") + " :4"},
		{[]string{"simulate", "--policies", ""}, solve.PolicyNames(" ") + " :4"},
		{[]string{"simulate", "--placement", ""}, place.PolicyNames(" ") + " pollux :4"},
		{[]string{"solve", "--policy", ""}, "optimus drf tetris fifo tiresias "},
		{[]string{"place", "ps-blocks", "--policy", ""}, "optimus hash :4"},
		{[]string{"place", "--policy", ""}, "optimus spread pack "},
		{[]string{"solve", "--remaining", ""}, "p10 p50 p90 :4"},
		{[]string{"solve", "--capacity", ""}, "nodes aggregate :4"},
		{[]string{"convert", "--format", ""}, "arrows arrow parquet csv text :4"},
		{[]string{"datasets", "export", "testbed", "--format", ""}, "parquet arrow arrows csv :4"},
		{[]string{"datasets", "export", ""}, "testbed simulate-testbed pollux-curves pollux-workload-1 schedule-curves step-curves :4"},
		{[]string{"convert", "--as", ""}, "cluster jobs loss speed"},
		{[]string{"place", "ps-blocks", "--model", ""}, "resnet-50 vgg-16 :4"},
		{[]string{"apply", "--executor", ""}, strings.Join(executor.Names(), " ") + " :4"},
		{[]string{"apply", "--executor", ""}, "print exec kubernetes pytorchjob :4"},
		{[]string{"snapshot", ""}, snapshotSources()},
		{[]string{"snapshot", "kubernetes", "--format", ""}, "parquet arrow arrows csv :4"},
		{[]string{"solve", "--cluster", ""}, "parquet arrow arrows csv :8"},
		{[]string{"fit", "-i", ""}, "parquet arrow arrows csv :8"},
		{[]string{"chart", "simulation", "--utilisation", ""}, "parquet arrow arrows csv :8"},
		{[]string{"report", "--simulation", ""}, ":16"},
	} {
		code, out, stderr := run(t, nil, append([]string{"__complete"}, tc.args...)...)
		var vals []string // the candidates without their descriptions
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			v, _, _ := strings.Cut(line, "\t")
			vals = append(vals, v)
		}
		got := strings.Join(strings.Fields(strings.Join(vals, " ")), " ")
		if code != 0 || !strings.Contains(got, tc.want) {
			t.Errorf("%v: exit %d, %q (%s); want %q", tc.args, code, got, stderr, tc.want)
		}
	}
}

// Flag help reads as plain text: the placeholder in backticks becomes the
// value's name, and no literal backtick is left.
func TestHelpHasNoBackticks(t *testing.T) {
	var walk func(args []string)
	seen := 0
	walk = func(args []string) {
		code, out, _ := run(t, nil, append(args, "--help")...)
		if code != 0 {
			t.Fatalf("%v --help: exit %d", args, code)
		}
		seen++
		flagsPart := string(out)
		if i := strings.Index(flagsPart, "Flags:"); i >= 0 {
			flagsPart = flagsPart[i:]
			if strings.Contains(flagsPart, "`") {
				t.Errorf("optimus %s --help: a backtick in the flags:\n%s", strings.Join(args, " "), flagsPart)
			}
		}
	}
	for _, c := range NewCmd(testStreams()).Commands() {
		walk([]string{c.Name()})
		for _, sub := range c.Commands() {
			walk([]string{c.Name(), sub.Name()})
		}
	}
	if seen < 15 {
		t.Errorf("looked at %d commands' help only", seen)
	}
}

func testStreams() *iostreams.IOStreams {
	ios, _, _, _ := iostreams.Test()
	return ios
}

// The flags that take files are the executors' and snapshot sources' own
// (executor.Kind.FileFlags, Source.FileFlags): apply's and each snapshot
// subcommand's complete with files, and their other flags do not.
func TestFileFlagsComeFromTheRegistry(t *testing.T) {
	root := NewCmd(testStreams())
	isFile := func(cmd *cobra.Command, name string) bool {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			t.Fatalf("%s has no --%s", cmd.CommandPath(), name)
		}
		_, ok := f.Annotations[cobra.BashCompFilenameExt]
		return ok
	}
	apply, _, err := root.Find([]string{"apply"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range executor.Kinds() {
		for _, name := range k.FileFlags {
			n++
			if !isFile(apply, name) {
				t.Errorf("apply --%s (of executor %s) does not complete with files", name, k.Name)
			}
		}
	}
	for _, s := range executor.Sources() {
		cmd, _, err := root.Find([]string{"snapshot", s.Name})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range s.FileFlags {
			n++
			if !isFile(cmd, name) {
				t.Errorf("snapshot %s --%s does not complete with files", s.Name, name)
			}
		}
		if cmd.Flags().Lookup("namespace") != nil && isFile(cmd, "namespace") {
			t.Errorf("snapshot %s --namespace completes with files", s.Name)
		}
	}
	if n < 3 || isFile(apply, "namespace") || isFile(apply, "exec-timeout") {
		t.Errorf("%d file flags; apply --namespace %v, --exec-timeout %v", n, isFile(apply, "namespace"), isFile(apply, "exec-timeout"))
	}
}
