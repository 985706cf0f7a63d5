// Package metricscmd implements `optimus metrics`: read the jobs' own
// training logs (TensorBoard event files, JSON lines, CSV loggers, MXNet,
// MLPerf, a user's regular expression) into the loss, speed and progress
// tables that fit and predict read.
package metricscmd

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/kubebin"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/metrics"
)

// Options are metrics' inputs.
type Options struct {
	IO      *iostreams.IOStreams
	Root    string
	OutDir  string
	Format  string // extension of the files written
	Jobs    string // --jobs: the jobs table
	Configs string // --configs: the config_changes table
	Sources []string
	// SourceOptions are the per-source flags, by source and option;
	// SourceFiles the --<source>-files patterns.
	SourceOptions map[string]map[string]string
	SourceFiles   map[string]string
	JobOf         []string // --job-of PATTERN=JOB
	Metric        string   // --metric TAG[:higher|:lower]
	MetricOf      []string // --metric-of NAME=TAG[:higher|:lower]
	StepTag       string
	EpochSteps    int64
	RestartSkip   time.Duration
	Parallel      int
}

// NewCmd returns `optimus metrics`; runF, when not nil, runs instead of
// Run (tests check the parsed options).
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, SourceOptions: map[string]map[string]string{}, SourceFiles: map[string]string{}}
	var sourceHelp strings.Builder
	for _, s := range metrics.Sources() {
		fmt.Fprintf(&sourceHelp, "  %-9s %s\n            files: %s\n", s.Name, s.Short, s.Files)
	}
	cmd := &cobra.Command{
		Use:   "metrics ROOT -o DIR [--jobs FILE] [--configs FILE]",
		Short: "Read the jobs' own training logs into loss, speed and progress tables",
		Long: `Metrics reads the training logs under ROOT and writes into DIR:

  loss.parquet      each job's convergence metric at every step it was logged (for fit)
  speed.parquet     each job's speed, in steps/s, over each run at one configuration (for fit)
  progress.parquet  each job's steps trained, and which tag is its metric
  jobs.parquet      with --jobs: the jobs table with progress_steps set from the logs
                    (for predict and fit)

The first path component under ROOT is the job: ROOT/JOB/ holds any tree of the job's
runs, or ROOT/JOB.log (up to the first dot) is a job's one log; --job-of files logs
laid out otherwise. With --jobs only the
table's jobs are read, and a job's epoch_steps turns epochs into steps.

Sources (--source; each reads the files its patterns match, --SOURCE-files replaces
them):
` + sourceHelp.String() + `
The convergence metric is the first of loss, train_loss, ..., val_loss, ...,
eval_accuracy, val_accuracy, accuracy (docs/metrics.md lists them) that a job logs,
or --metric, or --metric-of for one job or one model family of --jobs; a tag naming an
accuracy, top1, f1, bleu... is higher-is-better, or say :higher or :lower.

Speed is measured from the steps and times of the job's most logged tag (or
--step-tag), over each run: a stretch at one configuration with steps increasing. Its
configuration comes from --configs (when each job started with which ps and workers),
else from the run's directory name (ps2-w4, w8; docs/metrics.md), else, for the job's
last run only, from --jobs' ps and workers. The first interval of every run, and
--restart-skip after each configuration started, are not measured.

A job restarted from a checkpoint logs steps again: the later points win. A record or
line that cannot be read is skipped and counted; a file that cannot be read at all
(not an event file, a broken record length) is an error, and nothing is written. No
state is kept between runs (the same logs give the same tables), except by the
kubernetes source: it appends the pods' new log lines to ROOT/JOB/gen-G/CONFIG/*.podlog
(fetched through pods/log since the last line kept), which it then reads with the rest.`,
		Example: `  optimus metrics /mnt/logs --jobs jobs.parquet -o round
  optimus metrics runs -o m --metric-of resnet-50=eval_accuracy --configs changes.csv
  optimus metrics /var/lib/optimus/logs --source kubernetes --jobs snap/jobs.parquet -o m
  optimus metrics logs -o m --regex-pattern 'step (?P<step>\d+) loss (?P<value>\S+)' --epoch-steps 500`,
		Args: cmdutil.Args(1, "ROOT, the directory of the jobs' logs"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Root = args[0]
			for _, s := range metrics.Sources() {
				for _, o := range s.Options {
					if f := cmd.Flags().Lookup(s.Name + "-" + o.Name); f != nil && f.Changed {
						if opts.SourceOptions[s.Name] == nil {
							opts.SourceOptions[s.Name] = map[string]string{}
						}
						opts.SourceOptions[s.Name][o.Name] = f.Value.String()
					}
				}
				if f := cmd.Flags().Lookup(s.Name + "-files"); f != nil && f.Changed {
					opts.SourceFiles[s.Name] = f.Value.String()
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.OutDir, "output", "o", "", "write the tables into `DIR` (required; created if missing)")
	f.StringVar(&opts.Format, "format", "parquet", "`FORMAT` of the files written: parquet, arrow, arrows or csv")
	f.StringVar(&opts.Jobs, "jobs", "", "read the jobs table from `FILE`: only its jobs are read, and jobs.<format> is written with progress_steps")
	f.StringVar(&opts.Configs, "configs", "", "read when each job started with which ps and workers from `FILE` (a config_changes table)")
	f.StringSliceVar(&opts.Sources, "source", nil, "read only these `SOURCES` (comma-separated: "+strings.Join(metrics.Names(), ", ")+")")
	f.StringArrayVar(&opts.JobOf, "job-of", nil, "file the logs whose path under ROOT matches `PATTERN=JOB` under JOB (a pattern without / matches the base name; repeatable, the first match wins)")
	f.StringVar(&opts.Metric, "metric", "", "every job's convergence metric is `TAG` (add :higher or :lower to say which way is better)")
	f.StringArrayVar(&opts.MetricOf, "metric-of", nil, "the metric of one job or model family: `NAME=TAG[:higher|:lower]` (repeatable; a job wins over its model)")
	f.StringVar(&opts.StepTag, "step-tag", "", "measure speed by the steps and times of `TAG` (default: the job's most logged tag)")
	f.Int64Var(&opts.EpochSteps, "epoch-steps", 0, "steps per epoch of jobs that log by epoch, where --jobs does not say (`N`)")
	f.DurationVar(&opts.RestartSkip, "restart-skip", 0, "do not measure speed during `DURATION` after each configuration started (the restart)")
	f.IntVar(&opts.Parallel, "parallel", runtime.GOMAXPROCS(0), "read this many jobs at once")
	cmd.RegisterFlagCompletionFunc("source", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return metrics.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	for _, s := range metrics.Sources() {
		f.String(s.Name+"-files", s.Files, "base-name `PATTERNS` of the files the "+s.Name+" source reads (comma-separated)")
		for _, o := range s.Options {
			f.String(s.Name+"-"+o.Name, o.Default, "the "+s.Name+" source's "+o.Doc)
		}
	}
	return cmd
}

var extensions = map[string]string{"parquet": ".parquet", "arrow": ".arrow", "arrows": ".arrows", "csv": ".csv"}

// Run reads the logs and writes the tables.
func Run(opts *Options) error {
	if opts.OutDir == "" {
		return cmdutil.Usagef("-o DIR is required: where the loss, speed and progress tables go")
	}
	if err := cmdutil.CheckOutputDir("-o", opts.OutDir); err != nil {
		return err
	}
	ext, ok := extensions[opts.Format]
	if !ok {
		return cmdutil.Usagef("--format %q: use parquet, arrow, arrows or csv", opts.Format)
	}
	if opts.EpochSteps < 0 {
		return cmdutil.Usagef("--epoch-steps %d: give a number of steps of at least 1", opts.EpochSteps)
	}
	if opts.RestartSkip < 0 {
		return cmdutil.Usagef("--restart-skip %v: give a duration of at least 0", opts.RestartSkip)
	}
	if opts.Parallel < 1 {
		return cmdutil.Usagef("--parallel %d: read at least 1 job at a time", opts.Parallel)
	}
	readers, err := metrics.NewReaders(opts.Sources, opts.SourceOptions, opts.SourceFiles)
	if err != nil {
		return cmdutil.Usagef("%v", err)
	}
	global, err := parseMetric(opts.Metric)
	if err != nil {
		return cmdutil.Usagef("--metric: %v", err)
	}
	// A source this binary does not link (kubernetes: the main package
	// links it): optimus-kubernetes runs the command instead, before any
	// input is read.
	for _, r := range readers {
		if err := kubebin.IfUnlinked(opts.IO, r.Reader); err != nil {
			return err
		}
	}
	var jobs, configs *table.Table
	if opts.Jobs != "" {
		if jobs, err = cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs); err != nil {
			return err
		}
	}
	if opts.Configs != "" {
		if configs, err = cmdutil.ReadSide("configs", opts.Configs, schema.ConfigChanges); err != nil {
			return err
		}
	}
	info := jobInfos(jobs)
	metricOf := map[string]metrics.Metric{}
	for _, s := range opts.MetricOf {
		name, spec, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return cmdutil.Usagef("--metric-of %q: give NAME=TAG, NAME a job or a model family", s)
		}
		m, err := parseMetric(spec)
		if err != nil || m.Tag == "" {
			return cmdutil.Usagef("--metric-of %q: give NAME=TAG[:higher|:lower]", s)
		}
		metricOf[name] = m
	}
	changes := configChanges(configs)
	var rules []metrics.JobRule
	for _, s := range opts.JobOf {
		r, err := metrics.ParseJobRule(s)
		if err != nil {
			return cmdutil.Usagef("--job-of %v", err)
		}
		rules = append(rules, r)
	}

	w := &warnings{ios: opts.IO}
	// What a collector could not fetch (a pod without a log yet, a line too
	// long) is counted apart from what the readers skip.
	cw := &warnings{ios: opts.IO, collector: true}
	for _, r := range readers {
		c, ok := r.Reader.(metrics.Collector)
		if !ok {
			continue
		}
		// A collector keeps what it fetched under ROOT: the state between
		// runs, read below like any other log.
		if err := mkdir(opts.Root); err != nil {
			return err
		}
		unlock, err := lockRoot(opts.Root, c)
		if err != nil {
			return err
		}
		defer unlock()
		if err := c.Collect(context.Background(), opts.Root, cw.add); err != nil {
			return err
		}
	}
	cw.summary()
	found, err := metrics.Discover(opts.Root, readers, func(path, why string) {
		cmdutil.Warnf(opts.IO, "metrics: %s left out: %s", path, why)
	})
	if err != nil {
		return err
	}
	found = metrics.MapJobs(opts.Root, found, rules)
	if jobs != nil {
		var kept []metrics.JobLogs
		for _, jl := range found {
			if _, ok := info[jl.Job]; ok {
				kept = append(kept, jl)
			} else {
				cmdutil.Warnf(opts.IO, "metrics: %s is not a job of %s: its logs are left out", filepath.Join(opts.Root, jl.Job), opts.Jobs)
			}
		}
		found = kept
	}

	results := make([]*metrics.Result, len(found))
	files := make([]int, len(found))
	skipped := make([]int, len(found))
	errs := make([]error, len(found))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(opts.Parallel, max(len(found), 1)) {
		wg.Go(func() {
			for i := range next {
				jl := found[i]
				ji := info[jl.Job]
				o := metrics.Options{StepTag: opts.StepTag, RestartSkip: opts.RestartSkip.Seconds(), Metric: global, Changes: changes[jl.Job]}
				if m, ok := metricOf[ji.model]; ok && ji.model != "" {
					o.Metric = m
				}
				if m, ok := metricOf[jl.Job]; ok {
					o.Metric = m
				}
				if ji.current.Workers > 0 {
					c := ji.current
					o.Current = &c
				}
				epochSteps := ji.epochSteps
				if epochSteps == 0 {
					epochSteps = opts.EpochSteps
				}
				jr, err := metrics.ReadJob(jl, readers, w.add)
				if err == nil {
					err = jr.Resolve(epochSteps)
				}
				if err == nil {
					results[i], err = metrics.Reduce(jr, o)
					files[i], skipped[i] = len(jr.Files), jr.Skipped
					jr.Release()
				}
				errs[i] = err
			}
		})
	}
	for i := range found {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			if _, ok := err.(*metrics.Error); ok {
				return err
			}
			return &table.Error{Source: opts.Root, Msg: err.Error()}
		}
	}
	w.summary()
	report(opts.IO, results)

	out := []*table.Table{lossTable(results), speedTable(results), progressTable(results, files, skipped)}
	names := []string{"loss", "speed", "progress"}
	if jobs != nil {
		jt, err := updateJobs(jobs, results)
		if err != nil {
			return err
		}
		out, names = append(out, jt), append(names, "jobs")
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(opts.OutDir, n+ext)
	}
	if err := cmdutil.WriteDir(opts.OutDir, paths, out); err != nil {
		return err
	}
	cmdutil.WarnLeftOver(opts.IO, opts.OutDir, paths, "loss", "speed", "progress", "jobs")
	cmdutil.Summaryf(opts.IO, "metrics: %d jobs, %d loss points, %d speed samples -> %s", len(results), out[0].NumRows(), out[1].NumRows(), opts.OutDir)
	return nil
}

