// Package solvecmd implements `optimus solve`: decide every job's parameter
// servers and workers from the predictions and the cluster's capacity.
package solvecmd

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
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
	Capacity    string // nodes or aggregate
	Quantile    string // which remaining-steps column is Q: p10, p50 or p90
	Verbose     bool
	Output      cmdutil.OutputOptions
}

// NewCmd returns the cobra command; runF replaces Run in tests.
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
	cmd.Flags().StringVar(&opts.Policy, "policy", string(solve.Optimus), "allocation `POLICY`: optimus, drf, tetris or fifo")
	cmd.Flags().Float64Var(&opts.RestartCost, "restart-cost", def.RestartCost,
		"what a restart (checkpoint, stop, restore) costs a running job, in `SECONDS`; its allocation changes only when the predicted gain beats it (0: re-solve from scratch)")
	cmd.Flags().Float64Var(&opts.TetrisSRTF, "tetris-srtf", def.TetrisSRTFWeight,
		"tetris: `WEIGHT` in [0,1] of the shortest-remaining-time bias against the packing score")
	cmd.Flags().IntVar(&opts.BaselineCap, "baseline-cap", def.BaselineCap,
		"drf, tetris: most PS and most workers (`N` each) for a job without max_ps/max_workers")
	cmd.Flags().StringVar(&opts.Capacity, "capacity", string(solve.NodeCapacity),
		"check allocations against the `CHECK`: nodes (every task fits on some node) or aggregate (the cluster's totals only, as the paper)")
	cmd.Flags().StringVar(&opts.Quantile, "remaining", "p50", "plan with this `QUANTILE` of the predicted remaining steps: p10, p50 or p90")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print a summary of the plan on standard error (the default when it is a terminal)")
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
	// The main input first: in a pipe such as generate | solve, the stage
	// before writes the cluster file before it ends its output.
	pred, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.Predictions)
	if err != nil {
		return err
	}
	cluster, err := cmdutil.ReadSide("cluster", opts.Cluster, schema.Cluster)
	if err != nil {
		return err
	}
	prob, err := BuildProblem(pred, cluster, opts.Quantile)
	if err != nil {
		return err
	}
	res, err := solve.Solve(prob, solve.Options{Policy: policy, RestartCost: opts.RestartCost, TetrisSRTFWeight: opts.TetrisSRTF, BaselineCap: opts.BaselineCap, Capacity: capacity})
	if err != nil {
		return err
	}
	out, err := Allocation(pred, res, cluster.Strings("node"))
	if err != nil {
		return err
	}
	if opts.Verbose || opts.IO.IsStderrTTY() {
		cmdutil.Logf(opts.IO, "%s", Summary(prob, res))
	}
	return opts.Output.Write(opts.IO, out)
}

// Resources lists the resource columns of a cluster table: every float
// column other than node, in table order.
func Resources(cluster *table.Table) []string {
	var names []string
	for i, name := range cluster.ColumnNames() {
		if _, declared := schema.Cluster.Column(name); declared {
			continue
		}
		if cluster.Field(i).Type.ID() == arrow.FLOAT64 {
			names = append(names, name)
		}
	}
	return names
}

// NodeCapacities returns the cluster's resources and each node's capacity
// of them, after checking that the cluster can hold anything: it has nodes
// and some capacity. The errors name the cluster's file and exit 2.
func NodeCapacities(cluster *table.Table) (resources []string, nodes [][]float64, err error) {
	resources = Resources(cluster)
	if cluster.NumRows() == 0 {
		return nil, nil, table.Errorf(cluster.Source, "no nodes: the cluster table is empty")
	}
	nodes = make([][]float64, cluster.NumRows())
	flat := make([]float64, cluster.NumRows()*len(resources))
	for i := range nodes {
		nodes[i] = flat[i*len(resources) : (i+1)*len(resources)]
	}
	total := 0.0
	for r, name := range resources {
		for i, c := range cluster.Float64s(name) {
			nodes[i][r] = c
			total += c
		}
	}
	if total == 0 {
		return nil, nil, table.Errorf(cluster.Source, "every node has zero capacity of every resource (%s): nothing can run",
			strings.Join(resources, ", "))
	}
	return resources, nodes, nil
}

