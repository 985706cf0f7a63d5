package datasetscmd

import (
	"fmt"
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
)

// GenerateOptions are `datasets generate`'s inputs.
type GenerateOptions struct {
	IO            *iostreams.IOStreams
	Seed          uint64
	Tasks         int
	Nodes         int
	Running       float64
	MaxJobWorkers int
	AllReduce     float64
	Cluster       string
	Output        cmdutil.OutputOptions
}

// NewCmdGenerate returns `optimus datasets generate`.
func NewCmdGenerate(ios *iostreams.IOStreams, runF func(*GenerateOptions) error) *cobra.Command {
	opts := &GenerateOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "generate --tasks N --nodes M --cluster FILE [-o FILE]",
		Short: "Generate a synthetic cluster and predictions table of any size",
		Long: `Generate writes a cluster of M nodes to --cluster and a predictions table (jobs with
remaining steps and speed models, ready for optimus solve) to standard output or -o.

Nodes: four in five are 8-GPU servers (gpu 8, cpu 64, memory_gb 512, net_gbps 50), the
others CPU servers (cpu 96, memory_gb 384, net_gbps 50). Jobs: model families of the
embedded measurements (resnet-50, vgg-16, inception-bn, seq2seq, dssm) with their fitted
speed models, scaled by a factor in [0.9, 1.1] per job, testbed demands per task, 1 to 60
epochs left. Each job's max_ps and max_workers are where the optimus greedy would take it
alone, so that with enough capacity solve allocates exactly --tasks tasks (the sum of the
limits). The earliest --running share of the jobs run now with an allocation of their own.
With --allreduce, that share of the jobs are all-reduce jobs instead (workers only, 1 GPU each):
Pollux's applications at one of their profiled batches, with the all-reduce model fitted to
their profiles, as many workers as the greedy would give them alone. The same seed gives
byte-identical tables.`,
		Example: `  optimus datasets generate --tasks 100000 --nodes 16000 --cluster c.parquet -o p.parquet
  optimus datasets generate --tasks 1000 --nodes 200 --cluster c.parquet | optimus solve --cluster c.parquet | optimus place --cluster c.parquet -o plan.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return RunGenerate(opts)
		},
	}
	cmd.Flags().Uint64Var(&opts.Seed, "seed", datatables.DefaultSeed, "random seed of the generator")
	cmd.Flags().IntVar(&opts.Tasks, "tasks", 1000, "total tasks `N` (PS plus workers) the jobs ask for")
	cmd.Flags().IntVar(&opts.Nodes, "nodes", 200, "number of nodes `M` of the cluster")
	cmd.Flags().Float64Var(&opts.Running, "running", 0.3, "`FRACTION` of the jobs (the earliest) that run now")
	cmd.Flags().IntVar(&opts.MaxJobWorkers, "max-job-workers", 32, "most workers `W` one job asks for")
	cmd.Flags().Float64Var(&opts.AllReduce, "allreduce", 0, "`FRACTION` of the jobs that are all-reduce jobs of Pollux's applications (0: none)")
	cmd.Flags().StringVar(&opts.Cluster, "cluster", "", "write the cluster table to `FILE` (required; .parquet, .arrow, .arrows or .csv)")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// RunGenerate generates and writes the tables.
func RunGenerate(opts *GenerateOptions) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Cluster == "" || opts.Cluster == "-" {
		return cmdutil.Usagef("--cluster FILE is required: the cluster goes there, the predictions to standard output or -o")
	}
	if err := cmdutil.CheckOutputFile("--cluster", opts.Cluster); err != nil {
		return err
	}
	if _, err := table.FormatOf(opts.Cluster); err != nil {
		return cmdutil.Usagef("--cluster: %v", err)
	}
	if opts.Tasks < 2 {
		return cmdutil.Usagef("--tasks %d: give at least 2 (a job needs 1 PS and 1 worker)", opts.Tasks)
	}
	if opts.Nodes < 1 {
		return cmdutil.Usagef("--nodes %d: give at least 1", opts.Nodes)
	}
	if !(opts.Running >= 0 && opts.Running <= 1) {
		return cmdutil.Usagef("--running %v: give a fraction in [0, 1]", opts.Running)
	}
	if !(opts.AllReduce >= 0 && opts.AllReduce <= 1) {
		return cmdutil.Usagef("--allreduce %v: give a fraction in [0, 1]", opts.AllReduce)
	}
	if opts.MaxJobWorkers < 1 {
		return cmdutil.Usagef("--max-job-workers %d: give at least 1", opts.MaxJobWorkers)
	}
	if opts.Tasks > datatables.MaxTasks {
		return cmdutil.Usagef("--tasks %d: at most %d", opts.Tasks, datatables.MaxTasks)
	}
	if opts.Nodes > datatables.MaxNodes {
		return cmdutil.Usagef("--nodes %d: at most %d", opts.Nodes, datatables.MaxNodes)
	}
	if opts.MaxJobWorkers > datatables.MaxTasks {
		return cmdutil.Usagef("--max-job-workers %d: at most %d", opts.MaxJobWorkers, datatables.MaxTasks)
	}
	cluster, pred, err := datatables.Workload(datatables.WorkloadConfig{
		Seed: opts.Seed, Tasks: opts.Tasks, Nodes: opts.Nodes, Running: opts.Running, MaxJobWorkers: opts.MaxJobWorkers,
		AllReduce: opts.AllReduce,
	})
	if err != nil {
		return err
	}
	// The two tables belong together: both carry the same pair id, which
	// solve and place check (cmdutil), so that a cluster of one run is not
	// used with the predictions of another.
	pair := fmt.Sprintf("datasets generate --seed %d --tasks %d --nodes %d --running %v --max-job-workers %d",
		opts.Seed, opts.Tasks, opts.Nodes, opts.Running, opts.MaxJobWorkers)
	if opts.AllReduce > 0 {
		pair += fmt.Sprintf(" --allreduce %v", opts.AllReduce)
	}
	cmdutil.SetPair(cluster, pair)
	cmdutil.SetPair(pred, pair)
	if opts.Output.IsFile() {
		// Both files are written whole before either is renamed into place.
		if err := cmdutil.WriteFiles([]string{opts.Cluster, opts.Output.Path}, []*table.Table{cluster, pred}); err != nil {
			return err
		}
	} else if err := table.WriteFile(opts.Cluster, cmdutil.Stamp(cluster)); err != nil {
		// On a pipe the cluster goes first: the next command reads it once
		// its standard input ends.
		return err
	}
	cmdutil.Summaryf(opts.IO, "wrote %s (%d nodes); %d jobs asking for %d tasks", opts.Cluster, cluster.NumRows(), pred.NumRows(), opts.Tasks)
	if opts.Output.IsFile() {
		return nil
	}
	return opts.Output.Write(opts.IO, pred)
}