// parseMetric reads TAG[:higher|:lower].
func parseMetric(s string) (metrics.Metric, error) {
	if s == "" {
		return metrics.Metric{}, nil
	}
	tag, dir := s, ""
	if i := strings.LastIndexByte(s, ':'); i >= 0 && (s[i+1:] == "higher" || s[i+1:] == "lower") {
		tag, dir = s[:i], s[i+1:]
	}
	if tag == "" {
		return metrics.Metric{}, fmt.Errorf("%q names no tag", s)
	}
	m := metrics.Metric{Tag: tag}
	if dir != "" {
		h := dir == "higher"
		m.Higher = &h
	}
	return m, nil
}

type jobInfo struct {
	model      string
	epochSteps int64
	current    metrics.Configuration
}

func jobInfos(jobs *table.Table) map[string]jobInfo {
	out := map[string]jobInfo{}
	if jobs == nil {
		return out
	}
	names, models, es := jobs.Strings("job"), jobs.Strings("model"), jobs.Int64s("epoch_steps")
	ps, ws := jobs.Int64s("ps"), jobs.Int64s("workers")
	for i, j := range names {
		out[j] = jobInfo{model: models[i], epochSteps: es[i], current: metrics.Configuration{PS: int(ps[i]), Workers: int(ws[i])}}
	}
	return out
}

