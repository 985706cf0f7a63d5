package root

import (
	"sort"
	"testing"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Every subcommand of the whole tree is in subcommands under its own name,
// so that Main's one-command tree (newCmdFor) is built for each of them.
func TestSubcommandNames(t *testing.T) {
	var tree, table []string
	for _, c := range NewCmd(testStreams()).Commands() {
		tree = append(tree, c.Name())
	}
	for _, s := range subcommands {
		if got := s.new(testStreams()).Name(); got != s.name {
			t.Errorf("subcommands names %q, its command is %q", s.name, got)
		}
		table = append(table, s.name)
	}
	sort.Strings(tree)
	sort.Strings(table)
	if len(tree) != len(table) {
		t.Fatalf("tree %v, subcommands %v", tree, table)
	}
	for i := range tree {
		if tree[i] != table[i] {
			t.Fatalf("tree %v, subcommands %v", tree, table)
		}
	}
}

// Main's one-command tree prints what the whole tree prints: each
// command's and subcommand's help, and the errors of an unknown flag and
// of a missing argument.
func TestOneCommandTreeAsWholeTree(t *testing.T) {
	run := func(whole bool, args ...string) (int, string, string) {
		ios, _, out, errOut := iostreams.Test()
		cmd := newCmdFor(ios, args)
		if whole {
			cmd = NewCmd(ios)
		}
		code := cmdutil.Execute(ios, cmd, args)
		return code, out.String(), errOut.String()
	}
	var cases [][]string
	for _, s := range subcommands {
		cases = append(cases, []string{s.name, "--help"}, []string{s.name, "--no-such-flag"})
		for _, sub := range s.new(testStreams()).Commands() {
			cases = append(cases, []string{s.name, sub.Name(), "--help"})
		}
	}
	cases = append(cases, []string{"version"}, []string{"schema", "no-such-table"})
	for _, args := range cases {
		c1, o1, e1 := run(false, args...)
		c2, o2, e2 := run(true, args...)
		if c1 != c2 || o1 != o2 || e1 != e2 {
			t.Errorf("optimus %v: one-command tree exit %d\n%s%s\nwhole tree exit %d\n%s%s", args, c1, o1, e1, c2, o2, e2)
		}
	}
	if len(cases) < 40 {
		t.Errorf("%d cases only", len(cases))
	}
}
