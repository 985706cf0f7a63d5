// Package applycmd implements `optimus apply`: carry a plan out through an
// executor (those registered in package executor: print, exec, kubernetes;
// the main package links them, executor/all or executor/allkube) and record
// what was done.
package applycmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/kubebin"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/state"
	"github.com/optimus-sched/optimus/internal/interrupt"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Options are apply's inputs.
type Options struct {
	IO         *iostreams.IOStreams
	Input      string // the plan
	Jobs       string
	Executor   string
	Current    string // executors that do not read the cluster: the plan running now
	State      string // or the state file apply reads it from and records what runs after into
	StateWait  time.Duration
	Cluster    string // and the nodes and capacities to check the plan against
	Prune      bool
	DryRun     bool
	Generation string

	// Configs holds every executor kind's configuration by name, as its
	// flags set it; Run uses the one --executor names.
	Configs map[string]executor.Config
	// Changed reports whether a flag was given (the flags of the
	// executors apply to theirs only); nil: none was.
	Changed func(flag string) bool
	// flagOwners records, for each executor flag, the kinds that define
	// it.
	flagOwners map[string][]owner

	Output cmdutil.OutputOptions
}

// NewCmd returns `optimus apply`.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Configs: map[string]executor.Config{}}
	kinds := executor.Kinds()
	cmd := &cobra.Command{
		Use:   "apply --jobs FILE --executor " + strings.Join(executor.Names(), "|") + " [-i PLAN] [-o FILE]",
		Short: "Carry a plan out on the cluster and record what was done",
		Long: `Apply compares the plan (optimus place's output) with what runs now and derives one
action per job: start (nothing runs, tasks wanted), stop (the plan lets the job wait or
marks it done; or, with --prune, the job is not in the plan at all), resize (the number
of PS or workers changed: checkpoint, then restart) or move (same numbers, some task on
another node). Tasks the plan marks kept are not touched; a job already running as
planned is skipped. The whole plan is checked before anything is done; an invalid plan
changes nothing (exit 2).

Executors (--executor):
` + executorHelp(kinds) + `

What runs now comes from the cluster for ` + executor.AndList(readers(kinds, true)) + `, and for ` + executor.AndList(readers(kinds, false)) + `
from --state FILE (what the last apply recorded; optimus init writes the first, where
nothing runs) or --current (a plan taken as running now): without either nothing runs.
With --state, apply then rewrites FILE (atomically) with what runs after it: a job whose
change was done runs its new tasks, a job whose change failed what it ran before, so the
next round neither repeats what succeeded nor loses what failed. One apply at a time holds
FILE (a lock on FILE.lock, from reading it to recording it): another waits for it up to
--state-wait, so two overlapping cron rounds never make the same change twice.

The output is the actions table: one row per action and task with its outcome (done,
failed, skipped, planned) and message (optimus schema actions). Exit status 1 when any
action failed; the table then says what was and was not done, and applying the same plan
again retries what failed.`,
		Example: `  optimus apply -i plan.parquet --jobs jobs.parquet --executor print --current last-plan.parquet
  optimus apply -i plan.parquet --jobs jobs.parquet --executor print --manifests | kubectl apply --dry-run=client -f -
  optimus apply -i plan.parquet --jobs jobs.parquet --executor exec --program ./launch --state state.parquet -o actions.parquet
  optimus place --cluster c.parquet -i alloc.parquet | optimus apply --jobs jobs.parquet --executor kubernetes -o actions.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "plan")
	f := cmd.Flags()
	f.StringVar(&opts.Jobs, "jobs", "", "read the jobs (image, command, mode, global_batch, model) from `FILE` (required)")
	f.StringVar(&opts.Executor, "executor", "", "`EXECUTOR` that carries the plan out: "+executor.OrList(executor.Names())+" (required)")
	notReaders := strings.Join(readers(kinds, false), ", ")
	f.StringVar(&opts.Current, "current", "", notReaders+": read the plan running now from `FILE` (none: nothing runs)")
	f.StringVar(&opts.State, "state", "", notReaders+": read the plan running now from the state `FILE` and record there what runs after (optimus init writes the first)")
	f.DurationVar(&opts.StateWait, "state-wait", state.DefaultWait, "with --state: how long (`DURATION`) to wait for another apply that holds the state FILE (0 or negative: fail at once)")
	f.StringVar(&opts.Cluster, "cluster", "", notReaders+": check the plan against the nodes and capacities in `FILE`")
	f.BoolVar(&opts.Prune, "prune", false, "stop jobs that run now but are not in the plan (otherwise they are left alone)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "change nothing: report what would be done (outcome planned)")
	f.StringVar(&opts.Generation, "generation", "", "`NAME` of this plan in labels and requests (default: a hash of the plan's tasks and nodes)")
	opts.flagOwners = addExecutorFlags(f, kinds, opts.Configs)
	opts.Changed = f.Changed
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// executorHelp lists the kinds for apply's help, each with its paragraph.
func executorHelp(kinds []*executor.Kind) string {
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, line := range strings.Split(k.Long, "\n") {
			if j == 0 {
				fmt.Fprintf(&b, "  %-12s%s", k.Name, line)
			} else {
				fmt.Fprintf(&b, "\n%14s%s", "", line)
			}
		}
	}
	return b.String()
}

// readers names the kinds that read the cluster themselves (or, with
// false, those that take --current and --cluster).
func readers(kinds []*executor.Kind, reads bool) []string {
	var names []string
	for _, k := range kinds {
		if k.ReadsCluster == reads {
			names = append(names, k.Name)
		}
	}
	return names
}

// owner is one executor kind that defines a flag.
type owner struct {
	kind  string
	needs string // the kind's other flag this one applies with ("" none)
}

// addExecutorFlags defines every kind's flags on f, a flag two kinds define
// once, setting both; the help says which executors a flag is for.
func addExecutorFlags(f *pflag.FlagSet, kinds []*executor.Kind, configs map[string]executor.Config) map[string][]owner {
	type def struct {
		kind string
		flag *pflag.Flag
	}
	defs := map[string][]def{}
	flagOwners := map[string][]owner{}
	var names []string
	for _, k := range kinds {
		cfg := k.NewConfig()
		configs[k.Name] = cfg
		fs := pflag.NewFlagSet(k.Name, pflag.ContinueOnError)
		cfg.AddFlags(fs)
		fs.VisitAll(func(fl *pflag.Flag) {
			if defs[fl.Name] == nil {
				names = append(names, fl.Name)
			}
			defs[fl.Name] = append(defs[fl.Name], def{k.Name, fl})
		})
	}
	for _, name := range names {
		ds := defs[name]
		// The kinds a flag applies to fully come first; the first of them
		// gives the help.
		sort.SliceStable(ds, func(i, j int) bool {
			return len(ds[i].flag.Annotations[executor.Needs]) < len(ds[j].flag.Annotations[executor.Needs])
		})
		var labels []string
		var owners []owner
		var values fanout
		for _, d := range ds {
			o := owner{kind: d.kind}
			label := d.kind
			if n := d.flag.Annotations[executor.Needs]; len(n) > 0 {
				o.needs = n[0]
				label += " --" + o.needs
			}
			if d.flag.Value.Type() != ds[0].flag.Value.Type() {
				panic(fmt.Sprintf("applycmd: flag --%s is a %s for %s, a %s for %s", name, ds[0].flag.Value.Type(), ds[0].kind, d.flag.Value.Type(), d.kind))
			}
			owners = append(owners, o)
			labels = append(labels, label)
			values = append(values, d.flag.Value)
		}
		flagOwners[name] = owners
		first := *ds[0].flag
		first.Usage = strings.Join(labels, ", ") + ": " + first.Usage
		first.Annotations = nil
		if len(values) > 1 {
			first.Value = values
		}
		f.AddFlag(&first)
	}
	return flagOwners
}

// fanout is a flag that sets the same option of several executors.
type fanout []pflag.Value

func (v fanout) String() string { return v[0].String() }
func (v fanout) Type() string   { return v[0].Type() }
func (v fanout) Set(s string) error {
	for _, x := range v {
		if err := x.Set(s); err != nil {
			return err
		}
	}
	return nil
}

// IsBoolFlag lets a shared bool flag go without a value.
func (v fanout) IsBoolFlag() bool {
	b, ok := v[0].(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Run applies.
func Run(opts *Options) error {
	if err := opts.check(); err != nil {
		return err
	}
	// An executor this binary does not link: optimus-kubernetes runs the
	// command instead, before any input is read.
	if err := kubebin.IfUnlinked(opts.IO, opts.Configs[opts.Executor]); err != nil {
		return err
	}
	// The main input first: in a pipe the stages before may write the side
	// inputs before they end their output.
	planTable, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.Plan)
	if err != nil {
		return err
	}
	jobsTable, err := cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs)
	if err != nil {
		return err
	}
	plan, err := adapt.ReadPlan(planTable)
	if err != nil {
		return err
	}
	jobs := adapt.ReadJobs(jobsTable)
	if err := adapt.CheckJobsKnown(planTable, jobs, jobsTable.Source); err != nil {
		return err
	}
	var current []executor.Task
	if from, path := opts.currentFlag(); path != "" {
		if from == "state" {
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return cmdutil.Usagef("--state %s does not exist: `optimus init %s` writes the first state (nothing runs)", path, path)
			}
			unlock, err := opts.lockState()
			if err != nil {
				return err
			}
			defer unlock()
		}
		t, err := cmdutil.ReadSide(from, path, schema.Plan)
		if err != nil {
			return err
		}
		if current, err = adapt.ReadCurrent(t); err != nil {
			return err
		}
	}
	if !executor.Lookup(opts.Executor).ReadsCluster {
		if msg := disagreement(jobsTable, current); msg != "" {
			from := "nothing, without --state or --current"
			if flag, path := opts.currentFlag(); path != "" {
				from = "--" + flag + " " + path
			}
			cmdutil.Warnf(opts.IO, "%s: the ps/workers of %s disagree with what runs now (%s); apply goes by what runs now (optimus snapshot state writes a jobs table that agrees with the state)", jobsTable.Source, msg, from)
		}
	}
	var capacity map[string]map[string]float64
	if opts.Cluster != "" {
		t, err := cmdutil.ReadSide("cluster", opts.Cluster, schema.Cluster)
		if err != nil {
			return err
		}
		capacity = adapt.ReadCapacity(t)
	}

	ctx, stop := context.Background(), context.CancelFunc(func() {})
	if sigs := interrupt.Signals(); len(sigs) > 0 {
		ctx, stop = signal.NotifyContext(ctx, sigs...)
	}
	defer stop()
	env := executor.Env{Stdout: opts.IO.Out}
	if !executor.Lookup(opts.Executor).ReadsCluster {
		env.Current, env.Capacity = current, capacity
	}
	ex, err := opts.Configs[opts.Executor].New(ctx, env)
	if err != nil {
		return err
	}
	report, err := apply.Run(ctx, ex, plan, jobs, apply.RunOptions{
		Options: apply.Options{Prune: opts.Prune, Generation: opts.Generation}, DryRun: opts.DryRun})
	if errors.Is(err, executor.ErrInvalidPlan) {
		return &table.Error{Source: planTable.Source, Msg: strings.TrimPrefix(err.Error(), executor.ErrInvalidPlan.Error()+": ")}
	}
	if err != nil {
		return err
	}
	// The state first: it decides what the next round asks for again.
	// The actions table is written even when the state cannot be.
	stateErr := opts.recordState(report)
	actions, err := adapt.ActionsTable(report.All())
	if err != nil {
		return errors.Join(stateErr, err)
	}
	if report.Failed() > 0 {
		cmdutil.Warnf(opts.IO, "%s", report.Summary())
	} else {
		cmdutil.Summaryf(opts.IO, "%s", report.Summary())
	}
	// When the executor writes to standard output the table goes only to a
	// file.
	if !opts.writesStdout() || opts.Output.Path != "" && opts.Output.Path != "-" {
		if err := opts.Output.Write(opts.IO, actions); err != nil {
			return errors.Join(stateErr, err)
		}
	}
	if stateErr != nil {
		return stateErr
	}
	return report.Err()
}

// lockState takes --state's lock for the rest of the run, from reading
// what runs to recording what runs after, unless the run cannot record
// (--dry-run, or an executor that changes nothing).
func (opts *Options) lockState() (unlock func(), err error) {
	if opts.DryRun || executor.Lookup(opts.Executor).ChangesNothing {
		return func() {}, nil
	}
	return state.Lock(context.Background(), opts.State, opts.StateWait)
}

// recordState rewrites --state with what runs after the report's changes,
// when any was done.
func (opts *Options) recordState(report *apply.Report) error {
	if opts.State == "" || opts.DryRun || report.Done() == 0 {
		return nil
	}
	state, err := adapt.SnapshotPlan(report.Running(), nil)
	if err == nil {
		err = table.WriteFile(opts.State, cmdutil.Stamp(state))
	}
	if err != nil {
		return fmt.Errorf("recording what runs now: %w (%d changes were made, see the actions table; %s still says what ran before them)", err, report.Done(), opts.State)
	}
	return nil
}

// check validates the flags before any input is read.
func (opts *Options) check() error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Jobs == "" {
		return cmdutil.Usagef("--jobs FILE is required: the jobs table (image, command) of the plan's jobs")
	}
	kind := executor.Lookup(opts.Executor)
	switch {
	case opts.Executor == "":
		var choices []string
		for _, k := range executor.Kinds() {
			choices = append(choices, k.Name+" ("+k.Short+")")
		}
		return cmdutil.Usagef("--executor is required: %s", executor.OrList(choices))
	case kind == nil || opts.Configs[kind.Name] == nil:
		return cmdutil.Usagef("--executor %q: use %s", opts.Executor, executor.OrList(executor.Names()))
	}
	changed := opts.Changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	names := make([]string, 0, len(opts.flagOwners))
	for name := range opts.flagOwners {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !changed(name) {
			continue
		}
		owners := opts.flagOwners[name]
		applies := false
		var to []string
		for _, o := range owners {
			applies = applies || o.kind == kind.Name && (o.needs == "" || changed(o.needs))
			if o.needs != "" {
				to = append(to, o.kind+" --"+o.needs)
			} else {
				to = append(to, o.kind)
			}
		}
		if applies {
			continue
		}
		if len(to) == 1 {
			return cmdutil.Usagef("--%s applies to --executor %s only", name, to[0])
		}
		return cmdutil.Usagef("--%s applies to --executor %s", name, executor.OrList(to))
	}
	if err := opts.Configs[kind.Name].Check(); err != nil {
		return err
	}
	if kind.ReadsCluster && (opts.Current != "" || opts.State != "" || opts.Cluster != "") {
		return cmdutil.Usagef("--current, --state and --cluster apply to %s: the %s executor reads what runs and the nodes from the cluster",
			executor.AndList(readers(executor.Kinds(), false)), kind.Name)
	}
	if opts.Current != "" && opts.State != "" {
		return cmdutil.Usagef("--current and --state both say what runs now: give one")
	}
	if changed("state-wait") && opts.State == "" {
		return cmdutil.Usagef("--state-wait applies with --state only")
	}
	// A state apply will record must be writable before anything is done.
	if opts.State != "" && !opts.DryRun && !kind.ChangesNothing {
		if err := cmdutil.CheckOutputFile("--state", opts.State); err != nil {
			return err
		}
	}
	return nil
}

// currentFlag names the flag that says what runs now (current or state)
// and its file; "" when neither was given.
func (opts *Options) currentFlag() (flag, path string) {
	if opts.State != "" {
		return "state", opts.State
	}
	return "current", opts.Current
}

// writesStdout: the executor writes to standard output (print
// --manifests), so the actions table goes only to a file.
func (opts *Options) writesStdout() bool {
	w, ok := opts.Configs[opts.Executor].(executor.StdoutWriter)
	return ok && w.WritesStdout()
}

// disagreement says which jobs the jobs table's ps and workers columns
// (what the table says runs) disagree with what runs now, for a warning:
// their count and the first few, or "" when all agree.
func disagreement(jobs *table.Table, current []executor.Task) string {
	running := map[string][2]int64{}
	for _, t := range current {
		c := running[t.Job]
		if t.Role == executor.RolePS {
			c[0]++
		} else {
			c[1]++
		}
		running[t.Job] = c
	}
	ps, workers := jobs.Int64s("ps"), jobs.Int64s("workers")
	if ps == nil || workers == nil {
		return ""
	}
	var off []string
	for i, job := range jobs.Strings("job") {
		if c := running[job]; c != [2]int64{ps[i], workers[i]} {
			off = append(off, fmt.Sprintf("%s (table %d+%d, running %d+%d)", job, ps[i], workers[i], c[0], c[1]))
		}
	}
	if len(off) == 0 {
		return ""
	}
	n := len(off)
	if len(off) > 3 {
		off = append(off[:3], "...")
	}
	return fmt.Sprintf("%d jobs (%s)", n, strings.Join(off, "; "))
}
