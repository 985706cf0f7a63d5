package datasetscmd

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
)

// ImportOptions are `datasets import`'s inputs.
type ImportOptions struct {
	IO     *iostreams.IOStreams
	Kind   string // the format imported: pollux
	File   string
	Dir    string
	Format string // file extension without the dot
}

// NewCmdImport returns `optimus datasets import`.
func NewCmdImport(ios *iostreams.IOStreams, runF func(*ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "import pollux FILE -o DIR",
		Short: "Turn a workload of a research simulator into optimus' tables",
		Long: `Import reads a workload in the format of Pollux's simulator (CSV: name, time, application,
num_replicas, batch_size) against the application profiles embedded from Pollux's repository and
writes the tables the pollux-workload-1 dataset has (cluster, jobs, speed, placements) into DIR,
all or none. An application without a profile, a batch size outside its profile's range and a
replica count larger than the cluster (16 nodes of 4 GPUs) are errors naming file, column and
row (exit 2). See docs/simulate.md.`,
		Example: `  optimus datasets import pollux workload-2.csv -o w2
  optimus datasets import pollux workload-2.csv -o w2-csv --format csv`,
		Args: cmdutil.Args(2, "the workload's KIND (pollux) and its FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Kind, opts.File = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return RunImport(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Dir, "output", "o", "", "write the tables into `DIR` (created if missing)")
	cmd.Flags().StringVar(&opts.Format, "format", "parquet", "file format: parquet, arrow, arrows or csv")
	return cmd
}

// RunImport reads the workload and writes its tables, nothing when the
// input is bad.
func RunImport(opts *ImportOptions) error {
	if opts.Kind != "pollux" {
		return cmdutil.Usagef("import %q: the formats imported are: pollux", opts.Kind)
	}
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
	profiles, err := datasets.PolluxProfiles()
	if err != nil {
		return err
	}
	f, err := os.Open(opts.File)
	if err != nil {
		return table.InvalidInput(err)
	}
	defer f.Close()
	jobs, err := datasets.ReadPolluxWorkload(f, opts.File, profiles, datasets.PolluxNodes*datasets.PolluxGPUsPerNode)
	if err != nil {
		return table.InvalidInput(err)
	}
	return writeAll(opts.IO, opts.Dir, ext, datatables.PolluxTables(jobs, profiles))
}
