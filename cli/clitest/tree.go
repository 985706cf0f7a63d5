package clitest

import (
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/versioncmd"
)

// Tree is the optimus command tree with only the given subcommands: what
// a command package's tests use to run a pipeline through a few sibling
// commands (datasets export, then fit, then solve ...) without linking
// every command of root.NewCmd, the Kubernetes ones and client-go among
// them, into their test binary. Its root is called optimus and does what
// root.NewCmd's does before each command that a pipeline's outputs depend
// on: it records the command line for the outputs' provenance
// (cmdutil.StartCommand) and takes -q and -v. The root's other flags
// (--max-memory) and its own behaviour are root.NewCmd's tests' to check.
func Tree(subcommands ...func(*iostreams.IOStreams) *cobra.Command) Command {
	return func(ios *iostreams.IOStreams) *cobra.Command {
		cmd := &cobra.Command{Use: "optimus", SilenceUsage: true, SilenceErrors: true}
		var quiet, verbose bool
		cmd.PersistentFlags().BoolVarP(&quiet, "quiet", "q", false, "print errors only")
		cmd.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "print what each step decided")
		cmd.PersistentPreRunE = func(c *cobra.Command, args []string) error {
			cmdutil.StartCommand(versioncmd.String(), c, args)
			switch {
			case quiet && verbose:
				return cmdutil.Usagef("--quiet and --verbose contradict each other: give one")
			case quiet:
				ios.SetVerbosity(iostreams.Quiet)
			case verbose:
				ios.SetVerbosity(iostreams.Verbose)
			}
			return nil
		}
		cmd.SetOut(ios.Out)
		cmd.SetErr(ios.ErrOut)
		cmd.SetIn(ios.In)
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			return &cmdutil.UsageError{Msg: err.Error() + "\nRun '" + c.CommandPath() + " --help' for usage."}
		})
		for _, sub := range subcommands {
			cmd.AddCommand(sub(ios))
		}
		return cmd
	}
}
