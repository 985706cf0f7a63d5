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
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
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
	keys, ps, ws, sp := t.Strings(key), t.Int64s("ps"), t.Int64s("workers"), t.Float64s("speed")
	modes, modeOK := t.Strings("mode"), t.Valid("mode")
	batch, batchOK := t.Int64s("global_batch"), t.Valid("global_batch")
	if opts.Jobs != "" {
		if key != "job" {
			return cmdutil.Usagef("--jobs: the measurements are keyed by %s, not job", key)
		}
		jobs, err := cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs)
		if err != nil {
			return err
		}
		infos, _ := adapt.JobInfos(jobs)
		for r, j := range keys {
			info, ok := infos[j]
			if !ok {
				return t.Errorf(key, r, "unknown job %q (not in %s)", j, opts.Jobs)
			}
			if !modeOK[r] {
				modes[r], modeOK[r] = info.Mode, true
			}
			if !batchOK[r] && info.GlobalBatch > 0 {
				batch[r], batchOK[r] = int64(info.GlobalBatch), true
			}
		}
	}
	if r := slices.Index(modeOK, false); r >= 0 {
		return t.Errorf("mode", r, "no value: eval speed needs every row's mode (sync, async or allreduce): give the table a mode column or pass --jobs")
	}
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
	IO            *iostreams.IOStreams
	Input         string
	Jobs          string
	EpochSteps    int64
	Fractions     string
	Prior         bool
	OtherFamilies bool
	Schedules     bool
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
there are no families and no prior).`,
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
	cmd.Flags().StringVar(&opts.Jobs, "jobs", "", "read epoch_steps (and model, schedule_end_steps) from the table in `FILE`")
	cmd.Flags().Int64Var(&opts.EpochSteps, "epoch-steps", 0, "steps per epoch of every curve (instead of --jobs)")
	cmd.Flags().StringVar(&opts.Fractions, "fractions", "0.25,0.5", "shares of each curve's epochs to observe, comma-separated")
	cmd.Flags().BoolVar(&opts.Prior, "prior", true, "lean on the other curves of the same model family")
	cmd.Flags().BoolVar(&opts.OtherFamilies, "leave-family-out", false, "draw the prior from the curves of the other families only (leave-one-family-out scoring)")
	cmd.Flags().BoolVar(&opts.Schedules, "schedules", true, "use declared learning-rate schedules (schedule_end_steps)")
	cmdutil.AddRuleFlags(cmd.Flags(), &opts.Rule)
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// epochJobsSpec is the part of the jobs table eval convergence reads: job
// and epoch_steps, and optionally model and schedule_end_steps; other
// columns are carried and ignored.
func epochJobsSpec() *schema.Table {
	s := *schema.Jobs
	s.Columns, s.Patterns, s.MinPatternColumns = nil, nil, 0
	for _, c := range schema.Jobs.Columns {
		switch c.Name {
		case "job", "epoch_steps":
			s.Columns = append(s.Columns, c)
		case "model", "schedule_end_steps":
			c.Required, c.Nullable, c.Default = false, true, ""
			s.Columns = append(s.Columns, c)
		}
	}
	return &s
}

// curveJob is what eval convergence knows of a curve's job.
type curveJob struct {
	epochSteps  float64
	model       string
	scheduleEnd float64 // steps; 0 when none is declared
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
	var infos map[string]curveJob
	var known map[string]bool
	if opts.Jobs != "" {
		jobs, err := cmdutil.ReadSide("jobs", opts.Jobs, epochJobsSpec())
		if err != nil {
			return err
		}
		infos, known = map[string]curveJob{}, map[string]bool{}
		names, es := jobs.Strings("job"), jobs.Int64s("epoch_steps")
		var models []string
		if jobs.Has("model") {
			models = jobs.Strings("model")
		}
		var ends []int64
		var endOK []bool
		if jobs.Has("schedule_end_steps") {
			ends, endOK = jobs.Int64s("schedule_end_steps"), jobs.Valid("schedule_end_steps")
		}
		for i, j := range names {
			cj := curveJob{epochSteps: float64(es[i])}
			if models != nil {
				cj.model = models[i]
			}
			if ends != nil && endOK[i] {
				cj.scheduleEnd = float64(ends[i])
			}
			infos[j], known[j] = cj, true
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
	longest, long := 0, 0
	for _, g := range groups {
		cj := curveJob{epochSteps: float64(opts.EpochSteps)}
		if infos != nil {
			cj = infos[g.Job]
		}
		c := curveByEpoch(g, cj.epochSteps)
		c.Family = cj.model
		if cj.scheduleEnd > 0 {
			c.ScheduleEnd = cj.scheduleEnd / cj.epochSteps
		}
		if len(c.Values) > r.Cap {
			long++
			longest = max(longest, len(c.Values))
		}
		curves = append(curves, c)
	}
	if long > 0 {
		cmdutil.Warnf(opts.IO, "eval convergence: %d curves are longer than --cap %d epochs (longest %d): their truth comes from the whole curve, but predictions stop at the cap; raise --cap to predict past it",
			long, r.Cap, longest)
	}
	res := eval.ConvergenceWith(curves, fractions, r, fit.DefaultLossOptions, eval.ConvergenceConfig{FamilyPrior: opts.Prior, OtherFamilies: opts.OtherFamilies, Schedules: opts.Schedules})
	summarise(opts.IO, res, fractions)
	return opts.Output.Write(opts.IO, convergenceTable(res))
}

// curveByEpoch turns a job's points into a curve by epoch. Points are
// binned by the epoch they fall in ((e-1)·epochSteps, e·epochSteps], a
// point at step 0 in the first, and each bin's finite values averaged: a
// per-step loss log becomes one mean value per epoch, not one minibatch's
// value. The fit sees each bin at its mean step (in epochs), including a
// last, partial epoch; the truth sees each whole epoch's mean, missing
// (NaN) for an epoch without points, as in a log evaluated every few
// epochs, which the truth interpolates over. The rule's window stays in
// epochs whatever the spacing of the points.
func curveByEpoch(g pipeline.LossSeries, epochSteps float64) eval.Curve {
	c := eval.Curve{Name: g.Job, HigherIsBetter: g.HigherIsBetter, Points: []fit.LossPoint{}}
	if len(g.Points) == 0 || !(epochSteps > 0) {
		return c
	}
	last := g.Points[len(g.Points)-1].Step
	whole := int(math.Floor(last/epochSteps + 1e-9))
	c.Values = make([]float64, whole)
	for e := range c.Values {
		c.Values[e] = math.NaN()
	}
	for k := 0; k < len(g.Points); {
		bin := max(1, int(math.Ceil(g.Points[k].Step/epochSteps-1e-9)))
		var sum, steps float64
		n := 0
		j := k
		for ; j < len(g.Points) && max(1, int(math.Ceil(g.Points[j].Step/epochSteps-1e-9))) == bin; j++ {
			if v := g.Points[j].Value; !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum, steps, n = sum+v, steps+g.Points[j].Step, n+1
			}
		}
		k = j
		if n == 0 {
			continue
		}
		mean := sum / float64(n)
		c.Points = append(c.Points, fit.LossPoint{Step: math.Max(steps/float64(n)/epochSteps, 1e-9), Value: mean})
		if bin <= whole {
			c.Values[bin-1] = mean
		}
	}
	return c
}

// summarise writes the summary, overall and by family, to standard error.
func summarise(ios *iostreams.IOStreams, res []eval.ConvergenceResult, fractions []float64) {
	for _, f := range fractions {
		var sel []eval.ConvergenceResult
		for _, r := range res {
			if r.Fraction == f {
				sel = append(sel, r)
			}
		}
		s := summary(sel)
		if s.predicted == 0 {
			cmdutil.Notef(ios, "eval convergence: %.0f%% observed: no curve could be fitted (%d too short)", 100*f, s.failed)
			continue
		}
		cmdutil.Notef(ios, "eval convergence: %.0f%% observed: %d curves predicted (%d not: too few points), interval covers the truth in %d (%.0f%%); uncensored: %d of %d covered (%s), median |epoch error| %s (%s of the truth), mean interval width %s epochs (%s of the truth)",
			100*f, s.predicted, s.failed, s.covered, 100*float64(s.covered)/float64(s.predicted),
			s.uncCovered, s.uncensored, pct(s.uncCovered, s.uncensored), num(s.medErr), pctf(s.medRelErr), num(s.meanWidth), pctf(s.meanRelWidth))
	}
	families := map[string]bool{}
	var order []string
	for _, r := range res {
		if !families[r.Family] {
			families[r.Family] = true
			order = append(order, r.Family)
		}
	}
	slices.Sort(order)
	if len(order) < 2 {
		return
	}
	cmdutil.Notef(ios, "eval convergence: by family (fraction, curves, predicted, uncensored covered, censored covered, median |epoch error|, mean width, mean prior weight):")
	for _, f := range fractions {
		for _, fam := range order {
			var sel []eval.ConvergenceResult
			for _, r := range res {
				if r.Fraction == f && r.Family == fam {
					sel = append(sel, r)
				}
			}
			s := summary(sel)
			name := fam
			if name == "" {
				name = "(none)"
			}
			cmdutil.Notef(ios, "  %-14s %3.0f%%  %3d curves  %3d predicted  %3d/%-3d  %3d/%-3d  err %-6s  width %-6s  prior %.2f",
				name, 100*f, len(sel), s.predicted, s.uncCovered, s.uncensored, s.covered-s.uncCovered, s.predicted-s.uncensored,
				num(s.medErr), num(s.meanWidth), s.meanPrior)
		}
	}
}

type convergenceSummary struct {
	predicted, failed, covered, uncensored, uncCovered    int
	medErr, medRelErr, meanWidth, meanRelWidth, meanPrior float64
}

func summary(res []eval.ConvergenceResult) convergenceSummary {
	var s convergenceSummary
	var errs, rel, widths, relWidths []float64
	for _, r := range res {
		if r.Err != "" {
			s.failed++
			continue
		}
		s.predicted++
		s.meanPrior += r.PriorWeight
		if r.Covered {
			s.covered++
		}
		if r.Censored {
			continue
		}
		s.uncensored++
		if r.Covered {
			s.uncCovered++
		}
		e := math.Abs(r.EpochError())
		errs, widths = append(errs, e), append(widths, r.Width())
		if r.TrueEpoch > 0 {
			rel, relWidths = append(rel, e/float64(r.TrueEpoch)), append(relWidths, r.Width()/float64(r.TrueEpoch))
		}
	}
	s.medErr, s.medRelErr, s.meanWidth, s.meanRelWidth = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if len(errs) > 0 {
		s.medErr, s.meanWidth = fit.Median(errs), mean(widths)
	}
	if len(rel) > 0 {
		s.medRelErr, s.meanRelWidth = fit.Median(rel), mean(relWidths)
	}
	if s.predicted > 0 {
		s.meanPrior /= float64(s.predicted)
	}
	return s
}

func mean(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func pctf(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

func convergenceTable(res []eval.ConvergenceResult) *table.Table {
	n := len(res)
	t := table.New(schema.ConvergenceEval, n)
	job, model, quality, note := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	frac, epochErr, trueFinal, predFinal, r2, rho := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	width, prior := make([]float64, n), make([]float64, n)
	obs, epochs, trueEpoch, p10, p50, p90, floor := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	censored, covered, predicted := make([]bool, n), make([]bool, n), make([]bool, n)
	for i, r := range res {
		job[i], model[i], note[i], frac[i] = r.Curve, r.Family, r.Err, r.Fraction
		obs[i], epochs[i], trueEpoch[i], censored[i] = int64(r.Observed), int64(r.Epochs), int64(r.TrueEpoch), r.Censored
		trueFinal[i] = r.TrueFinal
		predicted[i] = r.Err == ""
		epochErr[i], predFinal[i], r2[i], rho[i], width[i], prior[i] = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		quality[i] = r.Fit.Quality
		if predicted[i] {
			p10[i], p50[i], p90[i], covered[i], floor[i] = int64(r.P10), int64(r.P50), int64(r.P90), r.Covered, int64(r.Floor)
			epochErr[i], predFinal[i], r2[i], rho[i] = r.EpochError(), r.PredFinal, r.Fit.R2, r.Fit.Autocorr
			width[i], prior[i] = r.Width(), r.PriorWeight
			if r.Contradicted {
				quality[i] = fit.QualityPoor
				note[i] = fmt.Sprintf("the fit (quality %s) predicted convergence before epoch %d, by which the log still fell faster than the rule allows", r.Fit.Quality, r.Floor)
			}
			if r.Scheduled {
				note[i] = "declared schedule"
			}
		}
	}
	t.SetStrings("job", job, nil)
	t.SetStrings("model", model, adapt.Present(model))
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
	t.SetFloat64sNaNAsNull("interval_width", width)
	t.SetFloat64sNaNAsNull("prior_weight", prior)
	t.SetInt64s("floor_epoch", floor, predicted)
	t.SetFloat64sNaNAsNull("true_final", trueFinal)
	t.SetFloat64sNaNAsNull("pred_final", predFinal)
	t.SetStrings("quality", quality, adapt.Present(quality))
	t.SetFloat64sNaNAsNull("r2", r2)
	t.SetFloat64sNaNAsNull("autocorr", rho)
	t.SetStrings("note", note, adapt.Present(note))
	return t
}
