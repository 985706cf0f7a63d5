// Package solvecmd implements `optimus solve`: decide every job's parameter
// servers and workers from the predictions and the cluster's capacity.
package solvecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/solve"
)

// Options are solve's inputs.
type Options struct {
	IO      *iostreams.IOStreams
	Input   string
	Cluster string
	// Solve are the policy and its knobs (cmdutil.BindSolveFlags).
	Solve    solve.Options
	Quantile string // which remaining-steps column is Q: p10, p50 or p90
	Output   cmdutil.OutputOptions
}

// NewCmd returns the cobra command.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Solve: solve.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "solve --cluster FILE [-i FILE] [-o FILE]",
		Short: "Decide every job's parameter servers and workers",
		Long: `Solve reads a predictions table (remaining steps and a speed model per job, as
optimus predict or optimus datasets generate write it) and the cluster's capacity, and
decides how many parameter servers (PS) and workers each job gets, all jobs at once.

Policies (--policy):
` + cmdutil.DescribeChoices(cmdutil.SolvePolicies(), 90) + `

An allreduce job (mode allreduce) gets workers only (ps stays 0); its speed model assumes
its workers on the fewest nodes that hold them, as place packs them.

Capacity (--capacity): by default (nodes) every policy places the tasks it allocates on a
copy of the nodes as it goes, and a task that fits on no node does not fit, so that the
allocation packs onto the nodes (optimus place can place it). This deviates from the paper,
which checks only the cluster's total of each resource: --capacity aggregate does that.

Every float column of the cluster other than node is a resource; jobs need worker_<r> and
ps_<r> demands for each. A job that cannot be planned (no prediction, a task that fits on
no node) waits with a reason, and the others are planned. A running job's allocation
changes only when the predicted gain beats --restart-cost (optimus policy).

The output is the allocation table: the input's columns plus alloc_ps, alloc_workers,
alloc_speed, alloc_completion_s, the gains, status and reason (optimus schema allocation).`,
		Example: `  optimus solve --cluster cluster.parquet -i predictions.parquet -o allocation.parquet
  optimus datasets generate --tasks 1000 --nodes 200 --cluster c.parquet | optimus solve --cluster c.parquet --policy drf
  optimus solve --cluster c.parquet -i p.parquet --restart-cost 0 --format text`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "predictions")
	cmd.Flags().StringVar(&opts.Cluster, "cluster", "", "read the cluster's nodes and capacities from `FILE` (required)")
	cmd.Flags().StringVar((*string)(&opts.Solve.Policy), "policy", string(opts.Solve.Policy), "allocation `POLICY`: "+solve.PolicyNames(", "))
	cmdutil.BindSolveFlags(cmd.Flags(), &opts.Solve)
	cmd.Flags().StringVar(&opts.Quantile, "remaining", "p50", "plan with this `QUANTILE` of the predicted remaining steps: p10, p50 or p90")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// Run solves.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if err := opts.Solve.Validate(); err != nil {
		return cmdutil.Usagef("%v", err)
	}
	switch opts.Quantile {
	case "p10", "p50", "p90":
	default:
		return cmdutil.Usagef("--remaining %q: use p10, p50 or p90", opts.Quantile)
	}
	if opts.Cluster == "" {
		return cmdutil.Usagef("--cluster FILE is required: the cluster's nodes and capacities")
	}
	// The heap grows to several tens of times the inputs, all fresh
	// pages: fault them in huge pages where the system allows.
	table.PrepareHeapFor(opts.Input, opts.Cluster)
	// The side files once the main input has ended when it is a pipe (the
	// stage before writes them before it ends its output); beside it when
	// it is a file.
	pred, sides, err := cmdutil.ReadInputAndSides(opts.IO, opts.Input, schema.Predictions,
		cmdutil.Side{Flag: "cluster", Path: opts.Cluster, Want: schema.Cluster})
	if err != nil {
		return err
	}
	cluster := sides[0]
	c, prob, err := adapt.SolveProblem(pred, cluster, opts.Quantile)
	if err != nil {
		return err
	}
	res, err := solve.Solve(prob, opts.Solve)
	if err != nil {
		return err
	}
	out, err := adapt.AllocationTable(pred, res, c.Nodes)
	if err != nil {
		return err
	}
	cmdutil.Summaryf(opts.IO, "%s", Summary(prob, res))
	return opts.Output.Write(opts.IO, out)
}

// Summary is one line describing a plan, for standard error.
func Summary(prob *solve.Problem, res *solve.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "solve (%s, %s capacity): %d jobs: %d running, %d waiting, %d done; %d tasks; objective %s s",
		res.Policy, res.CapacityCheck, len(res.Decisions), res.Running, res.Waiting, res.Done, res.Tasks, cmdutil.Num(res.Objective))
	if res.Restarts > 0 || res.RestartCost > 0 {
		fmt.Fprintf(&b, ", %d restarts (%s s)", res.Restarts, cmdutil.Num(res.RestartCost))
	}
	b.WriteString("; used")
	for r, name := range prob.Resources {
		fmt.Fprintf(&b, " %s %s/%s", name, cmdutil.Num(res.Used[r]), cmdutil.Num(res.Capacity[r]))
	}
	return b.String()
}
