// Package reportcmd implements `optimus report`.
package reportcmd

import (
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Options are report's inputs.
type Options struct{ IO *iostreams.IOStreams }

// NewCmd returns `optimus report`.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	return &cobra.Command{Use: "report", Short: "(in progress)"}
}
