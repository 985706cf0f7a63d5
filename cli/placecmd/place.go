// Package placecmd implements `optimus place`: put the tasks of an
// allocation onto the cluster's nodes, and `optimus place ps-blocks`:
// spread a model's parameter blocks over its parameter servers.
package placecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
)

// Options are place's inputs.
type Options struct {
	IO      *iostreams.IOStreams
	Input   string
	Cluster string
	Current string
	// Place are the policy and its knobs (cmdutil.BindPlaceFlags).
	Place  place.Options
	Output cmdutil.OutputOptions
}

// NewCmd returns `optimus place` with its ps-blocks subcommand.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Place: place.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "place --cluster FILE [-i FILE] [-o FILE]",
		Short: "Place every job's tasks on nodes",
		Long: `Place reads an allocation (optimus solve's output) and the cluster's nodes, and puts
every running job's parameter servers (PS) and workers on nodes, within each node's
capacity of every resource.

Policies (--policy):
` + cmdutil.DescribeChoices(cmdutil.PlacePolicies(), 90) + `

With --current (the plan now running), the tasks of jobs whose allocation did not change
stay where they are. A job that gets at least 1 PS and 1 worker placed runs, with fewer
tasks than allocated if need be; otherwise it waits. Both cases are explained in reason.

The output is the plan: one row per task (job, role, index, node, what it uses of each
resource), per-job columns (tasks placed, servers used, cross-server traffic share), and
one row with a null node for each job that waits (optimus schema plan).`,
		Example: `  optimus place --cluster cluster.parquet -i allocation.parquet -o plan.parquet
  optimus solve --cluster c.parquet -i p.parquet | optimus place --cluster c.parquet --current plan.parquet -o plan.parquet
  optimus place ps-blocks --model vgg-16 --ps 4 --compare`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "allocation")
	cmd.Flags().StringVar(&opts.Cluster, "cluster", "", "read the cluster's nodes and capacities from `FILE` (required)")
	cmd.Flags().StringVar(&opts.Current, "current", "", "read the plan running now from `FILE`: tasks of jobs whose allocation did not change stay on their nodes")
	cmd.Flags().StringVar((*string)(&opts.Place.Policy), "policy", string(opts.Place.Policy), "placement `POLICY`: "+place.PolicyNames(", "))
	cmdutil.BindPlaceFlags(cmd.Flags(), &opts.Place)
	opts.Output.AddOutputFlags(cmd)
	cmd.AddCommand(NewCmdBlocks(ios, nil))
	return cmd
}

// Run places.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if err := opts.Place.Validate(); err != nil {
		return cmdutil.Usagef("%v", err)
	}
	if opts.Cluster == "" {
		return cmdutil.Usagef("--cluster FILE is required: the cluster's nodes and capacities")
	}
	// The heap grows to several tens of times the inputs, all fresh
	// pages: fault them in huge pages where the system allows.
	table.PrepareHeapFor(opts.Input, opts.Cluster, opts.Current)
	// The side files once the main input has ended when it is a pipe (the
	// stage before writes them before it ends its output); beside it when
	// it is a file.
	alloc, sides, err := cmdutil.ReadInputAndSides(opts.IO, opts.Input, schema.Allocation,
		cmdutil.Side{Flag: "cluster", Path: opts.Cluster, Want: schema.Cluster},
		cmdutil.Side{Flag: "current", Path: opts.Current, Want: schema.Plan, Optional: true})
	if err != nil {
		return err
	}
	cluster, current := sides[0], sides[1]
	c, err := adapt.Cluster(cluster)
	if err != nil {
		return err
	}
	prob, err := adapt.PlaceProblem(alloc, c, current)
	if err != nil {
		return err
	}
	res, err := place.Place(prob, opts.Place)
	if err != nil {
		return err
	}
	out, err := adapt.PlanTable(prob, res)
	if err != nil {
		return err
	}
	cmdutil.Summaryf(opts.IO, "%s", Summary(prob, res))
	return opts.Output.Write(opts.IO, out)
}

// Summary is one line describing a placement, for standard error.
func Summary(prob *place.Problem, res *place.Result) string {
	var running, waiting, done, even, fallback, solved, reduced, keptJobs, tasks, keptTasks int
	used, nodesUsed := make([]bool, len(prob.Nodes)), 0
	crossSum := 0.0
	for j, jp := range res.Jobs {
		switch jp.Status {
		case place.Running:
			running++
			crossSum += jp.CrossTraffic
			switch jp.Method {
			case place.MethodEven:
				even++
			case place.MethodFallback:
				fallback++
			case place.MethodSolve:
				solved++
			case place.MethodKept:
				keptJobs++
			}
			if jp.PS < prob.Jobs[j].PS || jp.Workers < prob.Jobs[j].Workers {
				reduced++
			}
		case place.Waiting:
			waiting++
		case place.Done:
			done++
		}
	}
	for _, t := range res.Tasks {
		tasks++
		if !used[t.Node] {
			used[t.Node] = true
			nodesUsed++
		}
		if t.Kept {
			keptTasks++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "place (%s): %d jobs: %d running (%d even split, %d fallback, %d where solve fitted them, %d kept in place, %d reduced), %d waiting, %d done; %d tasks on %d of %d nodes (%d kept)",
		res.Policy, len(res.Jobs), running, even, fallback, solved, keptJobs, reduced, waiting, done, tasks, nodesUsed, len(prob.Nodes), keptTasks)
	if running > 0 {
		fmt.Fprintf(&b, "; mean cross-server traffic share %.3f", crossSum/float64(running))
	}
	return b.String()
}
