// Package versioncmd implements `optimus version`.
package versioncmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Version is set at build time with
// -ldflags "-X github.com/optimus-sched/optimus/cli/versioncmd.Version=v1.2.3".
var Version = ""

// String is the version to report: the one set at build time, else the
// module version Go recorded, else "devel".
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// NewCmd returns `optimus version`.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of optimus",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(ios.Out, "optimus %s (%s %s/%s)\n", String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
