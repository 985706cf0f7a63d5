// Package evalcmd implements `optimus eval speed` and `optimus eval
// convergence`: how well the models predict a user's own measurements.
package evalcmd

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/eval"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/adapt"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
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
	cmd.AddCommand(NewCmdSpeed(ios), NewCmdConvergence(ios))
	return cmd
}

// SpeedOptions are `eval speed`'s inputs.
type SpeedOptions struct {
	IO       *iostreams.IOStreams
	Input    string
	Key      string
	Samples  int
	Sampling string
	Trials   int
	Seed     uint64
	Output   cmdutil.OutputOptions
}

// NewCmdSpeed returns `optimus eval speed`.
func NewCmdSpeed(ios *iostreams.IOStreams) *cobra.Command {
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
		Example: `  optimus eval speed -i speed.parquet
  optimus eval speed -i ps-sync-measured.csv --key model --sampling random --trials 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return RunSpeed(opts) },
	}
	cmdutil.InputFlag(cmd, &opts.Input, "speed")
	cmd.Flags().StringVar(&opts.Key, "key", "", "column that groups the measurements (default: job, or model when there is no job column)")
	cmd.Flags().IntVar(&opts.Samples, "samples", 10, "configurations to fit on")
	cmd.Flags().StringVar(&opts.Sampling, "sampling", eval.SampleSuggest, "how to choose them: suggest or random")
	cmd.Flags().IntVar(&opts.Trials, "trials", 20, "samples to draw with --sampling random")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// speedSpecKeyed is the speed table's declaration with its job column
// renamed to key.
func speedSpecKeyed(key string) *schema.Table {
	s := *schema.Speed
	s.Columns = slices.Clone(s.Columns)
	for i := range s.Columns {
		if s.Columns[i].Name == "job" {
			s.Columns[i].Name = key
		}
	}
	return &s
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
		key = "job"
		if !raw.Has("job") && raw.Has("model") {
			key = "model"
		}
	}
	t := raw
	if raw.Name != schema.Speed.Name || key != "job" {
		if raw.Name != "" && raw.Name != schema.Speed.Name {
			return &table.Error{Source: raw.Source, Msg: fmt.Sprintf("eval speed reads speed measurements, not a %s table", raw.Name)}
		}
		raw.Name = ""
		if t, err = table.ConformTo(raw, speedSpecKeyed(key)); err != nil {
			return err
		}
	}
	if slices.Contains(t.Valid("mode"), false) {
		return &table.Error{Source: t.Source, Column: "mode", Msg: "eval speed needs every row's mode (sync, async or allreduce)"}
	}
	keys, ps, ws, sp := t.Strings(key), t.Int64s("ps"), t.Int64s("workers"), t.Float64s("speed")
	modes, batch, batchOK := t.Strings("mode"), t.Int64s("global_batch"), t.Valid("global_batch")
	nodes, nodesOK := t.Int64s("nodes"), t.Valid("nodes")
	local, localOK := t.Float64s("local_batch"), t.Valid("local_batch")
	var ms []eval.SpeedMeasurement
	for r := range keys {
		if modes[r] == fit.Sync && !batchOK[r] {
			return &table.Error{Source: t.Source, Column: "global_batch", Row: r + 1, Msg: "a synchronous job needs its global batch"}
		}
		if modes[r] == fit.AllReduce && !batchOK[r] && !localOK[r] {
			return &table.Error{Source: t.Source, Column: "global_batch", Row: r + 1, Msg: "an allreduce job needs its global batch or its local_batch"}
		}
		if (modes[r] == fit.AllReduce) != (ps[r] == 0) {
			return &table.Error{Source: t.Source, Column: "ps", Row: r + 1, Msg: fmt.Sprintf("%s with %d PS: allreduce rows have ps 0, the others at least 1", modes[r], ps[r])}
		}
		m := eval.SpeedMeasurement{Key: keys[r], Mode: modes[r], GlobalBatch: float64(batch[r]),
			PS: int(ps[r]), Workers: int(ws[r]), Speed: sp[r]}
		if nodesOK[r] {
			m.Nodes = int(nodes[r])
		}
		if localOK[r] {
			m.LocalBatch = local[r]
		}
		ms = append(ms, m)
	}
	res, err := eval.Speed(ms, opts.Samples, opts.Trials, opts.Seed, opts.Sampling)
	if err != nil {
		return err
	}
	n := len(res)
	out := table.New(schema.SpeedEval, n)
	k, mode, sampling, cfgs, notes := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	configs, sampled, trials, failed, predicted := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	med, p90, mx := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range res {
		k[i], mode[i], sampling[i], notes[i] = r.Key, r.Mode, opts.Sampling, r.Err
		configs[i], sampled[i], trials[i], failed[i], predicted[i] = int64(r.Configs), int64(r.Samples), int64(r.Trials), int64(r.Failed), int64(r.Predicted)
		med[i], p90[i], mx[i] = math.NaN(), math.NaN(), math.NaN()
		if r.Err == "" {
			med[i], p90[i], mx[i] = r.MedianErr, r.P90Err, r.MaxErr
		}
		var parts []string
		for _, c := range r.SampledCfg {
			if c.PS == 0 {
				parts = append(parts, fmt.Sprintf("%dx%d", c.Workers, c.Nodes)) // allreduce: workers x nodes
				continue
			}
			parts = append(parts, fmt.Sprintf("%d:%d", c.PS, c.Workers))
		}
		cfgs[i] = strings.Join(parts, " ")
	}
	out.SetStrings("key", k, nil)
	out.SetStrings("mode", mode, nil)
	out.SetInt64s("configs", configs, nil)
	out.SetInt64s("sampled", sampled, nil)
	out.SetStrings("sampling", sampling, nil)
	out.SetInt64s("trials", trials, nil)
	out.SetInt64s("failed", failed, nil)
	out.SetInt64s("predicted", predicted, nil)
	out.SetFloat64sNaNAsNull("median_rel_err", med)
	out.SetFloat64sNaNAsNull("p90_rel_err", p90)
	out.SetFloat64sNaNAsNull("max_rel_err", mx)
	out.SetStrings("sampled_configs", cfgs, adapt.Present(cfgs))
	out.SetStrings("note", notes, adapt.Present(notes))
	return opts.Output.Write(opts.IO, out)
}

// ConvergenceOptions are `eval convergence`'s inputs.
type ConvergenceOptions struct {
	IO         *iostreams.IOStreams
	Input      string
	Jobs       string
	EpochSteps int64
	Fractions  string
	Rule       fit.Rule
	Output     cmdutil.OutputOptions
}

// NewCmdConvergence returns `optimus eval convergence`.
func NewCmdConvergence(ios *iostreams.IOStreams) *cobra.Command {
	opts := &ConvergenceOptions{IO: ios, Rule: fit.DefaultRule}
	cmd := &cobra.Command{
		Use:   "convergence [-i LOSS] (--jobs FILE | --epoch-steps N) [--fractions 0.25,0.5]",
		Short: "Cross-validate the convergence prediction on complete training curves",
		Long: `Eval convergence takes complete training curves (a loss table whose jobs ran to the end),
observes the first --fractions of each curve's epochs, predicts the convergence epoch as
optimus predict would, and compares it with the truth: the epoch from which the whole
curve, smoothed to be monotone, falls by no more than --threshold over every later
--window epochs. It reports the error, whether the truth lay in the predicted 10th-90th
percentile interval, the predicted and true final metric, and the fit's quality; a
summary goes to standard error.

Epoch lengths come from --jobs (epoch_steps) or --epoch-steps.`,
		Example: `  optimus datasets export pollux-curves -o curves
  optimus eval convergence -i curves/loss.parquet --jobs curves/jobs.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return RunConvergence(opts) },
	}
	cmdutil.InputFlag(cmd, &opts.Input, "loss")
	cmd.Flags().StringVar(&opts.Jobs, "jobs", "", "read epoch_steps from the jobs table in `FILE`")
	cmd.Flags().Int64Var(&opts.EpochSteps, "epoch-steps", 0, "steps per epoch of every curve (instead of --jobs)")
	cmd.Flags().StringVar(&opts.Fractions, "fractions", "0.25,0.5", "shares of each curve's epochs to observe, comma-separated")
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
	if (opts.Jobs == "") == (opts.EpochSteps <= 0) {
		return cmdutil.Usagef("give either --jobs or --epoch-steps")
	}
	r := opts.Rule
	if err := cmdutil.CheckRule(r); err != nil {
		return err
	}
	var infos map[string]pipeline.JobInfo
	var known map[string]bool
	if opts.Jobs != "" {
		jobs, err := cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs)
		if err != nil {
			return err
		}
		var order []string
		infos, order = adapt.JobInfos(jobs)
		known = map[string]bool{}
		for _, j := range order {
			known[j] = true
		}
	}
	loss, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.Loss)
	if err != nil {
		return err
	}
	groups, err := adapt.GroupLoss(loss, known, opts.Jobs)
	if err != nil {
		return err
	}
	var curves []eval.Curve
	for _, g := range groups {
		es := float64(opts.EpochSteps)
		if infos != nil {
			es = infos[g.Job].EpochSteps
		}
		c, err := curveByEpoch(g, es)
		if err != nil {
			return &table.Error{Source: loss.Source, Msg: err.Error()}
		}
		curves = append(curves, c)
	}
	res := eval.Convergence(curves, fractions, r, fit.DefaultLossOptions)
	summarise(opts.IO, res, fractions)
	return opts.Output.Write(opts.IO, convergenceTable(res))
}

