// Package initcmd implements `optimus init STATE`: write the state file the
// print and exec executors start from (apply --state), one where nothing
// runs, so the first round of a cron job finds the state it reads.
//
// Its tests are in cli/root (initcmd_test.go), run by cli/root's test binary,
// which links every command already: a test binary of this package's
// own would link Arrow again, some 4 CPU-seconds of every go test ./...
// (benchmarks/test-time.md, "Session 7, CPU of the tests").
package initcmd

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Options are init's inputs.
type Options struct {
	IO    *iostreams.IOStreams
	State string // the state file to write
}

// NewCmd returns `optimus init`.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	return &cobra.Command{
		Use:   "init STATE",
		Short: "Write the first state of the print and exec executors: nothing runs",
		Long: `Init writes STATE, the file optimus apply --state reads what runs now from and records
what runs after into, for the executors that cannot read the cluster (print, exec): a plan
table with no task, nothing running. Run it once before the first round of a cron job
(docs/apply.md); each apply --state then rewrites it. The format follows the extension
(.parquet, .arrow, .csv). An existing STATE is left alone (exit 2): it says what runs.
The kubernetes executor needs no state: optimus snapshot kubernetes reads the cluster.`,
		Example: `  optimus init /var/lib/optimus/state.parquet`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usagef("init takes one argument, the state file to write (for example state.parquet)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.State = args[0]
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
}

// Run writes the empty state.
func Run(opts *Options) error {
	if err := cmdutil.CheckOutputFile("init", opts.State); err != nil {
		return err
	}
	if _, err := table.FormatOf(opts.State); err != nil {
		return cmdutil.Usagef("%v", err)
	}
	if _, err := os.Lstat(opts.State); err == nil {
		return cmdutil.Usagef("%s exists already: it records what runs (apply --state); remove it to start over from nothing", opts.State)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	state, err := adapt.SnapshotPlan(nil, nil)
	if err != nil {
		return err
	}
	if err := table.WriteFile(opts.State, cmdutil.Stamp(state)); err != nil {
		return err
	}
	cmdutil.Summaryf(opts.IO, "init: %s: nothing runs", opts.State)
	return nil
}
