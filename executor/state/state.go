// Package state is the snapshot source of the executors that cannot read
// the cluster (print, exec): `optimus snapshot state` reads the state file
// apply --state records (the plan running now) and the user's cluster
// table back into the tables a round starts from, as snapshot kubernetes
// does from a cluster, so the jobs table's ps and workers say what runs.
package state

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

func init() {
	executor.RegisterSource(&executor.Source{
		Name:      "state",
		FileFlags: []string{"state", "cluster"},
		Short:     "Read apply's state file (print, exec) into cluster, plan and jobs tables",
		Long: `Snapshot reads the state file optimus apply --state records for the print and exec
executors (optimus init writes the first, where nothing runs) and the cluster table
--cluster names, and writes into DIR:

  cluster.parquet  the nodes of --cluster with their gpu, cpu, memory_gb and other
                   resource columns.
  plan.parquet     the plan running now, as the last apply recorded it: a job whose
                   change was done runs its new tasks, one whose change failed what it
                   ran before. Give it to place --current and apply --current (or give
                   the state file itself to apply --state).
  jobs.parquet     with --jobs: the user's jobs table with ps and workers set to what
                   runs (0 for a job that runs nothing). Running jobs missing from the
                   table are named on standard error.`,
		Example:   `  optimus snapshot state --state state.parquet --cluster cluster.parquet --jobs jobs.parquet -o snap`,
		NewConfig: func() executor.SourceConfig { return &Config{} },
	})
}

// Config is the state source's configuration.
type Config struct {
	State, Cluster string
}

// AddFlags defines --state and --cluster.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.State, "state", "", "the state `FILE` apply --state records (required; optimus init writes the first)")
	fs.StringVar(&c.Cluster, "cluster", "", "the cluster table `FILE`: the nodes and their capacities (required)")
}

// Read reads the cluster table's nodes and the state's tasks.
func (c *Config) Read(ctx context.Context) (*executor.Snapshot, error) {
	if c.State == "" || c.Cluster == "" {
		return nil, executor.Usagef("--state FILE and --cluster FILE are required: what runs, and the nodes")
	}
	if _, err := os.Stat(c.State); errors.Is(err, os.ErrNotExist) {
		return nil, executor.Usagef("--state %s does not exist: `optimus init %s` writes the first state (nothing runs)", c.State, c.State)
	}
	st, err := table.ReadFile(c.State, schema.Plan)
	if err != nil {
		return nil, err
	}
	tasks, err := adapt.ReadCurrent(st)
	if err != nil {
		return nil, err
	}
	cl, err := table.ReadFile(c.Cluster, schema.Cluster)
	if err != nil {
		return nil, err
	}
	capacity := adapt.ReadCapacity(cl)
	nodes := make([]executor.Node, 0, len(capacity))
	for _, name := range cl.Strings("node") {
		nodes = append(nodes, executor.Node{Name: name, Capacity: capacity[name]})
	}
	return &executor.Snapshot{Nodes: nodes, Tasks: tasks, Where: c.State}, nil
}