// curveByEpoch takes a job's value at the end of each epoch: the last point
// at or before each epoch boundary.
func curveByEpoch(g pipeline.LossSeries, epochSteps float64) (eval.Curve, error) {
	c := eval.Curve{Name: g.Job, HigherIsBetter: g.HigherIsBetter}
	if len(g.Points) == 0 {
		return c, nil
	}
	last := g.Points[len(g.Points)-1].Step
	epochs := int(math.Floor(last/epochSteps + 1e-9))
	k := 0
	for e := 1; e <= epochs; e++ {
		for k+1 < len(g.Points) && g.Points[k+1].Step <= float64(e)*epochSteps+1e-9 {
			k++
		}
		if g.Points[k].Step > float64(e)*epochSteps+1e-9 {
			return c, fmt.Errorf("job %q has no point by the end of epoch %d (epoch_steps %v)", g.Job, e, epochSteps)
		}
		c.Values = append(c.Values, g.Points[k].Value)
	}
	return c, nil
}

func summarise(ios *iostreams.IOStreams, res []eval.ConvergenceResult, fractions []float64) {
	for _, f := range fractions {
		var n, covered, insufficient int
		var errs []float64
		for _, r := range res {
			if r.Fraction != f {
				continue
			}
			if r.Err != "" {
				insufficient++
				continue
			}
			n++
			if r.Covered {
				covered++
			}
			if e := r.EpochError(); !math.IsNaN(e) {
				errs = append(errs, math.Abs(e))
			}
		}
		if n == 0 {
			cmdutil.Logf(ios, "eval convergence: %.0f%% observed: no curve could be fitted (%d too short)", 100*f, insufficient)
			continue
		}
		cmdutil.Logf(ios, "eval convergence: %.0f%% observed: %d curves predicted (%d not: too few points), interval covers the truth in %d (%.0f%%), median |epoch error| %.1f over %d uncensored",
			100*f, n, insufficient, covered, 100*float64(covered)/float64(n), fit.Median(errs), len(errs))
	}
}

