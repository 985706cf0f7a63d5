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
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/place"
)

// Options are place's inputs.
type Options struct {
	IO         *iostreams.IOStreams
	Input      string
	Cluster    string
	Current    string
	Policy     string
	Candidates int
	Verbose    bool
	Output     cmdutil.OutputOptions
}

// NewCmd returns `optimus place` with its ps-blocks subcommand; runF
// replaces Run in tests.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "place --cluster FILE [-i FILE] [-o FILE]",
		Short: "Place every job's tasks on nodes",
		Long: `Place reads an allocation (optimus solve's output) and the cluster's nodes, and puts
every running job's parameter servers (PS) and workers on nodes, within each node's
capacity of every resource.

Policies (--policy):
  optimus  jobs smallest first, each on the fewest nodes that hold the same number of PS
           and of workers each (the paper's theorem: least cross-server traffic); when no
           such split fits, tasks one by one, first fit; when that leaves a job waiting or
           short, the jobs that failed go where solve's node-level check fitted them
           (alloc_nodes, written by optimus solve --capacity nodes, the default)
  spread   each task on the node with the most free capacity (Kubernetes' default)
  pack     each task on the first node, in cluster order, where it fits

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
	cmd.Flags().StringVar(&opts.Policy, "policy", string(place.Optimus), "placement `POLICY`: optimus, spread or pack")
	cmd.Flags().IntVar(&opts.Candidates, "candidates", place.DefaultCandidates,
		"`N` nodes with the most free capacity considered per job before a first-fit search over all (optimus, spread)")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print a summary of the plan on standard error (the default when it is a terminal)")
	opts.Output.AddOutputFlags(cmd)
	cmd.AddCommand(NewCmdBlocks(ios, nil))
	return cmd
}

// Run places.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	policy, err := place.ParsePolicy(opts.Policy)
	if err != nil {
		return cmdutil.Usagef("--policy: %v", err)
	}
	if opts.Candidates < 1 {
		return cmdutil.Usagef("--candidates %d: give at least 1", opts.Candidates)
	}
	if opts.Cluster == "" {
		return cmdutil.Usagef("--cluster FILE is required: the cluster's nodes and capacities")
	}
	// The main input first: in a pipe the stages before may write the side
	// inputs before they end their output.
	alloc, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.Allocation)
	if err != nil {
		return err
	}
	cluster, err := cmdutil.ReadSide("cluster", opts.Cluster, schema.Cluster)
	if err != nil {
		return err
	}
	var current *table.Table
	if opts.Current != "" {
		if current, err = cmdutil.ReadSide("current", opts.Current, schema.Plan); err != nil {
			return err
		}
	}
	prob, err := BuildProblem(alloc, cluster, current)
	if err != nil {
		return err
	}
	res, err := place.Place(prob, place.Options{Policy: policy, Candidates: opts.Candidates})
	if err != nil {
		return err
	}
	out, err := Plan(prob, res)
	if err != nil {
		return err
	}
	if opts.Verbose || opts.IO.IsStderrTTY() {
		cmdutil.Logf(opts.IO, "%s", Summary(prob, res))
	}
	return opts.Output.Write(opts.IO, out)
}

// BuildProblem turns an allocation table, the cluster and (optionally) the
// current plan into the placer's Problem. Whole-table problems are errors
// naming the file, column and row (exit 2).
func BuildProblem(alloc, cluster, current *table.Table) (*place.Problem, error) {
	resources, caps, err := solvecmd.NodeCapacities(cluster)
	if err != nil {
		return nil, err
	}
	for _, r := range resources {
		if _, clash := schema.Plan.Column(r); clash {
			return nil, &table.Error{Source: cluster.Source, Column: r,
				Msg: "a resource cannot be called like a column of the plan table; rename it"}
		}
	}
	workerDemand, err := solvecmd.Demands(alloc, "worker_", resources, cluster.Source)
	if err != nil {
		return nil, err
	}
	psDemand, err := solvecmd.Demands(alloc, "ps_", resources, cluster.Source)
	if err != nil {
		return nil, err
	}
	nodeNames := cluster.Strings("node")
	nodeIndex := make(map[string]int, len(nodeNames))
	for i, n := range nodeNames {
		nodeIndex[n] = i
	}
	names := alloc.Strings("job")
	status, reason := alloc.Strings("status"), alloc.Strings("reason")
	packing, packingOK := alloc.Strings("alloc_nodes"), alloc.Valid("alloc_nodes")
	aps, aw := alloc.Int64s("alloc_ps"), alloc.Int64s("alloc_workers")
	foreign := solvecmd.ForeignDemands(alloc, resources)
	prob := &place.Problem{Resources: resources, Nodes: nodeNames, Capacity: caps, Jobs: make([]place.Job, len(names))}
	jobIndex := make(map[string]int, len(names))
	for i, name := range names {
		jobIndex[name] = i
		j := place.Job{Name: name, PS: int(aps[i]), Workers: int(aw[i]), Status: place.Status(status[i]),
			PSDemand: make([]float64, len(resources)), WorkerDemand: make([]float64, len(resources))}
		if j.Status != place.Running {
			j.Reason = reason[i] // why solve left it waiting; a running job's reason is about placement
		}
		for r := range resources {
			j.PSDemand[r], j.WorkerDemand[r] = psDemand[r][i], workerDemand[r][i]
		}
		if j.Status == place.Running {
			switch {
			case j.PS < 1 || j.Workers < 1:
				return nil, &table.Error{Source: alloc.Source, Row: i + 1,
					Msg: fmt.Sprintf("job %q is running with %d PS and %d workers: a running job needs at least 1 of each", name, j.PS, j.Workers)}
			case foreign[i] != "":
				j.Status, j.Reason, j.PS, j.Workers = place.Waiting, foreign[i], 0, 0
			}
		}
		if j.Status == place.Running && packingOK[i] {
			slots, err := solvecmd.ParsePacking(packing[i])
			if err != nil {
				return nil, &table.Error{Source: alloc.Source, Column: "alloc_nodes", Row: i + 1, Msg: err.Error()}
			}
			// A node the cluster no longer has makes the layout stale: it
			// is dropped (place.Job.Packing also drops one whose counts no
			// longer add up to the allocation).
			for _, sl := range slots {
				n, ok := nodeIndex[sl.Node]
				if !ok {
					j.Packing = nil
					break
				}
				j.Packing = append(j.Packing, place.Slot{Node: n, PS: sl.PS, Workers: sl.Workers})
			}
		}
		prob.Jobs[i] = j
	}
	if current != nil {
		if err := addCurrent(prob, current, jobIndex, nodeIndex); err != nil {
			return nil, err
		}
	}
	return prob, nil
}

// addCurrent attaches the current plan's tasks to their jobs. Rows of jobs
// no longer in the allocation, and rows without a task (waiting jobs), are
// ignored; a task listed twice is an error.
func addCurrent(prob *place.Problem, current *table.Table, jobIndex, nodeIndex map[string]int) error {
	jobs, roles, nodes := current.Strings("job"), current.Strings("role"), current.Strings("node")
	idx, idxOK, roleOK, nodeOK := current.Int64s("index"), current.Valid("index"), current.Valid("role"), current.Valid("node")
	type key struct {
		job, role string
		index     int64
	}
	first := map[key]int{}
	for r := range jobs {
		if !roleOK[r] || !nodeOK[r] {
			continue
		}
		if !idxOK[r] {
			return &table.Error{Source: current.Source, Column: "index", Row: r + 1, Msg: "no value: a task row needs its index"}
		}
		k := key{jobs[r], roles[r], idx[r]}
		if f, dup := first[k]; dup {
			return &table.Error{Source: current.Source, Column: "index", Row: r + 1,
				Msg: fmt.Sprintf("task %s %s %d appears twice (first at row %d)", jobs[r], roles[r], idx[r], f+1)}
		}
		first[k] = r
		j, ok := jobIndex[jobs[r]]
		if !ok {
			continue
		}
		node, ok := nodeIndex[nodes[r]]
		if !ok {
			node = -1
		}
		role := place.Worker
		if roles[r] == "ps" {
			role = place.PS
		}
		prob.Jobs[j].Current = append(prob.Jobs[j].Current, place.Task{Role: role, Index: int(idx[r]), Node: node})
	}
	return nil
}

// Plan writes a placement as the plan table.
func Plan(prob *place.Problem, res *place.Result) (*table.Table, error) {
	var (
		job, role, node, status, reason []string
		method                          []string
		methodOK                        []bool
		roleOK, nodeOK, reasonOK        []bool
		index                           []int64
		indexOK, kept, even             []bool
		jps, jw, servers                []int64
		cross                           []float64
		use                             = make([][]float64, len(prob.Resources))
	)
	row := func(j int, jp *place.JobPlacement) {
		job = append(job, prob.Jobs[j].Name)
		status = append(status, string(jp.Status))
		reason, reasonOK = append(reason, jp.Reason), append(reasonOK, jp.Reason != "")
		jps, jw, servers = append(jps, int64(jp.PS)), append(jw, int64(jp.Workers)), append(servers, int64(jp.Servers))
		even, cross = append(even, jp.Even), append(cross, jp.CrossTraffic)
		method, methodOK = append(method, jp.Method), append(methodOK, jp.Method != "")
	}
	t := 0
	for j := range prob.Jobs {
		jp := &res.Jobs[j]
		if t >= len(res.Tasks) || res.Tasks[t].Job != j {
			row(j, jp)
			role, roleOK = append(role, ""), append(roleOK, false)
			index, indexOK = append(index, 0), append(indexOK, false)
			node, nodeOK = append(node, ""), append(nodeOK, false)
			kept = append(kept, false)
			for r := range use {
				use[r] = append(use[r], 0)
			}
			continue
		}
		for ; t < len(res.Tasks) && res.Tasks[t].Job == j; t++ {
			task := res.Tasks[t]
			row(j, jp)
			role, roleOK = append(role, task.Role.String()), append(roleOK, true)
			index, indexOK = append(index, int64(task.Index)), append(indexOK, true)
			node, nodeOK = append(node, prob.Nodes[task.Node]), append(nodeOK, true)
			kept = append(kept, task.Kept)
			d := prob.Jobs[j].WorkerDemand
			if task.Role == place.PS {
				d = prob.Jobs[j].PSDemand
			}
			for r := range use {
				use[r] = append(use[r], d[r])
			}
		}
	}
	out := table.New(schema.Plan, len(job))
	out.SetStrings("job", job, nil)
	out.SetStrings("role", role, roleOK)
	out.SetInt64s("index", index, indexOK)
	out.SetStrings("node", node, nodeOK)
	out.SetBools("kept", kept, nil)
	out.SetStrings("status", status, nil)
	out.SetStrings("reason", reason, reasonOK)
	out.SetInt64s("job_ps", jps, nil)
	out.SetInt64s("job_workers", jw, nil)
	out.SetInt64s("job_servers", servers, nil)
	out.SetStrings("job_method", method, methodOK)
	out.SetBools("job_even", even, nil)
	out.SetFloat64sNaNAsNull("job_cross_traffic", cross)
	for r, name := range prob.Resources {
		out.SetFloat64s(name, use[r], nil)
	}
	return table.Conform(out)
}

// Summary is one line describing a placement, for standard error.
func Summary(prob *place.Problem, res *place.Result) string {
	var running, waiting, done, even, fallback, solved, reduced, keptJobs, tasks, keptTasks int
	nodes := map[int]bool{}
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
		nodes[t.Node] = true
		if t.Kept {
			keptTasks++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "place (%s): %d jobs: %d running (%d even split, %d fallback, %d where solve fitted them, %d kept in place, %d reduced), %d waiting, %d done; %d tasks on %d of %d nodes (%d kept)",
		res.Policy, len(res.Jobs), running, even, fallback, solved, keptJobs, reduced, waiting, done, tasks, len(nodes), len(prob.Nodes), keptTasks)
	if running > 0 {
		fmt.Fprintf(&b, "; mean cross-server traffic share %.3f", crossSum/float64(running))
	}
	return b.String()
}