// Demands reads, for each resource, the per-task demand column
// <prefix><resource> of a jobs (or predictions, allocation) table:
// demand[r][row]. A missing column is an error naming it (exit 2).
func Demands(jobs *table.Table, prefix string, resources []string, clusterSource string) (demand [][]float64, err error) {
	demand = make([][]float64, len(resources))
	for r, name := range resources {
		col := prefix + name
		if !jobs.Has(col) {
			return nil, &table.Error{Source: jobs.Source, Column: col,
				Msg: fmt.Sprintf("missing: the cluster (%s) has resource %q, so every job needs worker_%s and ps_%s demands", clusterSource, name, name, name)}
		}
		demand[r] = jobs.Float64s(col)
	}
	return demand, nil
}

// ForeignDemands explains, per job, any positive demand for a resource the
// cluster does not have ("" for none).
func ForeignDemands(jobs *table.Table, resources []string) []string {
	known := map[string]bool{}
	for _, r := range resources {
		known[r] = true
	}
	why := make([]string, jobs.NumRows())
	for _, col := range jobs.ColumnNames() {
		var res string
		switch {
		case strings.HasPrefix(col, "worker_"):
			res = strings.TrimPrefix(col, "worker_")
		case strings.HasPrefix(col, "ps_"):
			res = strings.TrimPrefix(col, "ps_")
		default:
			continue
		}
		if known[res] || jobs.Field(jobs.Index(col)).Type.ID() != arrow.FLOAT64 {
			continue
		}
		for i, v := range jobs.Float64s(col) {
			if v > 0 && why[i] == "" {
				why[i] = fmt.Sprintf("its tasks need %s (%s %g), which no node of the cluster has", res, col, v)
			}
		}
	}
	return why
}

