// Package snapshotcmd implements `optimus snapshot SOURCE`: read a cluster's
// nodes and the optimus-managed tasks back into the tables the pipeline
// starts from (cluster, the current plan, the jobs' running ps and
// workers), so a cron job runs snapshot | fit | predict | solve | place
// --current | apply. Each source (package executor's registry: kubernetes;
// the main package links them) is a subcommand.
package snapshotcmd

import (
	"context"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/kubebin"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Options are a snapshot's inputs.
type Options struct {
	IO *iostreams.IOStreams
	// Source reads the cluster: the registered source's configuration, as
	// its flags set it.
	Source  executor.SourceConfig
	Jobs    string // the user's jobs table; "": no jobs table is written
	OutDir  string
	Format  string // extension of the files written: parquet, arrow, arrows or csv
	Timeout time.Duration
}

// NewCmd returns `optimus snapshot` with one subcommand per source.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Read a cluster's nodes and running tasks into tables",
		Args:  cobra.NoArgs,
	}
	for _, s := range executor.Sources() {
		cmd.AddCommand(NewCmdSource(ios, s, nil))
	}
	return cmd
}

// NewCmdSource returns `optimus snapshot NAME` for one source.
func NewCmdSource(ios *iostreams.IOStreams, s *executor.Source, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Source: s.NewConfig()}
	cmd := &cobra.Command{
		Use:     s.Name + " -o DIR [--jobs FILE]",
		Short:   s.Short,
		Long:    s.Long,
		Example: s.Example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.OutDir, "output", "o", "", "write the tables into `DIR` (required; created if missing)")
	f.StringVar(&opts.Jobs, "jobs", "", "read the user's jobs table from `FILE` and write it with the running ps and workers")
	f.StringVar(&opts.Format, "format", "parquet", "`FORMAT` of the files written: parquet, arrow, arrows or csv")
	f.DurationVar(&opts.Timeout, "timeout", time.Minute, "give up on the cluster after `DURATION`")
	opts.Source.AddFlags(f)
	return cmd
}

var extensions = map[string]string{"parquet": ".parquet", "arrow": ".arrow", "arrows": ".arrows", "csv": ".csv"}

// Run snapshots the cluster.
func Run(ctx context.Context, opts *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.OutDir == "" {
		return cmdutil.Usagef("-o DIR is required: where the cluster, plan and jobs tables go")
	}
	if err := cmdutil.CheckOutputDir("-o", opts.OutDir); err != nil {
		return err
	}
	ext, ok := extensions[opts.Format]
	if !ok {
		return cmdutil.Usagef("--format %q: use parquet, arrow, arrows or csv", opts.Format)
	}
	// A source this binary does not link: optimus-kubernetes runs the
	// command instead, before any input is read.
	if err := kubebin.IfUnlinked(opts.IO, opts.Source); err != nil {
		return err
	}
	var jobs *table.Table
	if opts.Jobs != "" {
		var err error
		if jobs, err = cmdutil.ReadSide("jobs", opts.Jobs, schema.Jobs); err != nil {
			return err
		}
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	snap, err := opts.Source.Read(ctx)
	if err != nil {
		return err
	}
	for _, w := range snap.Warnings {
		cmdutil.Warnf(opts.IO, "snapshot: %s", w)
	}
	cluster, resources, err := adapt.SnapshotCluster(snap.Nodes, func(name, why string) {
		cmdutil.Warnf(opts.IO, "snapshot: node %s left out of the cluster table: %s", name, why)
	})
	if err != nil {
		return err
	}
	plan, err := adapt.SnapshotPlan(snap.Tasks, resources)
	if err != nil {
		return err
	}
	out := map[string]*table.Table{"cluster": cluster, "plan": plan}
	if jobs != nil {
		if out["jobs"], err = adapt.SnapshotJobs(jobs, snap.Tasks, func(job string, n int) {
			cmdutil.Warnf(opts.IO, "snapshot: job %q runs %d tasks but is not in %s: left out of jobs%s", job, n, opts.Jobs, ext)
		}); err != nil {
			return err
		}
	}
	// A set: a round never reads a new cluster beside an old plan.
	var paths []string
	var tabs []*table.Table
	for _, name := range []string{"cluster", "plan", "jobs"} {
		if t := out[name]; t != nil {
			paths, tabs = append(paths, filepath.Join(opts.OutDir, name+ext)), append(tabs, t)
		}
	}
	if err := cmdutil.WriteDir(opts.OutDir, paths, tabs); err != nil {
		return err
	}
	cmdutil.WarnLeftOver(opts.IO, opts.OutDir, paths, "cluster", "plan", "jobs")
	jobsRunning := map[string]bool{}
	for _, t := range snap.Tasks {
		jobsRunning[t.Job] = true
	}
	cmdutil.Summaryf(opts.IO, "snapshot: %d nodes, %d tasks of %d jobs in %s -> %s", cluster.NumRows(), len(snap.Tasks), len(jobsRunning), snap.Where, opts.OutDir)
	return nil
}
