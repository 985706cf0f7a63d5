// Package predictcmd implements `optimus predict`: each job's remaining work,
// its speed now and at any configuration, and its ETA, from its models.
package predictcmd

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Options are predict's inputs.
type Options struct {
	IO     *iostreams.IOStreams
	Input  string // jobs table
	Models string
	Rule   fit.Rule
	At     []string // "p,w"
	Output cmdutil.OutputOptions
}

// NewCmd returns `optimus predict`.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Rule: fit.DefaultRule}
	cmd := &cobra.Command{
		Use:   "predict --models FILE [-i JOBS]",
		Short: "Predict each job's remaining steps, speed and ETA",
		Long: `Predict reads a jobs table and each job's models (from optimus fit) and adds what the
scheduler needs: the predicted total epochs and remaining steps (10th, 50th and 90th
percentiles), the speed model's coefficients, the speed at the current allocation and
the ETA at it.

A job has converged at the first epoch at which its fitted loss, relative to where it
started, fell by no more than --threshold over the previous --window epochs; it stops
at --cap epochs if not before, and at its epoch_budget when it has one. The interval
combines the fit's parametric uncertainty with the drift between fits to the first half
and three quarters of the points (a measure of how wrong the 1/k shape is for the job).
A job whose own fit is insufficient takes the median prediction of the other jobs of its
model, if any.`,
		Example: `  optimus predict -i jobs.parquet --models models.parquet -o predictions.parquet
  optimus predict -i jobs.parquet --models models.parquet --at 2,4 --at 4,8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "jobs")
	cmd.Flags().StringVar(&opts.Models, "models", "", "read the models from `FILE` (required)")
	cmdutil.AddRuleFlags(cmd.Flags(), &opts.Rule)
	cmd.Flags().StringArrayVar(&opts.At, "at", nil, "also predict the speed with `P,W` parameter servers and workers (repeatable)")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// Run predicts.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	r := opts.Rule
	if err := cmdutil.CheckRule(r); err != nil {
		return err
	}
	var at []fit.Config
	for _, s := range opts.At {
		p, w, ok := strings.Cut(s, ",")
		pi, err1 := strconv.Atoi(strings.TrimSpace(p))
		wi, err2 := strconv.Atoi(strings.TrimSpace(w))
		if !ok || err1 != nil || err2 != nil || pi < 1 || wi < 1 {
			return cmdutil.Usagef("--at %q: give P,W with P and W at least 1", s)
		}
		at = append(at, fit.Config{PS: pi, Workers: wi})
	}
	if opts.Models == "" {
		return cmdutil.Usagef("--models is required: the models table from optimus fit")
	}
	models, err := cmdutil.ReadSide("models", opts.Models, schema.Models)
	if err != nil {
		return err
	}
	jobs, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.Jobs)
	if err != nil {
		return err
	}
	out, err := adapt.Predict(jobs, models, r, at)
	if err != nil {
		return err
	}
	return opts.Output.Write(opts.IO, out)
}
