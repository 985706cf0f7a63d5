// Package evalcmd implements `optimus eval speed` and `optimus eval
// convergence`: how well the models predict a user's own measurements.
package evalcmd

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/eval"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// NewCmd returns `optimus eval` with its subcommands.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure how well the models predict your own measurements",
		Long: `Eval cross-validates optimus's models on measurements you have: it fits on part of them,
predicts the rest and reports the errors, so that you can decide whether to trust the
scheduler on your cluster.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdSpeed(ios, nil), NewCmdConvergence(ios, nil))
	return cmd
}

// SpeedOptions are `eval speed`'s inputs.
type SpeedOptions struct {
	IO       *iostreams.IOStreams
	Input    string
	Jobs     string
	Key      string
	Samples  int
	Sampling string
	Trials   int
	Seed     uint64
	Output   cmdutil.OutputOptions
}

// NewCmdSpeed returns `optimus eval speed`.
func NewCmdSpeed(ios *iostreams.IOStreams, runF func(*SpeedOptions) error) *cobra.Command {
	opts := &SpeedOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "speed [-i SPEED] [--samples N] [--sampling suggest|random]",
		Short: "Cross-validate the speed model on measured speeds",
		Long: `Eval speed fits, for each job (or whatever --key names: a model, say), the speed model on
--samples of its measured configurations and predicts all the others, reporting the
median, 90th-percentile and largest |predicted - measured| / measured.

--sampling suggest (the default) measures what optimus fit suggest would: 1 PS + 1 worker
first, then each configuration farthest from those before. --sampling random draws them
at random, --trials times from --seed, and pools the errors.

