package clitest

import (
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Tree is the optimus command tree with only the given subcommands: what
// a command package's tests use to run a pipeline through a few sibling
// commands (datasets export, then fit, then solve ...) without linking
// every command of root.NewCmd, the Kubernetes ones and client-go among
// them, into their test binary. Its root is called optimus and does what
// root.NewCmd's does before each command that a pipeline's outputs depend
// on (cmdutil.SetupRoot: the command line recorded for the outputs'
// provenance, -q and -v). The root's other flags
// (--max-memory) and its own behaviour are root.NewCmd's tests' to check.
func Tree(subcommands ...func(*iostreams.IOStreams) *cobra.Command) Command {
	return func(ios *iostreams.IOStreams) *cobra.Command {
		cmd := &cobra.Command{Use: "optimus", SilenceUsage: true, SilenceErrors: true}
		cmdutil.SetupRoot(cmd, ios, nil)
		for _, sub := range subcommands {
			cmd.AddCommand(sub(ios))
		}
		return cmd
	}
}
