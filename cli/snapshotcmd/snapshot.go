// Package snapshotcmd implements `optimus snapshot kubernetes`: read a
// cluster's nodes and the optimus-managed pods back into the tables the
// pipeline starts from (cluster, the current plan, the jobs' running ps and
// workers), so a cron job runs snapshot | fit | predict | solve | place
// --current | apply.
package snapshotcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// Options are snapshot kubernetes' inputs.
type Options struct {
	IO         *iostreams.IOStreams
	Kubeconfig string
	Context    string
	Namespace  string
	Jobs       string // the user's jobs table; "": no jobs table is written
	OutDir     string
	Format     string // extension of the files written: parquet, arrow, arrows or csv
	Timeout    time.Duration
}

// NewCmd returns `optimus snapshot` with its kubernetes subcommand.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Read a cluster's nodes and running tasks into tables",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdKubernetes(ios, nil))
	return cmd
}

// NewCmdKubernetes returns `optimus snapshot kubernetes`.
func NewCmdKubernetes(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "kubernetes -o DIR [--jobs FILE]",
		Short: "Read a Kubernetes cluster into cluster, plan and jobs tables",
		Long: `Snapshot reads a Kubernetes cluster (--kubeconfig, the KUBECONFIG variable, or the
in-cluster service account) and writes into DIR:

  cluster.parquet  one row per node that may take tasks, with its allocatable gpu
                   (nvidia.com/gpu), cpu (cores) and memory_gb (GiB), and the resources its
                   optimus.dev/capacity annotation declares. Cordoned and NotReady nodes are
                   left out, and said so on standard error.
  plan.parquet     the plan running now: one row per optimus-managed pod (label
                   app.kubernetes.io/managed-by=optimus) of the namespace, read back from its
                   labels and its optimus.dev/resources annotation. Give it to
                   place --current and apply.
  jobs.parquet     with --jobs: the user's jobs table with ps and workers set to what runs
                   now (0 for a job with no pod). A job is matched by name: the pods' label
                   optimus.dev/job equals the jobs table's job column. Running jobs missing
                   from the table are named on standard error.

The jobs' loss and speed tables are the user's own; they are matched by the same job name.`,
		Example: `  optimus snapshot kubernetes --jobs jobs.parquet -o snap
  optimus snapshot kubernetes --namespace training -o snap`,
		Args: cobra.NoArgs,
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
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig `FILE` (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	f.StringVar(&opts.Context, "context", "", "kubeconfig `CONTEXT` (default: its current context)")
	f.StringVarP(&opts.Namespace, "namespace", "n", "", "`NAMESPACE` of optimus' pods (default: the context's namespace, else default)")
	f.DurationVar(&opts.Timeout, "timeout", time.Minute, "give up on the API server after `DURATION`")
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
	ext, ok := extensions[opts.Format]
	if !ok {
		return cmdutil.Usagef("--format %q: use parquet, arrow, arrows or csv", opts.Format)
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
	x, err := kubernetes.New(ctx, kubernetes.Options{Kubeconfig: opts.Kubeconfig, Context: opts.Context, Namespace: opts.Namespace})
	if err != nil {
		return err
	}
	nodes, err := x.Nodes(ctx)
	if err != nil {
		return err
	}
	tasks, err := x.Current(ctx)
	if err != nil {
		return err
	}
	cluster, resources, err := ClusterTable(nodes, func(name, why string) {
		cmdutil.Warnf(opts.IO, "snapshot: node %s left out of the cluster table: %s", name, why)
	})
	if err != nil {
		return err
	}
	plan, err := PlanTable(tasks, resources)
	if err != nil {
		return err
	}
	out := map[string]*table.Table{"cluster": cluster, "plan": plan}
	if jobs != nil {
		if out["jobs"], err = JobsTable(jobs, tasks, func(job string, n int) {
			cmdutil.Warnf(opts.IO, "snapshot: job %s runs %d tasks but is not in %s: left out of jobs%s", job, n, opts.Jobs, ext)
		}); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"cluster", "plan", "jobs"} {
		if t := out[name]; t != nil {
			if err := table.WriteFile(filepath.Join(opts.OutDir, name+ext), cmdutil.Stamp(t)); err != nil {
				return err
			}
		}
	}
	jobsRunning := map[string]bool{}
	for _, t := range tasks {
		jobsRunning[t.Job] = true
	}
	cmdutil.Summaryf(opts.IO, "snapshot: %d nodes, %d tasks of %d jobs in namespace %s -> %s", cluster.NumRows(), len(tasks), len(jobsRunning), x.Namespace(), opts.OutDir)
	return nil
}

// ClusterTable is the cluster table of the nodes that may take tasks; left
// is told about the others. Resource columns: gpu, cpu, memory_gb, then
// those the nodes' annotations declare, sorted.
func ClusterTable(nodes []kubernetes.Node, left func(name, why string)) (*table.Table, []string, error) {
	var usable []kubernetes.Node
	extra := map[string]bool{}
	for _, n := range nodes {
		if n.Unusable != "" {
			left(n.Name, n.Unusable)
			continue
		}
		usable = append(usable, n)
		for r := range n.Capacity {
			extra[r] = true
		}
	}
	resources := []string{"gpu", "cpu", "memory_gb"}
	for _, r := range resources {
		delete(extra, r)
	}
	var more []string
	for r := range extra {
		more = append(more, r)
	}
	sort.Strings(more)
	resources = append(resources, more...)
	names := make([]string, len(usable))
	for i, n := range usable {
		names[i] = n.Name
	}
	t := table.New(schema.Cluster, len(usable))
	t.SetStrings("node", names, nil)
	for _, r := range resources {
		col := make([]float64, len(usable))
		for i, n := range usable {
			col[i] = n.Capacity[r]
		}
		t.SetFloat64s(r, col, nil)
	}
	t.Source = "snapshot"
	out, err := table.Conform(t)
	return out, resources, err
}

// PlanTable is the plan running now: one row per task, in job, role and
// index order, each job marked running with its counts, servers, evenness
// and cross-server traffic share (as optimus place computes them), and
// every resource column of the cluster and of the tasks.
func PlanTable(tasks []executor.Task, resources []string) (*table.Table, error) {
	cols := append([]string(nil), resources...)
	seen := map[string]bool{}
	for _, r := range cols {
		seen[r] = true
	}
	var more []string
	for _, t := range tasks {
		for r := range t.Resources {
			if !seen[r] {
				seen[r] = true
				more = append(more, r)
			}
		}
	}
	sort.Strings(more)
	cols = append(cols, more...)

	type jobStats struct {
		ps, workers int
		perNode     map[string][2]int
	}
	stats := map[string]*jobStats{}
	for _, t := range tasks {
		s := stats[t.Job]
		if s == nil {
			s = &jobStats{perNode: map[string][2]int{}}
			stats[t.Job] = s
		}
		c := s.perNode[t.Node]
		if t.Role == executor.RolePS {
			s.ps++
			c[0]++
		} else {
			s.workers++
			c[1]++
		}
		s.perNode[t.Node] = c
	}
	n := len(tasks)
	job, role, node, status := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	index, jps, jw, servers := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	kept, even := make([]bool, n), make([]bool, n)
	cross := make([]float64, n)
	use := make([][]float64, len(cols))
	for i := range use {
		use[i] = make([]float64, n)
	}
	for i, t := range tasks {
		s := stats[t.Job]
		job[i], role[i], node[i], status[i], index[i] = t.Job, t.Role, t.Node, "running", int64(t.Index)
		jps[i], jw[i], servers[i] = int64(s.ps), int64(s.workers), int64(len(s.perNode))
		even[i], cross[i] = evenAndCross(s.ps, s.workers, s.perNode)
		for r, name := range cols {
			use[r][i] = t.Resources[name]
		}
	}
	out := table.New(schema.Plan, n)
	out.SetStrings("job", job, nil)
	out.SetStrings("role", role, nil)
	out.SetInt64s("index", index, nil)
	out.SetStrings("node", node, nil)
	out.SetBools("kept", kept, nil)
	out.SetStrings("status", status, nil)
	out.SetStrings("reason", make([]string, n), make([]bool, n))
	out.SetInt64s("job_ps", jps, nil)
	out.SetInt64s("job_workers", jw, nil)
	out.SetInt64s("job_servers", servers, nil)
	out.SetStrings("job_method", make([]string, n), make([]bool, n))
	out.SetBools("job_even", even, nil)
	out.SetFloat64sNaNAsNull("job_cross_traffic", cross)
	for r, name := range cols {
		out.SetFloat64s(name, use[r], nil)
	}
	out.Source = "snapshot"
	return table.Conform(out)
}

// evenAndCross: the tasks lie evenly when every node of the job has the
// same number of PS and of workers, up to one; the cross-server share is
// 1 - sum over nodes of ps_n x workers_n / (ps x workers), for an
// all-reduce job (no PS) the share of its worker pairs on different
// nodes, 1 - sum over nodes of w_n (w_n - 1) / (w (w - 1)), as place
// computes them.
func evenAndCross(ps, workers int, perNode map[string][2]int) (bool, float64) {
	minP, maxP, minW, maxW := ps, 0, workers, 0
	local := 0
	for _, c := range perNode {
		minP, maxP = min(minP, c[0]), max(maxP, c[0])
		minW, maxW = min(minW, c[1]), max(maxW, c[1])
		local += c[0] * c[1]
	}
	cross := 0.0
	switch {
	case ps > 0 && workers > 0:
		cross = 1 - float64(local)/float64(ps*workers)
	case ps == 0 && workers > 1:
		same := 0
		for _, c := range perNode {
			same += c[1] * (c[1] - 1)
		}
		cross = 1 - float64(same)/float64(workers*(workers-1))
	}
	return maxP-minP <= 1 && maxW-minW <= 1, cross
}

// JobsTable is the user's jobs table with ps and workers set to what runs
// now; unknown is told about running jobs the table lacks.
func JobsTable(jobs *table.Table, tasks []executor.Task, unknown func(job string, tasks int)) (*table.Table, error) {
	ps, workers := map[string]int64{}, map[string]int64{}
	count := map[string]int{}
	for _, t := range tasks {
		count[t.Job]++
		if t.Role == executor.RolePS {
			ps[t.Job]++
		} else {
			workers[t.Job]++
		}
	}
	names := jobs.Strings("job")
	known := map[string]bool{}
	p, w := make([]int64, len(names)), make([]int64, len(names))
	for i, name := range names {
		known[name] = true
		p[i], w[i] = ps[name], workers[name]
	}
	var missing []string
	for job := range count {
		if !known[job] {
			missing = append(missing, job)
		}
	}
	sort.Strings(missing)
	for _, job := range missing {
		unknown(job, count[job])
	}
	jobs.SetInt64s("ps", p, nil)
	jobs.SetInt64s("workers", w, nil)
	out, err := table.Conform(jobs)
	if err != nil {
		return nil, fmt.Errorf("jobs table with the running ps and workers: %w", err)
	}
	return out, nil
}