// BuildProblem turns a predictions table and a cluster table into the
// solver's Problem. Whole-table problems (no nodes, no capacity, a demand
// column missing for a cluster resource, no job with a prediction) are
// errors naming the file and column; a problem of one job (no prediction,
// no speed model, a demand for a resource the cluster lacks) makes that job
// wait with the reason, naming its row.
func BuildProblem(pred, cluster *table.Table, quantile string) (*solve.Problem, error) {
	resources, nodes, err := NodeCapacities(cluster)
	if err != nil {
		return nil, err
	}
	workerDemand, err := Demands(pred, "worker_", resources, cluster.Source)
	if err != nil {
		return nil, err
	}
	psDemand, err := Demands(pred, "ps_", resources, cluster.Source)
	if err != nil {
		return nil, err
	}
	n := pred.NumRows()
	remCol := "remaining_steps_" + quantile
	remaining, remOK := pred.Float64s(remCol), pred.Valid(remCol)
	if n > 0 && !anyTrue(remOK) {
		return nil, &table.Error{Source: pred.Source, Column: remCol,
			Msg: "no job has a value: solve needs each job's predicted remaining steps, as optimus predict (or optimus datasets generate) writes them"}
	}
	var theta [5][]float64
	var thetaOK [5][]bool
	for k := range theta {
		col := fmt.Sprintf("speed_theta%d", k)
		theta[k], thetaOK[k] = pred.Float64s(col), pred.Valid(col)
	}
	names, modes := pred.Strings("job"), pred.Strings("mode")
	batch := pred.Int64s("global_batch")
	arrival, weight := pred.Float64s("arrival_s"), pred.Float64s("weight")
	curPS, curW := pred.Int64s("ps"), pred.Int64s("workers")
	maxPS, maxW := pred.Int64s("max_ps"), pred.Int64s("max_workers")
	maxPSOK, maxWOK := pred.Valid("max_ps"), pred.Valid("max_workers")
	foreign := ForeignDemands(pred, resources)

	prob := &solve.Problem{Resources: resources, Nodes: nodes, Jobs: make([]solve.Job, n)}
	for i := range n {
		j := solve.Job{
			Name: names[i], Arrival: arrival[i], Weight: weight[i], Remaining: remaining[i],
			Speed:  fit.SpeedModel{Mode: modes[i], GlobalBatch: float64(batch[i])},
			Worker: make([]float64, len(resources)), PS: make([]float64, len(resources)),
			CurPS: int(curPS[i]), CurWorkers: int(curW[i]),
		}
		if maxPSOK[i] {
			j.MaxPS = int(maxPS[i])
		}
		if maxWOK[i] {
			j.MaxWorkers = int(maxW[i])
		}
		for r := range resources {
			j.Worker[r], j.PS[r] = workerDemand[r][i], psDemand[r][i]
		}
		for k := range fit.NumTheta(modes[i]) {
			if !thetaOK[k][i] {
				j.Invalid = fmt.Sprintf("no speed model: speed_theta%d is null (%s row %d)", k, pred.Source, i+1)
				break
			}
			j.Speed.Theta[k] = theta[k][i]
		}
		switch {
		case !remOK[i]:
			j.Invalid = fmt.Sprintf("no prediction: %s is null (%s row %d)", remCol, pred.Source, i+1)
			j.Remaining = math.NaN()
		case remaining[i] == 0:
			j.Invalid = "" // done: needs nothing, whatever its models
		case foreign[i] != "":
			j.Invalid = foreign[i]
		}
		prob.Jobs[i] = j
	}
	return prob, nil
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// Allocation returns the predictions table with the decisions added: the
// allocation table. nodes names the cluster's nodes (for alloc_nodes).
func Allocation(pred *table.Table, res *solve.Result, nodes []string) (*table.Table, error) {
	out := pred.Take(identity(pred.NumRows()))
	out.Name, out.Version = schema.Allocation.Name, schema.Allocation.Version
	n := len(res.Decisions)
	policy := make([]string, n)
	ps, wk := make([]int64, n), make([]int64, n)
	speed, completion, gain, next, share, saves := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	changed := make([]bool, n)
	status, reason := make([]string, n), make([]string, n)
	reasonOK := make([]bool, n)
	for i, d := range res.Decisions {
		policy[i] = string(res.Policy)
		ps[i], wk[i] = int64(d.PS), int64(d.Workers)
		speed[i], completion[i], gain[i], next[i] = d.Speed, d.Completion, d.Gain, d.NextGain
		share[i], saves[i], changed[i] = d.DominantShare, d.ChangeSaves, d.Changed
		status[i], reason[i], reasonOK[i] = string(d.Status), d.Reason, d.Reason != ""
	}
	out.SetStrings("alloc_policy", policy, nil)
	out.SetInt64s("alloc_ps", ps, nil)
	out.SetInt64s("alloc_workers", wk, nil)
	out.SetFloat64sNaNAsNull("alloc_speed", speed)
	out.SetFloat64sNaNAsNull("alloc_completion_s", completion)
	out.SetFloat64sNaNAsNull("alloc_gain", gain)
	out.SetFloat64sNaNAsNull("alloc_next_gain", next)
	out.SetFloat64s("alloc_dominant_share", share, nil)
	out.SetBools("alloc_changed", changed, nil)
	out.SetFloat64sNaNAsNull("alloc_change_saves_s", saves)
	packing, packingOK := PackingColumn(res, nodes)
	out.SetStrings("alloc_nodes", packing, packingOK)
	out.SetStrings("status", status, nil)
	out.SetStrings("reason", reason, reasonOK)
	return table.Conform(out)
}

// PackingColumn writes, for every running job, where solve's node-level
// check fitted its tasks (Result.Packing) as a JSON array of {"node", "ps",
// "workers"} objects (the alloc_nodes column); null for the other jobs and
// when the plan has no packing (--capacity aggregate).
func PackingColumn(res *solve.Result, nodes []string) ([]string, []bool) {
	n := len(res.Decisions)
	out, ok := make([]string, n), make([]bool, n)
	if res.Packing == nil {
		return out, ok
	}
	quoted := make([][]byte, len(nodes)) // JSON strings, made once per node used
	var b []byte
	for j, d := range res.Decisions {
		if d.Status != solve.Running || len(res.Packing[j]) == 0 {
			continue
		}
		b = append(b[:0], '[')
		for k, s := range res.Packing[j] {
			if quoted[s.Node] == nil {
				quoted[s.Node], _ = json.Marshal(nodes[s.Node])
			}
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"node":`...)
			b = append(b, quoted[s.Node]...)
			b = append(b, `,"ps":`...)
			b = strconv.AppendInt(b, int64(s.PS), 10)
			b = append(b, `,"workers":`...)
			b = strconv.AppendInt(b, int64(s.Workers), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
		out[j], ok[j] = string(b), true
	}
	return out, ok
}

// ParsePacking reads an alloc_nodes value (see PackingColumn).
func ParsePacking(s string) ([]NodeCount, error) {
	if slots, ok := parsePackingFast(s); ok {
		return slots, nil
	}
	var slots []NodeCount
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&slots); err != nil {
		return nil, fmt.Errorf("not a JSON array of {\"node\", \"ps\", \"workers\"} objects: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the JSON array")
	}
	for _, sl := range slots {
		if sl.Node == "" || sl.PS < 0 || sl.Workers < 0 {
			return nil, fmt.Errorf("entry %+v: a node name and counts >= 0 are needed", sl)
		}
	}
	return slots, nil
}

// parsePackingFast reads alloc_nodes as PackingColumn writes it, without
// reflection (encoding/json takes longer than placing the tasks); ok is
// false for anything else (escapes in node names, other spacing or order,
// bad values), which ParsePacking then reads, or rejects, with
// encoding/json.
func parsePackingFast(s string) (slots []NodeCount, ok bool) {
	eat := func(prefix string) bool {
		if strings.HasPrefix(s, prefix) {
			s = s[len(prefix):]
			return true
		}
		return false
	}
	count := func() (int, bool) {
		n, i := 0, 0
		for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
			n = 10*n + int(s[i]-'0')
			i++
		}
		if i == 0 || i > 1 && s[0] == '0' {
			return 0, false
		}
		s = s[i:]
		return n, true
	}
	if !eat("[") {
		return nil, false
	}
	for k := 0; ; k++ {
		if eat("]") {
			return slots, k > 0 && s == ""
		}
		if k > 0 && !eat(",") {
			return nil, false
		}
		if !eat(`{"node":"`) {
			return nil, false
		}
		end := strings.IndexByte(s, '"')
		if end <= 0 {
			return nil, false
		}
		node := s[:end]
		for i := 0; i < len(node); i++ {
			if node[i] == '\\' || node[i] < 0x20 {
				return nil, false
			}
		}
		s = s[end+1:]
		var sl NodeCount
		var okP, okW bool
		if !eat(`,"ps":`) {
			return nil, false
		}
		sl.PS, okP = count()
		if !okP || !eat(`,"workers":`) {
			return nil, false
		}
		sl.Workers, okW = count()
		if !okW || !eat("}") {
			return nil, false
		}
		sl.Node = node
		slots = append(slots, sl)
	}
}

// NodeCount is one entry of alloc_nodes: how many PS and workers of a job
// go on a node.
type NodeCount struct {
	Node    string `json:"node"`
	PS      int    `json:"ps"`
	Workers int    `json:"workers"`
}

func identity(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// Summary is one line describing a plan, for standard error.
func Summary(prob *solve.Problem, res *solve.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "solve (%s, %s capacity): %d jobs: %d running, %d waiting, %d done; %d tasks; objective %.6g s",
		res.Policy, res.CapacityCheck, len(res.Decisions), res.Running, res.Waiting, res.Done, res.Tasks, res.Objective)
	if res.Restarts > 0 || res.RestartCost > 0 {
		fmt.Fprintf(&b, ", %d restarts (%.6g s)", res.Restarts, res.RestartCost)
	}
	b.WriteString("; used")
	for r, name := range prob.Resources {
		fmt.Fprintf(&b, " %s %.4g/%.4g", name, res.Used[r], res.Capacity[r])
	}
	return b.String()
}