func convergenceTable(res []eval.ConvergenceResult) *table.Table {
	n := len(res)
	t := table.New(schema.ConvergenceEval, n)
	job, quality, note := make([]string, n), make([]string, n), make([]string, n)
	frac, epochErr, trueFinal, predFinal, r2, rho := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	obs, epochs, trueEpoch, p10, p50, p90 := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	censored, covered, predicted := make([]bool, n), make([]bool, n), make([]bool, n)
	for i, r := range res {
		job[i], note[i], frac[i] = r.Curve, r.Err, r.Fraction
		obs[i], epochs[i], trueEpoch[i], censored[i] = int64(r.Observed), int64(r.Epochs), int64(r.TrueEpoch), r.Censored
		trueFinal[i] = r.TrueFinal
		predicted[i] = r.Err == ""
		epochErr[i], predFinal[i], r2[i], rho[i] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		quality[i] = r.Fit.Quality
		if predicted[i] {
			p10[i], p50[i], p90[i], covered[i] = int64(r.P10), int64(r.P50), int64(r.P90), r.Covered
			epochErr[i], predFinal[i], r2[i], rho[i] = r.EpochError(), r.PredFinal, r.Fit.R2, r.Fit.Autocorr
		}
	}
	t.SetStrings("job", job, nil)
	t.SetFloat64s("fraction", frac, nil)
	t.SetInt64s("observed_epochs", obs, nil)
	t.SetInt64s("epochs", epochs, nil)
	t.SetInt64s("true_epoch", trueEpoch, nil)
	t.SetBools("censored", censored, nil)
	t.SetInt64s("pred_epoch_p10", p10, predicted)
	t.SetInt64s("pred_epoch_p50", p50, predicted)
	t.SetInt64s("pred_epoch_p90", p90, predicted)
	t.SetFloat64sNaNAsNull("epoch_error", epochErr)
	t.SetBools("covered", covered, predicted)
	t.SetFloat64sNaNAsNull("true_final", trueFinal)
	t.SetFloat64sNaNAsNull("pred_final", predFinal)
	t.SetStrings("quality", quality, adapt.Present(quality))
	t.SetFloat64sNaNAsNull("r2", r2)
	t.SetFloat64sNaNAsNull("autocorr", rho)
	t.SetStrings("note", note, adapt.Present(note))
	return t
}
