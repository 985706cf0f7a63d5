// Package convertcmd implements `optimus convert`: read a table in any
// format, validate it, write it in another.
package convertcmd

import (
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
)

// Options are convert's inputs.
type Options struct {
	IO      *iostreams.IOStreams
	Input   string
	As      string   // expected table kind; "" to recognise it
	Columns []string // keep only these columns, in this order
	Output  cmdutil.OutputOptions
}

// NewCmd returns the cobra command.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "convert [-i FILE] [-o FILE]",
		Short: "Convert a table between Parquet, Arrow and CSV, validating it",
		Long: `Convert reads a table in any supported format (Arrow IPC stream or file, Parquet, CSV;
recognised by its first bytes), checks it against its schema and writes it in the format
that -o's extension names, or to standard output.

The table's kind comes from its metadata, from --as, or (for CSV, which has no metadata)
from its columns.`,
		Example: `  optimus convert -i jobs.csv -o jobs.parquet
  optimus convert -i allocation.parquet -c job,alloc_ps,alloc_workers,status
  optimus convert -i plan.parquet --format csv | head
  optimus convert -i x.parquet | optimus convert -o y.arrow`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "input")
	cmd.Flags().StringVar(&opts.As, "as", "", "read the input as this kind of `TABLE` (cluster, jobs, loss, speed, ...)")
	cmd.Flags().StringSliceVarP(&opts.Columns, "columns", "c", nil,
		"keep only these `COLUMNS` (comma-separated, in this order); the result is a table of no known kind")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// Run converts.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	var want *schema.Table
	if opts.As != "" {
		if want = schema.Lookup(opts.As); want == nil {
			return cmdutil.Usagef("--as %q: no such table (known: %v)", opts.As, schema.Names())
		}
	}
	t, err := cmdutil.ReadInput(opts.IO, opts.Input, want)
	if err != nil {
		return err
	}
	if len(opts.Columns) > 0 {
		if t, err = t.Select(opts.Columns); err != nil {
			return err
		}
		opts.Output.Columns = opts.Columns // and at a terminal, exactly these
	}
	return opts.Output.Write(opts.IO, t)
}