The input is a speed table, or any table with the speed table's columns keyed by --key
(such as DL2's measurements, keyed by model).`,
		Example: `  optimus eval speed -i speed.parquet --jobs jobs.parquet --samples 6
  optimus eval speed -i ps-sync-measured.csv --key model --sampling random --trials 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return RunSpeed(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "speed")
	cmd.Flags().StringVar(&opts.Jobs, "jobs", "", "take each job's mode and global batch from the jobs table in `FILE` where the measurements have none")
	cmd.Flags().StringVar(&opts.Key, "key", "", "column that groups the measurements (default: job, or model when there is no job column)")
	cmd.Flags().IntVar(&opts.Samples, "samples", 10, "configurations to fit on")
	cmd.Flags().StringVar(&opts.Sampling, "sampling", eval.SampleSuggest, "how to choose them: suggest or random")
	cmd.Flags().IntVar(&opts.Trials, "trials", 20, "samples to draw with --sampling random")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// RunSpeed evaluates the speed model.
func RunSpeed(opts *SpeedOptions) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Sampling != eval.SampleSuggest && opts.Sampling != eval.SampleRandom {
		return cmdutil.Usagef("--sampling %q: use suggest or random", opts.Sampling)
	}
	if opts.Samples < 1 || opts.Trials < 1 {
		return cmdutil.Usagef("--samples and --trials must be at least 1")
	}
	raw, err := cmdutil.ReadInput(opts.IO, opts.Input, nil)
	if err != nil {
		return err
	}
	key := opts.Key
	if key == "" {
		key = adapt.SpeedKey(raw)
	}
	t, err := adapt.ConformSpeed(raw, key)
	if err != nil {
		return err
	}
	var jobs *table.Table
	if opts.Jobs != "" {
		if key != col.Job {
			return cmdutil.Usagef("--jobs: the measurements are keyed by %s, not job", key)
		}
		if jobs, err = cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs); err != nil {
			return err
		}
	}
	ms, err := adapt.SpeedMeasurements(t, key, jobs, opts.Jobs)
	if err != nil {
		return err
	}
	res, err := eval.Speed(ms, opts.Samples, opts.Trials, opts.Seed, opts.Sampling)
	if err != nil {
		return err
	}
	return opts.Output.Write(opts.IO, adapt.SpeedEvalTable(res, opts.Sampling))
}

// ConvergenceOptions are `eval convergence`'s inputs.
type ConvergenceOptions struct {
	IO            *iostreams.IOStreams
	Input         string
	Jobs          string
	EpochSteps    int64
	Fractions     string
	Prior         bool
	OtherFamilies bool
	Schedules     bool
	Budgets       bool
	Rule          fit.Rule
	Output        cmdutil.OutputOptions
}

// NewCmdConvergence returns `optimus eval convergence`.
func NewCmdConvergence(ios *iostreams.IOStreams, runF func(*ConvergenceOptions) error) *cobra.Command {
	opts := &ConvergenceOptions{IO: ios, Rule: fit.DefaultRule}
	cmd := &cobra.Command{
		Use:   "convergence [-i LOSS] (--jobs FILE | --epoch-steps N) [--fractions 0.25,0.5]",
		Short: "Cross-validate the convergence prediction on complete training curves",
		Long: `Eval convergence takes complete training curves (a loss table whose jobs ran to the end),
observes the first --fractions of each curve's epochs, predicts the convergence epoch as
optimus predict would, and compares it with the truth: the epoch from which the whole
curve, smoothed to be monotone, falls by no more than --threshold over every later
--window epochs. It reports the error, whether the truth lay in the predicted 10th-90th
percentile interval and how wide that was, the predicted and true final metric, and the
fit's quality; a summary, overall and by model family, goes to standard error.

Points may come at any steps: several per epoch (per-step losses are averaged over each
epoch), one every few epochs, or irregularly; points after the last whole epoch are used
by the fit. A censored curve (still falling at its end) counts as covered only when the
interval reaches past its end and the predicted final metric is no worse than the one the
curve already reached.

With --prior (the default) each prediction also draws on the other curves of its model
family, complete, as a cluster knows its finished jobs (a curve never informs its own
prediction). Epoch lengths, model families and declared schedules (schedule_end_steps)
come from --jobs, which needs only job and epoch_steps; or give --epoch-steps (then
there are no families and no prior).

With --budgets each curve's declared epoch budget (epoch_budget of --jobs: what the job
was set to train for, as predict reads it) caps its prediction, and the prior's finished
curves lend their convergence epoch as the same share of the budget; the truth is the
same either way.`,
		Example: `  optimus datasets export pollux-curves -o curves
  optimus eval convergence -i curves/loss.parquet --jobs curves/jobs.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return RunConvergence(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "loss")
	cmd.Flags().StringVar(&opts.Jobs, "jobs", "", "read epoch_steps (and model, schedule_end_steps, epoch_budget) from the table in `FILE`")
	cmd.Flags().Int64Var(&opts.EpochSteps, "epoch-steps", 0, "steps per epoch of every curve (instead of --jobs)")
	cmd.Flags().StringVar(&opts.Fractions, "fractions", "0.25,0.5", "shares of each curve's epochs to observe, comma-separated")
	cmd.Flags().BoolVar(&opts.Prior, "prior", true, "lean on the other curves of the same model family")
	cmd.Flags().BoolVar(&opts.OtherFamilies, "leave-family-out", false, "draw the prior from the curves of the other families only (leave-one-family-out scoring)")
	cmd.Flags().BoolVar(&opts.Schedules, "schedules", true, "use declared learning-rate schedules (schedule_end_steps)")
	cmd.Flags().BoolVar(&opts.Budgets, "budgets", false, "use declared epoch budgets (epoch_budget of --jobs)")
	cmdutil.AddRuleFlags(cmd.Flags(), &opts.Rule)
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// RunConvergence evaluates the convergence prediction.
func RunConvergence(opts *ConvergenceOptions) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	var fractions []float64
	for _, f := range strings.Split(opts.Fractions, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return cmdutil.Usagef("--fractions %q: give shares in (0, 1], comma-separated", opts.Fractions)
		}
		fractions = append(fractions, v)
	}
	switch {
	case opts.EpochSteps < 0:
		return cmdutil.Usagef("--epoch-steps %d: give at least 1", opts.EpochSteps)
	case opts.Jobs != "" && opts.EpochSteps > 0:
		return cmdutil.Usagef("give --jobs or --epoch-steps, not both")
	case opts.Jobs == "" && opts.EpochSteps == 0:
		return cmdutil.Usagef("give --jobs FILE or --epoch-steps N (N at least 1)")
	}
	r := opts.Rule
	if err := cmdutil.CheckRule(r); err != nil {
		return err
	}
	var jobs *table.Table
	if opts.Jobs != "" {
		var err error
		if jobs, err = cmdutil.ReadSide("jobs", opts.Jobs, adapt.EpochJobsSpec()); err != nil {
			return err
		}
	}
	loss, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.Loss)
	if err != nil {
		return err
	}
	curves, err := adapt.ConvergenceCurves(loss, jobs, opts.Jobs, opts.EpochSteps)
	if err != nil {
		return err
	}
	longest, long := 0, 0
	for _, c := range curves {
		if len(c.Values) > r.Cap {
			long++
			longest = max(longest, len(c.Values))
		}
	}
	if long > 0 {
		cmdutil.Warnf(opts.IO, "eval convergence: %d curves are longer than --cap %d epochs (longest %d): their truth comes from the whole curve, but predictions stop at the cap; raise --cap to predict past it",
			long, r.Cap, longest)
	}
	res := eval.ConvergenceWith(curves, fractions, r, fit.DefaultLossOptions, eval.ConvergenceConfig{FamilyPrior: opts.Prior, OtherFamilies: opts.OtherFamilies, Schedules: opts.Schedules, Budgets: opts.Budgets})
	summarise(opts.IO, res, fractions)
	return opts.Output.Write(opts.IO, adapt.ConvergenceEvalTable(res))
}
