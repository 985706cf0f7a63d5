package snapshotcmd_test

import (
	"testing"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/snapshotcmd"
	"github.com/optimus-sched/optimus/executor"
)

// Every registered source is a subcommand with the source's help and flags
// beside snapshot's own.
func TestSubcommandPerSource(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := snapshotcmd.NewCmd(ios)
	sources := executor.Sources()
	if len(sources) == 0 || len(cmd.Commands()) != len(sources) {
		t.Fatalf("%d subcommands for %d sources", len(cmd.Commands()), len(sources))
	}
	for _, s := range sources {
		sub, _, err := cmd.Find([]string{s.Name})
		if err != nil || sub.Name() != s.Name || sub.Short != s.Short || sub.Long != s.Long {
			t.Errorf("source %s: subcommand %v, %v", s.Name, sub, err)
			continue
		}
		for _, flag := range []string{"output", "jobs", "format", "timeout"} {
			if sub.Flags().Lookup(flag) == nil {
				t.Errorf("snapshot %s has no --%s", s.Name, flag)
			}
		}
	}
	if k, _, _ := cmd.Find([]string{"kubernetes"}); k.Flags().ShorthandLookup("n") == nil || k.Flags().Lookup("kubeconfig") == nil {
		t.Errorf("snapshot kubernetes lacks its -n/--namespace or --kubeconfig")
	}
}
