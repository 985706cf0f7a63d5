// Package datasetscmd implements `optimus datasets`: list the embedded
// datasets and export them as files.
//
// Its tests are in cli/root (datasetscmd_*_test.go), run by cli/root's test binary,
// which links every command already: a test binary of this package's
// own would link Arrow again, some 4 CPU-seconds of every go test ./...
// (benchmarks/test-time.md, "Session 7, CPU of the tests").
package datasetscmd

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
)

// NewCmd returns `optimus datasets` with its subcommands.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "List and export the embedded datasets",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCmdList(ios), NewCmdExport(ios, nil))
	cmd.AddCommand(NewCmdGenerate(ios, nil))
	cmd.AddCommand(NewCmdImport(ios, nil))
	return cmd
}

func newCmdList(ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the embedded datasets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
			for _, d := range datatables.Catalog {
				fmt.Fprintf(w, "%s\t%s\n", d.Name, d.Doc)
			}
			return w.Flush()
		},
	}
}

// ExportOptions are `datasets export`'s inputs.
type ExportOptions struct {
	IO     *iostreams.IOStreams
	Name   string
	Dir    string
	Seed   uint64
	Format string // file extension without the dot
}

// NewCmdExport returns `optimus datasets export`.
func NewCmdExport(ios *iostreams.IOStreams, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "export NAME -o DIR",
		Short: "Write a dataset's tables into a directory",
		Long: `Export generates the named dataset with the given seed and writes each of its tables
to DIR/<table>.<format>. The same seed gives byte-identical files.`,
		Example: `  optimus datasets export testbed -o testbed
  optimus datasets export testbed -o testbed-csv --format csv --seed 7`,
		Args: cmdutil.Args(1, "the dataset's NAME (optimus datasets lists them)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return RunExport(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Dir, "output", "o", "", "write the tables into `DIR` (created if missing)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", datatables.DefaultSeed, "random seed of the generator")
	cmd.Flags().StringVar(&opts.Format, "format", "parquet", "file format: parquet, arrow, arrows or csv")
	return cmd
}

// RunExport writes the dataset. Every file is written to a temporary name
// first; only when all tables were generated and written are they renamed
// into place, so a failure leaves no partial dataset.
func RunExport(opts *ExportOptions) error {
	if opts.Dir == "" {
		return cmdutil.Usagef("-o DIR is required")
	}
	if err := cmdutil.CheckOutputDir("-o", opts.Dir); err != nil {
		return err
	}
	ext := "." + opts.Format
	if _, err := table.FormatOf("x" + ext); err != nil {
		return cmdutil.Usagef("--format %q: use parquet, arrow, arrows or csv", opts.Format)
	}
	d, err := datatables.Lookup(opts.Name)
	if err != nil {
		return cmdutil.Usagef("%v", err)
	}
	tables, err := d.Generate(opts.Seed)
	if err != nil {
		return err
	}
	return writeAll(opts.IO, opts.Dir, ext, tables)
}

// writeAll writes the tables into dir, made if needed, atomically as a set (cmdutil.WriteDir:
// every file is written whole before any is renamed into place, and an
// interrupted write leaves no temporary file).
func writeAll(ios *iostreams.IOStreams, dir, ext string, tables []datatables.Named) error {
	paths := make([]string, len(tables))
	ts := make([]*table.Table, len(tables))
	for i, nt := range tables {
		paths[i], ts[i] = filepath.Join(dir, nt.Name+ext), nt.Table
	}
	if err := cmdutil.WriteDir(dir, paths, ts); err != nil {
		return err
	}
	for i, nt := range tables {
		cmdutil.Summaryf(ios, "wrote %s (%d rows)", paths[i], nt.Table.NumRows())
	}
	return nil
}