func configChanges(t *table.Table) map[string][]metrics.ConfigChange {
	out := map[string][]metrics.ConfigChange{}
	if t == nil {
		return out
	}
	jobs, start := t.Strings("job"), t.Float64s("start_s")
	ps, ws := t.Int64s("ps"), t.Int64s("workers")
	for i, j := range jobs {
		out[j] = append(out[j], metrics.ConfigChange{Start: start[i], Configuration: metrics.Configuration{PS: int(ps[i]), Workers: int(ws[i])}})
	}
	for j := range out {
		metrics.SortChanges(out[j])
	}
	return out
}

// warnings names the first skipped records on standard error and counts
// the rest.
type warnings struct {
	ios       *iostreams.IOStreams
	collector bool // a collector's: about pods, not files
	mu        sync.Mutex
	n         int
	files     map[string]bool
}

const warnDetail = 10

func (w *warnings) add(e *metrics.Error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	if w.files == nil {
		w.files = map[string]bool{}
	}
	w.files[e.File] = true
	if w.n <= warnDetail {
		cmdutil.Warnf(w.ios, "metrics: %s", e)
	}
}

func (w *warnings) summary() {
	switch {
	case w.collector && w.n > warnDetail:
		cmdutil.Warnf(w.ios, "metrics: %d pod logs or lines not fetched this time (the first %d named above)", w.n, warnDetail)
	case w.collector && w.n > 0:
		cmdutil.Warnf(w.ios, "metrics: %d pod logs or lines not fetched this time (named above)", w.n)
	case w.n > warnDetail:
		cmdutil.Warnf(w.ios, "metrics: skipped %d records or lines in %d files (the first %d named above; the progress table counts them per job)", w.n, len(w.files), warnDetail)
	case w.n > 0:
		cmdutil.Warnf(w.ios, "metrics: skipped %d records or lines in %d files (named above; the progress table counts them per job)", w.n, len(w.files))
	}
}

