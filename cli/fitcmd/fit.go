// Package fitcmd implements `optimus fit`: fit each job's convergence and
// speed models to its loss points and speed samples, and `optimus fit
// suggest`: which configurations to measure next.
package fitcmd

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/modelio"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
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
	in, err := readInputs(opts)
	if err != nil {
		return err
	}
	models, err := FitTables(in.loss, in.speed, in.jobs, opts.Parallel, cmdutil.Progress(opts.IO, "fit"))
	if err != nil {
		return err
	}
	reportDropped(opts.IO, models)
	return opts.Output.Write(opts.IO, modelio.ModelsTable(models))
}

// FitTables fits every job of the loss and speed tables (either may be
// nil); with a jobs table every job of it gets a row, in its order,
// otherwise jobs come in order of first appearance, loss before speed.
func FitTables(loss, speed, jobs *table.Table, parallel int, progress func(done, total int)) ([]modelio.Model, error) {
	var infos map[string]modelio.JobInfo
	var order []string
	var known map[string]bool
	jobsSource := ""
	if jobs != nil {
		infos, order = modelio.JobInfos(jobs)
		known = make(map[string]bool, len(order))
		for _, j := range order {
			known[j] = true
		}
		jobsSource = jobs.Source
	}
	var lossByJob []modelio.JobLoss
	var speedByJob []modelio.JobSpeed
	var err error
	if loss != nil {
		if lossByJob, err = modelio.GroupLoss(loss, known, jobsSource); err != nil {
			return nil, err
		}
	}
	if speed != nil {
		if speedByJob, err = modelio.GroupSpeed(speed, infos, jobsSource); err != nil {
			return nil, err
		}
	}
	index := map[string]int{}
	add := func(j string) {
		if _, ok := index[j]; !ok {
			index[j] = len(order)
			order = append(order, j)
		}
	}
	for i, j := range order {
		index[j] = i
	}
	for _, jl := range lossByJob {
		add(jl.Job)
	}
	for _, js := range speedByJob {
		add(js.Job)
	}
	lossOf := make([]*modelio.JobLoss, len(order))
	for i := range lossByJob {
		lossOf[index[lossByJob[i].Job]] = &lossByJob[i]
	}
	speedOf := make([]*modelio.JobSpeed, len(order))
	for i := range speedByJob {
		speedOf[index[speedByJob[i].Job]] = &speedByJob[i]
	}

	out := make([]modelio.Model, len(order))
	parallel = max(1, parallel)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = fitJob(order[i], lossOf[i], speedOf[i], infos)
				mu.Lock()
				done++
				progress(done, len(order))
				mu.Unlock()
			}
		}()
	}
	for i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, nil
}

// fitJob fits one job's models; what cannot be fitted is explained in the
// notes rather than failing the whole run.
func fitJob(job string, jl *modelio.JobLoss, js *modelio.JobSpeed, infos map[string]modelio.JobInfo) modelio.Model {
	m := modelio.Model{Job: job}
	if info, ok := infos[job]; ok {
		m.SpeedMode, m.SpeedBatch = info.Mode, info.GlobalBatch
	}
	if jl == nil {
		m.LossNote = "no loss points"
	} else {
		opt := fit.DefaultLossOptions
		opt.HigherIsBetter = jl.HigherIsBetter
		lf, err := fit.FitLoss(jl.Points, opt)
		switch {
		case err != nil:
			m.LossNote = err.Error()
		case lf.Quality == fit.QualityInsufficient:
			m.Loss = &lf
			m.LossNote = fmt.Sprintf("%d usable of %d points; %d needed", lf.Used, len(jl.Points), opt.MinPoints)
		default:
			m.Loss = &lf
		}
	}
	if js == nil {
		m.SpeedNote = "no speed samples"
	} else {
		m.SpeedMode, m.SpeedBatch = js.Mode, js.GlobalBatch
		var ok []fit.Config
		for _, s := range js.Samples {
			if s.Speed > 0 {
				ok = append(ok, fit.Config{PS: s.PS, Workers: s.Workers})
			}
		}
		m.Identifiable = fit.Identifiable(js.Mode, js.GlobalBatch, ok)
		sf, err := fit.FitSpeed(js.Mode, js.GlobalBatch, js.Samples)
		if err != nil {
			m.SpeedNote = err.Error()
		} else {
			m.Speed = &sf
			if !m.Identifiable {
				m.SpeedNote = "the measured configurations cannot separate every term: see optimus fit suggest"
			}
		}
	}
	m.SpeedQuality = modelio.SpeedVerdict(m.Speed, m.Identifiable, m.SpeedNote)
	return m
}

// reportDropped says on standard error what data the fits left out.
func reportDropped(ios *iostreams.IOStreams, models []modelio.Model) {
	var points, pointJobs, failed, failedJobs int
	for _, m := range models {
		if m.Loss != nil && m.Loss.Dropped > 0 {
			points += m.Loss.Dropped
			pointJobs++
		}
		if m.Speed != nil && m.Speed.Failed > 0 {
			failed += m.Speed.Failed
			failedJobs++
		}
	}
	if points > 0 {
		cmdutil.Logf(ios, "fit: dropped %d loss points of %d jobs (NaN, infinite or outliers; see loss_dropped)", points, pointJobs)
	}
	if failed > 0 {
		cmdutil.Logf(ios, "fit: excluded %d failed speed samples of %d jobs (speed 0 or NaN; see speed_failed)", failed, failedJobs)
	}
}
