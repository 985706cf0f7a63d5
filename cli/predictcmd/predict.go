// Package predictcmd implements `optimus predict`: each job's remaining work,
// its speed now and at any configuration, and its ETA, from its models.
package predictcmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/modelio"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
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
	modelio.AddRuleFlags(cmd.Flags(), &opts.Rule)
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
	if err := modelio.CheckRule(r); err != nil {
		return cmdutil.Usagef("%v", err)
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
	out, err := Predict(jobs, models, r, at)
	if err != nil {
		return err
	}
	return opts.Output.Write(opts.IO, out)
}

// Predict adds the predictions columns to jobs (in place of any it had) and
// returns the predictions table.
func Predict(jobs, models *table.Table, rule fit.Rule, at []fit.Config) (*table.Table, error) {
	ms := modelio.ReadModels(models)
	names := jobs.Strings("job")
	inJobs := make(map[string]bool, len(names))
	for _, j := range names {
		inJobs[j] = true
	}
	for r, j := range models.Strings("job") {
		if !inJobs[j] {
			return nil, models.Errorf("job", r, "unknown job %q (not in %s)", j, jobs.Source)
		}
	}
	n := len(names)
	modelName, mode := jobs.Strings("model"), jobs.Strings("mode")
	epochSteps, progress := jobs.Int64s("epoch_steps"), jobs.Int64s("progress_steps")
	budget, budgetOK := jobs.Float64s("epoch_budget"), jobs.Valid("epoch_budget")
	ps, workers := jobs.Int64s("ps"), jobs.Int64s("workers")

	// Total epochs: the budget, the job's own fit, or (second pass) its
	// model family's.
	total := make([][3]float64, n)
	source := make([]string, n)
	lossQ, speedQ := make([]string, n), make([]string, n)
	for i, j := range names {
		m, ok := ms[j]
		if ok && m.Loss != nil {
			lossQ[i] = m.Loss.Quality
		} else if ok && m.LossNote != "" {
			lossQ[i] = fit.QualityInsufficient
		}
		speedQ[i] = m.SpeedQuality
		switch {
		case budgetOK[i]:
			total[i] = [3]float64{budget[i], budget[i], budget[i]}
			source[i] = "budget"
		case ok && m.Loss != nil && m.Loss.Quality != fit.QualityInsufficient:
			p := fit.PredictConvergence(*m.Loss, float64(epochSteps[i]), rule)
			total[i] = [3]float64{float64(p.P10), float64(p.P50), float64(p.P90)}
			source[i] = "fit"
			if p.Capped {
				source[i] = "cap"
			}
		}
	}
	// A poor fit gives way to its model family's prediction where there is
	// one made from better fits.
	family := map[string][][3]float64{}
	for i := range names {
		if (source[i] == "fit" || source[i] == "cap") && lossQ[i] != fit.QualityPoor {
			family[modelName[i]] = append(family[modelName[i]], total[i])
		}
	}
	for i := range names {
		poor := (source[i] == "fit" || source[i] == "cap") && lossQ[i] == fit.QualityPoor
		if source[i] != "" && !(poor && len(family[modelName[i]]) > 0) {
			continue
		}
		if f := family[modelName[i]]; len(f) > 0 {
			for q := 0; q < 3; q++ {
				vals := make([]float64, len(f))
				for k := range f {
					vals[k] = f[k][q]
				}
				total[i][q] = fit.Median(vals)
			}
			source[i] = "model"
		} else {
			source[i] = "unknown"
		}
	}

	var rem [3][]float64
	var epochs [3][]float64
	for q := range rem {
		rem[q], epochs[q] = make([]float64, n), make([]float64, n)
	}
	var theta [5][]float64
	for k := range theta {
		theta[k] = make([]float64, n)
	}
	speedNow, eta := make([]float64, n), make([]float64, n)
	atSpeed := make([][]float64, len(at))
	for k := range atSpeed {
		atSpeed[k] = make([]float64, n)
	}
	for i, j := range names {
		for q := 0; q < 3; q++ {
			epochs[q][i], rem[q][i] = math.NaN(), math.NaN()
			if source[i] != "unknown" {
				epochs[q][i] = total[i][q]
				rem[q][i] = math.Max(0, total[i][q]*float64(epochSteps[i])-float64(progress[i]))
			}
		}
		speedNow[i], eta[i] = math.NaN(), math.NaN()
		for k := range theta {
			theta[k][i] = math.NaN()
		}
		for k := range at {
			atSpeed[k][i] = math.NaN()
		}
		m := ms[j]
		if m.Speed == nil {
			continue
		}
		if m.Speed.Model.Mode != mode[i] {
			return nil, &table.Error{Source: models.Source, Column: "speed_mode",
				Msg: fmt.Sprintf("job %q has a %s speed model but is %s in %s", j, m.Speed.Model.Mode, mode[i], jobs.Source)}
		}
		for k := 0; k < fit.NumTheta(mode[i]); k++ {
			theta[k][i] = m.Speed.Model.Theta[k]
		}
		if ps[i] > 0 && workers[i] > 0 {
			speedNow[i] = m.Speed.Model.Speed(int(ps[i]), int(workers[i]))
			if speedNow[i] > 0 && !math.IsNaN(rem[1][i]) {
				eta[i] = rem[1][i] / speedNow[i]
			}
		}
		for k, c := range at {
			atSpeed[k][i] = m.Speed.Model.Speed(c.PS, c.Workers)
		}
	}

	out := jobs.Take(identity(n))
	out.Name, out.Version = schema.Predictions.Name, schema.Predictions.Version
	for q, p := range []string{"p10", "p50", "p90"} {
		out.SetFloat64sNaNAsNull("remaining_steps_"+p, rem[q])
		out.SetFloat64sNaNAsNull("total_epochs_"+p, epochs[q])
	}
	out.SetStrings("remaining_source", source, nil)
	for k := range theta {
		out.SetFloat64sNaNAsNull(fmt.Sprintf("speed_theta%d", k), theta[k])
	}
	out.SetStrings("loss_quality", lossQ, modelio.Present(lossQ))
	out.SetStrings("speed_quality", speedQ, modelio.Present(speedQ))
	out.SetFloat64sNaNAsNull("speed_now", speedNow)
	out.SetFloat64sNaNAsNull("eta_s", eta)
	for k, c := range at {
		out.SetFloat64sNaNAsNull(fmt.Sprintf("speed_at_%d_%d", c.PS, c.Workers), atSpeed[k])
	}
	return out, nil
}

func identity(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}