// report says on standard error what the logs held that the user should
// know.
func report(ios *iostreams.IOStreams, results []*metrics.Result) {
	var noMetric []string
	nonFinite, nfJobs, sup, supJobs, unattr, unattrJobs := 0, 0, 0, 0, 0, 0
	for _, r := range results {
		if r.Metric == "" {
			noMetric = append(noMetric, r.Job)
		}
		if r.NonFinite > 0 {
			nonFinite, nfJobs = nonFinite+r.NonFinite, nfJobs+1
		}
		if r.Superseded > 0 {
			sup, supJobs = sup+r.Superseded, supJobs+1
		}
		if r.Unattributed > 0 {
			unattr, unattrJobs = unattr+r.Unattributed, unattrJobs+1
		}
	}
	if len(noMetric) > 0 {
		sort.Strings(noMetric)
		cmdutil.Warnf(ios, "metrics: %d jobs log no tag that is a convergence metric (give --metric or --metric-of): %s", len(noMetric), names(noMetric))
	}
	if nonFinite > 0 {
		cmdutil.Warnf(ios, "metrics: %d NaN or infinite metric values of %d jobs kept in the loss table (fit drops and counts them)", nonFinite, nfJobs)
	}
	if sup > 0 {
		cmdutil.Warnf(ios, "metrics: %d points of %d jobs superseded by a restart that logged the same steps again (the later ones kept)", sup, supJobs)
	}
	if unattr > 0 {
		cmdutil.Warnf(ios, "metrics: %d runs of %d jobs have no known configuration: their speed is not measured (give --configs, or name run directories ps2-w4)", unattr, unattrJobs)
	}
}

func names(jobs []string) string {
	if len(jobs) > 5 {
		return fmt.Sprintf("%s and %d more", strings.Join(jobs[:5], ", "), len(jobs)-5)
	}
	return strings.Join(jobs, ", ")
}
