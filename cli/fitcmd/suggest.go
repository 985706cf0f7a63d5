package fitcmd

import (
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// SuggestOptions are `fit suggest`'s inputs.
type SuggestOptions struct {
	IO         *iostreams.IOStreams
	Input      string // speed samples so far; "" for standard input, unless --jobs alone is given
	Jobs       string
	Samples    int
	MaxPS      int
	MaxWorkers int
	// WorkersPerNode is how many workers (GPUs) a node holds, for the
	// all-reduce candidates (fit.AllReduceGrid).
	WorkersPerNode int
	MaxNodes       int
	Output         cmdutil.OutputOptions
}

// NewCmdSuggest returns `optimus fit suggest`.
func NewCmdSuggest(ios *iostreams.IOStreams, runF func(*SuggestOptions) error) *cobra.Command {
	opts := &SuggestOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "suggest [-i SPEED] [--jobs FILE] [--samples N]",
		Short: "Suggest which (ps, workers) configurations to measure next",
		Long: `Suggest tells, for each job, which configurations to measure next so that its speed model
can be fitted well: until the job has --samples measured configurations, each suggestion
is the configuration farthest from those measured or suggested before (in ps and workers
scaled to their ranges), starting from 1 PS + 1 worker. Unlike sampling ps == workers, as
the authors' code does, this separates every term of the model; the identifiable column
says from which suggestion on it is.

Jobs come from --jobs (whose max_ps and max_workers bound the candidates) or from the
speed table given on standard input or with -i; a job's failed runs count as measured
(they are not suggested again) but do not help identify the model.

An allreduce job (no PS: ps is 0) is suggested worker counts with the nodes to spread
them over: the fewest nodes of --workers-per-node that hold them, and one worker per node,
so that the all-reduce model's network terms can be told apart.`,
		Example: `  optimus fit suggest --jobs jobs.parquet -i speed.parquet --samples 14
  optimus fit suggest --jobs jobs.parquet --samples 8 --format csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return RunSuggest(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "speed")
	cmd.Flags().StringVar(&opts.Jobs, "jobs", "", "read the jobs table from `FILE`")
	cmd.Flags().IntVar(&opts.Samples, "samples", 10, "configurations each job should have measured")
	cmd.Flags().IntVar(&opts.MaxPS, "max-ps", 16, "largest number of parameter servers to suggest (a job's max_ps wins)")
	cmd.Flags().IntVar(&opts.MaxWorkers, "max-workers", 16, "largest number of workers to suggest (a job's max_workers wins)")
	cmd.Flags().IntVar(&opts.WorkersPerNode, "workers-per-node", 4, "workers (GPUs) one node holds, for allreduce jobs")
	cmd.Flags().IntVar(&opts.MaxNodes, "max-nodes", 16, "most nodes to spread an allreduce job's workers over")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// RunSuggest suggests.
func RunSuggest(opts *SuggestOptions) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.WorkersPerNode == 0 {
		opts.WorkersPerNode = 4
	}
	if opts.MaxNodes == 0 {
		opts.MaxNodes = 16
	}
	for _, f := range []struct {
		flag    string
		n, most int
	}{
		{"samples", opts.Samples, adapt.MaxSuggestSamples},
		{"max-ps", opts.MaxPS, adapt.MaxSuggestGrid},
		{"max-workers", opts.MaxWorkers, adapt.MaxSuggestGrid},
		{"workers-per-node", opts.WorkersPerNode, datatables.MaxGPUsPerNode},
		{"max-nodes", opts.MaxNodes, datatables.MaxNodes},
	} {
		if f.n < 1 || f.n > f.most {
			return cmdutil.Usagef("--%s %d: give a number from 1 to %d", f.flag, f.n, f.most)
		}
	}
	var jobs, speed *table.Table
	var err error
	if opts.Jobs != "" {
		if jobs, err = cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs); err != nil {
			return err
		}
	}
	if speed, err = cmdutil.ReadOptionalInput(opts.IO, opts.Input, schema.Speed); err != nil {
		return err
	}
	if speed == nil && jobs == nil {
		return cmdutil.Usagef("no input: give --jobs, or the speed samples so far (pipe them in or -i FILE), or both")
	}
	out, considered, err := adapt.Suggest(jobs, speed, opts.Jobs, adapt.SuggestOptions{Samples: opts.Samples,
		MaxPS: opts.MaxPS, MaxWorkers: opts.MaxWorkers, WorkersPerNode: opts.WorkersPerNode, MaxNodes: opts.MaxNodes})
	if err != nil {
		return err
	}
	if out.NumRows() == 0 && considered > 0 {
		cmdutil.Notef(opts.IO, "fit suggest: every job has %d configurations measured already (--samples): nothing to suggest; raise --samples for more", opts.Samples)
	}
	return opts.Output.Write(opts.IO, out)
}
