// Package fitcmd implements `optimus fit`: fit each job's convergence and
// speed models to its loss points and speed samples, and `optimus fit
// suggest`: which configurations to measure next.
//
// Its tests are in cli/root (fitcmd_*_test.go), run by cli/root's test binary,
// which links every command already: a test binary of this package's
// own would link Arrow again, some 4 CPU-seconds of every go test ./...
// (benchmarks/test-time.md, "Session 7, CPU of the tests").
package fitcmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Options are fit's inputs.
type Options struct {
	IO       *iostreams.IOStreams
	Input    string // a loss or speed table; "" for standard input
	Loss     string // --loss
	Speed    string // --speed
	Jobs     string // --jobs
	Parallel int
	Output   cmdutil.OutputOptions
}

// NewCmd returns `optimus fit` with its subcommands.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "fit [-i TABLE] [--loss FILE] [--speed FILE] [--jobs FILE]",
		Short: "Fit each job's convergence and speed models",
		Long: `Fit learns, for each job, the convergence model l(k) = 1/(b0*k + b1) + b2 of its training
loss from its loss points, and the speed model f(p, w) from its speed samples (Optimus,
sections 3.1-3.2), and writes a models table with each fit's quality.

The main input (standard input or -i) is a loss or a speed table; --loss and --speed name
the other, or both. --jobs names the jobs table: then every job gets a row, loss points and
speed samples must belong to known jobs, and speed samples take their mode and global
batch from it where their own columns are empty.

Points with NaN or infinite values and outliers are dropped, failed speed runs (speed 0
or NaN) excluded; both are counted in the output and reported on standard error.`,
		Example: `  optimus fit -i loss.parquet --speed speed.parquet --jobs jobs.parquet -o models.parquet
  optimus convert -i speed.csv | optimus fit --jobs jobs.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "loss or speed")
	cmd.Flags().StringVar(&opts.Loss, "loss", "", "read loss points from `FILE`")
	cmd.Flags().StringVar(&opts.Speed, "speed", "", "read speed samples from `FILE`")
	cmd.Flags().StringVar(&opts.Jobs, "jobs", "", "read the jobs table from `FILE`")
	cmd.Flags().IntVar(&opts.Parallel, "parallel", runtime.GOMAXPROCS(0), "fit this many jobs at once")
	opts.Output.AddOutputFlags(cmd)
	cmd.AddCommand(NewCmdSuggest(ios, nil))
	return cmd
}

// inputs are the tables fit reads.
type inputs struct {
	loss, speed, jobs *table.Table
}

func readInputs(opts *Options) (inputs, error) {
	var in inputs
	var err error
	if opts.Loss != "" {
		if in.loss, err = cmdutil.ReadSide("loss", opts.Loss, schema.Loss); err != nil {
			return in, err
		}
	}
	if opts.Speed != "" {
		if in.speed, err = cmdutil.ReadSide("speed", opts.Speed, schema.Speed); err != nil {
			return in, err
		}
	}
	if opts.Jobs != "" {
		if in.jobs, err = cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs); err != nil {
			return in, err
		}
	}
	main, err := cmdutil.ReadOptionalInput(opts.IO, opts.Input, nil)
	if err != nil {
		return in, err
	}
	switch {
	case main == nil && in.loss == nil && in.speed == nil:
		return in, cmdutil.Usagef("no input: pipe a loss or speed table in, or name files with -i, --loss or --speed")
	case main == nil:
	case main.Name == schema.Loss.Name && in.loss == nil:
		in.loss = main
	case main.Name == schema.Speed.Name && in.speed == nil:
		in.speed = main
	case main.Name == schema.Loss.Name || main.Name == schema.Speed.Name:
		return in, cmdutil.Usagef("two %s tables given (the main input and --%s)", main.Name, main.Name)
	default:
		kind := main.Name
		if kind == "" {
			kind = "table of no known kind"
		} else {
			kind += " table"
		}
		return in, &table.Error{Source: main.Source, Msg: fmt.Sprintf("fit reads a loss or speed table, not a %s", kind)}
	}
	return in, nil
}

// Run fits.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Parallel < 1 {
		return cmdutil.Usagef("--parallel %d: fit at least 1 job at a time", opts.Parallel)
	}
	in, err := readInputs(opts)
	if err != nil {
		return err
	}
	jobs, err := adapt.FitInputs(in.loss, in.speed, in.jobs)
	if err != nil {
		return err
	}
	models := pipeline.FitJobs(jobs, opts.Parallel, cmdutil.Progress(opts.IO, "fit"))
	reportDropped(opts.IO, models)
	return opts.Output.Write(opts.IO, adapt.ModelsTable(models))
}

// reportDropped says on standard error what data the fits left out.
func reportDropped(ios *iostreams.IOStreams, models []pipeline.Model) {
	d := pipeline.CountDropped(models)
	if d.Points > 0 {
		cmdutil.Warnf(ios, "fit: dropped %d loss points of %d jobs (NaN, infinite or outliers; see loss_dropped)", d.Points, d.PointJobs)
	}
	if d.Failed > 0 {
		cmdutil.Warnf(ios, "fit: excluded %d failed speed samples of %d jobs (speed 0 or NaN; see speed_failed)", d.Failed, d.FailedJobs)
	}
}
