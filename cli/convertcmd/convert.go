// Package convertcmd implements `optimus convert`: read a table in any
// format, validate it, write it in another.
package convertcmd

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
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
	if err := cmdutil.CheckColumnList("--columns", opts.Columns); err != nil {
		return err
	}
	var want *schema.Table
	if opts.As != "" {
		if want = schema.Lookup(opts.As); want == nil {
			return cmdutil.Usagef("--as %q: no such table (known: %s)", opts.As, strings.Join(schema.Names(), ", "))
		}
	}
	if done, err := inBatches(opts, want); done {
		return err
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

// batchRows is how many rows inBatches reads and writes at a time: a
// batch of a plan is a few megabytes, and the table's 1M rows do not
// stand in memory at once.
const batchRows = 64 << 10

// inBatches converts a Parquet file to a CSV file batch by batch
// (table.ReadParquetBatches), holding one batch in memory instead of the
// table, and says whether it did (done: err is the outcome). It does not
// when the whole table must be read for the same outcome (see
// ErrWholeTable: a unique column, a failed check, whose error the whole
// read reports by row) or when the conversion has more to it than a CSV
// file's rows: --columns, standard output (which a failed check would
// leave half-written), an output that is the input file. A CSV file
// carries no metadata, so the provenance the whole path notes from the
// input would not reach it. Nothing is written unless every batch is.
func inBatches(opts *Options, want *schema.Table) (done bool, err error) {
	out, in := opts.Output.Path, opts.Input
	if len(opts.Columns) > 0 || in == "" || in == "-" || !opts.Output.IsFile() {
		return false, nil
	}
	if f, err := table.FormatOf(out); err != nil || f != table.CSV {
		return false, nil
	}
	if f, err := table.FormatOf(in); err != nil || f != table.Parquet {
		return false, nil
	}
	inInfo, err := os.Stat(in)
	if err != nil || !inInfo.Mode().IsRegular() {
		return false, nil
	}
	if outInfo, err := os.Stat(out); err == nil && os.SameFile(inInfo, outInfo) {
		return false, nil
	}
	err = table.AtomicWrite(out, func(w io.Writer) error {
		return table.ReadParquetBatches(in, want, batchRows, table.NewCSVWriter(w).Write)
	})
	if errors.Is(err, table.ErrWholeTable) {
		return false, nil
	}
	return true, err
}
