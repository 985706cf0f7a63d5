// Package applycmd implements `optimus apply`: carry a plan out through an
// executor (print, exec or kubernetes) and record what was done.
package applycmd

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/executor"
	execexec "github.com/optimus-sched/optimus/executor/exec"
	"github.com/optimus-sched/optimus/executor/kubernetes"
	printexec "github.com/optimus-sched/optimus/executor/print"
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
	Current    string // print, exec: the plan running now
	Cluster    string // print, exec: nodes and capacities to check the plan against
	Prune      bool
	DryRun     bool
	Manifests  bool
	Generation string

	Program     string // exec
	ExecTimeout time.Duration

	Kubeconfig string // kubernetes (and print --manifests: Namespace)
	Context    string
	Namespace  string
	Timeout    time.Duration
	LeaseWait  time.Duration

	Output cmdutil.OutputOptions
}

// NewCmd returns `optimus apply`.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "apply --jobs FILE --executor print|exec|kubernetes [-i PLAN] [-o FILE]",
		Short: "Carry a plan out on the cluster and record what was done",
		Long: `Apply compares the plan (optimus place's output) with what runs now and derives one
action per job: start (nothing runs, tasks wanted), stop (the plan lets the job wait or
marks it done; or, with --prune, the job is not in the plan at all), resize (the number
of PS or workers changed: checkpoint, then restart) or move (same numbers, some task on
another node). Tasks the plan marks kept are not touched; a job already running as
planned is skipped. The whole plan is checked before anything is done; an invalid plan
changes nothing (exit 2).

Executors (--executor):
  print       changes nothing: every action is planned; with --manifests the Kubernetes
              objects the kubernetes executor would create go to standard output as YAML
              (for kubectl apply -f -), and the actions table only to -o
  exec        runs --program once per job change: PROGRAM ACTION JOB --generation G
              --ps P --workers W, with the change as JSON on standard input, never
              through a shell; exit status 0 is done, its standard error the message
  kubernetes  pods bound to their planned nodes and a headless Service per job, in
              --namespace of the cluster --kubeconfig (or KUBECONFIG, or in-cluster) names

What runs now comes from the cluster for kubernetes, and from --current (the plan applied
last time) for print and exec: without it nothing runs.

The output is the actions table: one row per action and task with its outcome (done,
failed, skipped, planned) and message (optimus schema actions). Exit status 1 when any
action failed; the table then says what was and was not done, and applying the same plan
again retries what failed.`,
		Example: `  optimus apply -i plan.parquet --jobs jobs.parquet --executor print --current last-plan.parquet
  optimus apply -i plan.parquet --jobs jobs.parquet --executor print --manifests | kubectl apply --dry-run=client -f -
  optimus apply -i plan.parquet --jobs jobs.parquet --executor exec --program ./launch --current last-plan.parquet -o actions.parquet
  optimus place --cluster c.parquet -i alloc.parquet | optimus apply --jobs jobs.parquet --executor kubernetes -o actions.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "plan")
	f := cmd.Flags()
	f.StringVar(&opts.Jobs, "jobs", "", "read the jobs (image, command, mode, global_batch, model) from `FILE` (required)")
	f.StringVar(&opts.Executor, "executor", "", "`EXECUTOR` that carries the plan out: print, exec or kubernetes (required)")
	f.StringVar(&opts.Current, "current", "", "print, exec: read the plan running now from `FILE` (none: nothing runs)")
	f.StringVar(&opts.Cluster, "cluster", "", "print, exec: check the plan against the nodes and capacities in `FILE`")
	f.BoolVar(&opts.Prune, "prune", false, "stop jobs that run now but are not in the plan (otherwise they are left alone)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "change nothing: report what would be done (outcome planned)")
	f.BoolVar(&opts.Manifests, "manifests", false, "print: write the Kubernetes objects the kubernetes executor would create to standard output as YAML")
	f.StringVar(&opts.Generation, "generation", "", "`NAME` of this plan in labels and requests (default: a hash of the plan's tasks and nodes)")
	f.StringVar(&opts.Program, "program", "", "exec: the `PROGRAM` to run per change (a path, or a name looked up in PATH)")
	f.DurationVar(&opts.ExecTimeout, "exec-timeout", execexec.DefaultTimeout, "exec: kill a call of the program (and its process group) after `DURATION`")
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubernetes: the kubeconfig `FILE` (default: KUBECONFIG, ~/.kube/config, then in-cluster)")
	f.StringVar(&opts.Context, "context", "", "kubernetes: the kubeconfig `CONTEXT` (default: its current context)")
	f.StringVar(&opts.Namespace, "namespace", "", "kubernetes, print --manifests: the `NAMESPACE` of the pods and Services (default: the context's, else default)")
	f.DurationVar(&opts.Timeout, "timeout", kubernetes.DefaultTimeout, "kubernetes: how long (`DURATION`) to wait for replaced pods to go and new pods to run (negative: do not wait)")
	f.DurationVar(&opts.LeaseWait, "lease-wait", kubernetes.DefaultLeaseWait, "kubernetes: how long (`DURATION`) to wait for another apply's lease on the namespace (negative: fail at once)")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// Run applies.
func Run(opts *Options) error {
	if err := opts.check(); err != nil {
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
	if opts.Current != "" {
		t, err := cmdutil.ReadSide("current", opts.Current, schema.Plan)
		if err != nil {
			return err
		}
		if current, err = adapt.ReadCurrent(t); err != nil {
			return err
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

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ex, err := opts.newExecutor(ctx, current, capacity)
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
	actions, err := adapt.ActionsTable(report.All())
	if err != nil {
		return err
	}
	if report.Failed() > 0 {
		cmdutil.Warnf(opts.IO, "%s", report.Summary())
	} else {
		cmdutil.Summaryf(opts.IO, "%s", report.Summary())
	}
	// With --manifests standard output carries the YAML: the table goes
	// only to a file.
	if !opts.Manifests || opts.Output.Path != "" && opts.Output.Path != "-" {
		if err := opts.Output.Write(opts.IO, actions); err != nil {
			return err
		}
	}
	return report.Err()
}

// check validates the flags before any input is read.
func (opts *Options) check() error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Jobs == "" {
		return cmdutil.Usagef("--jobs FILE is required: the jobs table (image, command) of the plan's jobs")
	}
	only := func(flag, executorName string, set bool) error {
		if set && opts.Executor != executorName {
			return cmdutil.Usagef("--%s applies to --executor %s only", flag, executorName)
		}
		return nil
	}
	switch opts.Executor {
	case "print", "exec", "kubernetes":
	case "":
		return cmdutil.Usagef("--executor is required: print (changes nothing), exec or kubernetes")
	default:
		return cmdutil.Usagef("--executor %q: use print, exec or kubernetes", opts.Executor)
	}
	for _, c := range []struct {
		flag, executor string
		set            bool
	}{
		{"manifests", "print", opts.Manifests},
		{"program", "exec", opts.Program != ""},
		{"kubeconfig", "kubernetes", opts.Kubeconfig != ""},
		{"context", "kubernetes", opts.Context != ""},
	} {
		if err := only(c.flag, c.executor, c.set); err != nil {
			return err
		}
	}
	if opts.Executor == "exec" && opts.Program == "" {
		return cmdutil.Usagef("--executor exec needs --program PATH: the program to run per change")
	}
	if opts.Executor == "exec" && opts.ExecTimeout <= 0 {
		return cmdutil.Usagef("--exec-timeout %s: give a positive duration", opts.ExecTimeout)
	}
	if opts.Executor == "kubernetes" && (opts.Current != "" || opts.Cluster != "") {
		return cmdutil.Usagef("--current and --cluster apply to print and exec: the kubernetes executor reads both from the cluster")
	}
	if opts.Namespace != "" && opts.Executor != "kubernetes" && !opts.Manifests {
		return cmdutil.Usagef("--namespace applies to --executor kubernetes and to print --manifests")
	}
	return nil
}

// newExecutor builds the executor the flags name.
func (opts *Options) newExecutor(ctx context.Context, current []executor.Task, capacity map[string]map[string]float64) (executor.Executor, error) {
	switch opts.Executor {
	case "print":
		po := printexec.Options{Current: current, Capacity: capacity}
		if opts.Manifests {
			mo := kubernetes.ManifestOptions{Namespace: opts.Namespace}
			po.Manifests = opts.IO.Out
			po.Manifest = func(w io.Writer, changes []executor.Change) error { return kubernetes.WriteManifests(w, changes, mo) }
		}
		return printexec.New(po)
	case "exec":
		e, err := execexec.New(execexec.Options{Program: opts.Program, Timeout: opts.ExecTimeout, Current: current, Capacity: capacity})
		if err != nil {
			return nil, cmdutil.Usagef("--program %v", err)
		}
		return e, nil
	}
	return kubernetes.New(ctx, kubernetes.Options{Kubeconfig: opts.Kubeconfig, Context: opts.Context, Namespace: opts.Namespace,
		Timeout: opts.Timeout, LeaseWait: opts.LeaseWait})
}
