// Package versioncmd implements `optimus version`.
package versioncmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

// NewCmd returns `optimus version`.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of optimus",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(ios.Out, "optimus %s (%s %s/%s)\n", cmdutil.VersionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
