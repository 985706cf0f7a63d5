package cmdutil

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Version is set at build time with
// -ldflags "-X github.com/optimus-sched/optimus/cli/cmdutil.Version=v1.2.3".
var Version = ""

// VersionString is the version to report: the one set at build time, else
// the module version Go recorded, else "devel".
func VersionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// SetupRoot gives cmd, an optimus root command, what every root does before
// each command a pipeline's outputs depend on (root.NewCmd's, and the small
// trees command tests run pipelines through): the command line recorded for
// the outputs' provenance (StartCommand), -q/--quiet and -v/--verbose,
// before (if not nil) run after the command line is recorded, the streams,
// and usage errors for bad flags.
func SetupRoot(cmd *cobra.Command, ios *iostreams.IOStreams, before func() error) {
	var quiet, verbose bool
	cmd.PersistentFlags().BoolVarP(&quiet, "quiet", "q", false, "print errors only on standard error (no warnings, summaries or progress)")
	cmd.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "print what each step decided on standard error even when it is not a terminal")
	cmd.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		StartCommand(VersionString(), c, args)
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		switch {
		case quiet && verbose:
			return Usagef("--quiet and --verbose contradict each other: give one")
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
		// One line, as every error is (Execute escapes a newline, which
		// cobra's own message may hold from the command line).
		return &UsageError{Msg: err.Error() + "; see '" + c.CommandPath() + " --help'"}
	})
}
