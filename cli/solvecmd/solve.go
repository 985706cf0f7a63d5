// Package solvecmd implements `optimus solve`: decide every job's parameter
// servers and workers from the predictions and the cluster's capacity.
package solvecmd

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/solve"
)

// Options are solve's inputs.
type Options struct {
	IO          *iostreams.IOStreams
	Input       string
	Cluster     string
	Policy      string
	RestartCost float64
	TetrisSRTF  float64
	BaselineCap int
	// TiresiasHours are Tiresias' queue thresholds in GPU-hours.
	TiresiasHours []float64
	Capacity      string // nodes or aggregate
	Quantile      string // which remaining-steps column is Q: p10, p50 or p90
	Output        cmdutil.OutputOptions
}

// NewCmd returns the cobra command.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	def := solve.DefaultOptions()
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "solve --cluster FILE [-i FILE] [-o FILE]",
		Short: "Decide every job's parameter servers and workers",
		Long: `Solve reads a predictions table (remaining steps and a speed model per job, as
optimus predict or optimus datasets generate write it) and the cluster's capacity, and
decides how many parameter servers (PS) and workers each job gets, all jobs at once.

Policies (--policy):
  optimus  the paper's greedy: every job 1 PS + 1 worker in arrival order, then the task
           (PS or worker, of any job) with the largest marginal gain, (weighted remaining
           time saved) / (task's dominant share of the cluster), until no gain is positive
           or nothing fits
  drf      dominant resource fairness: units of 1 PS + 1 worker to the job with the
           smallest dominant share, up to its limits (or --baseline-cap)
  tetris   units of 1 PS + 1 worker by packing score plus a shortest-remaining-time
           bias, up to the job's limits (or --baseline-cap)
  fifo     each job its request (max_ps, max_workers) in arrival order
  tiresias discretised 2D least-attained-service (NSDI'19): jobs in queues by the
           service they attained (GPU-seconds; thresholds --tiresias-thresholds), a lower
           queue first, arrival order within one; each job its whole request or nothing.
           A predictions table carries no attained service, so here every job is in the
           first queue (optimus simulate tracks it)

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
	cmd.Flags().StringVar(&opts.Policy, "policy", string(solve.Optimus), "allocation `POLICY`: optimus, drf, tetris, fifo or tiresias")
	cmd.Flags().Float64Var(&opts.RestartCost, "restart-cost", def.RestartCost,
		"what a restart (checkpoint, stop, restore) costs a running job, in `SECONDS`; its allocation changes only when the predicted gain beats it (0: re-solve from scratch)")
	cmd.Flags().Float64Var(&opts.TetrisSRTF, "tetris-srtf", def.TetrisSRTFWeight,
		"tetris: `WEIGHT` in [0,1] of the shortest-remaining-time bias against the packing score")
	cmd.Flags().IntVar(&opts.BaselineCap, "baseline-cap", def.BaselineCap,
		"drf, tetris: most PS and most workers (`N` each) for a job without max_ps/max_workers")
	cmd.Flags().Float64SliceVar(&opts.TiresiasHours, "tiresias-thresholds", []float64{16},
		"tiresias: attained service, in `GPU-HOURS` (ascending), at which a job moves to the next queue")
	cmd.Flags().StringVar(&opts.Capacity, "capacity", string(solve.NodeCapacity),
		"check allocations against the `CHECK`: nodes (every task fits on some node) or aggregate (the cluster's totals only, as the paper)")
	cmd.Flags().StringVar(&opts.Quantile, "remaining", "p50", "plan with this `QUANTILE` of the predicted remaining steps: p10, p50 or p90")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// Run solves.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	policy, err := solve.ParsePolicy(opts.Policy)
	if err != nil {
		return cmdutil.Usagef("--policy: %v", err)
	}
	if !(opts.RestartCost >= 0) || math.IsInf(opts.RestartCost, 0) {
		return cmdutil.Usagef("--restart-cost %v: give a number of seconds >= 0", opts.RestartCost)
	}
	if !(opts.TetrisSRTF >= 0 && opts.TetrisSRTF <= 1) {
		return cmdutil.Usagef("--tetris-srtf %v: give a weight in [0, 1]", opts.TetrisSRTF)
	}
	if opts.BaselineCap < 1 {
		return cmdutil.Usagef("--baseline-cap %d: give at least 1", opts.BaselineCap)
	}
	capacity, err := solve.ParseCapacity(opts.Capacity)
	if err != nil {
		return cmdutil.Usagef("--capacity: %v", err)
	}
	switch opts.Quantile {
	case "p10", "p50", "p90":
	default:
		return cmdutil.Usagef("--remaining %q: use p10, p50 or p90", opts.Quantile)
	}
	if opts.Cluster == "" {
		return cmdutil.Usagef("--cluster FILE is required: the cluster's nodes and capacities")
	}
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
	var thresholds []float64
	for _, h := range opts.TiresiasHours {
		thresholds = append(thresholds, h*3600)
	}
	if !slices.IsSorted(thresholds) || slices.ContainsFunc(thresholds, func(x float64) bool { return !(x > 0) || math.IsInf(x, 0) }) {
		return cmdutil.Usagef("--tiresias-thresholds %v: ascending numbers of GPU-hours > 0", opts.TiresiasHours)
	}
	res, err := solve.Solve(prob, solve.Options{Policy: policy, RestartCost: opts.RestartCost, TetrisSRTFWeight: opts.TetrisSRTF, BaselineCap: opts.BaselineCap, Capacity: capacity,
		TiresiasThresholds: thresholds})
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
