package executor

import (
	"context"
	"github.com/optimus-sched/optimus/registry"

	"github.com/spf13/pflag"
)

// Source is one kind of cluster optimus snapshot reads back into the tables
// the pipeline starts from (the cluster, the plan running now, the jobs'
// running ps and workers). Each source registers itself from init
// (RegisterSource), usually beside the executor of the same cluster; the
// snapshot command makes one subcommand per source, with its help and
// flags.
type Source struct {
	Name    string
	Short   string // one line, for the subcommand's help
	Long    string // what it reads and how, for the subcommand's help
	Example string
	// NewConfig returns the source's configuration with its defaults;
	// snapshot binds its flags and reads the cluster through it.
	NewConfig func() SourceConfig
	// FileFlags are those of its flags that take a file's path: the shell
	// completes their values with files.
	FileFlags []string
}

// SourceConfig is one source's configuration, as its flags set it.
type SourceConfig interface {
	AddFlags(fs *pflag.FlagSet)
	// Read reads the cluster's nodes and the tasks optimus runs there.
	Read(ctx context.Context) (*Snapshot, error)
}

// Snapshot is what runs on a cluster.
type Snapshot struct {
	Nodes []Node // by name
	Tasks []Task // by job, role and index
	// Where says what was read, for messages ("namespace training").
	Where string
	// Warnings say what the source left out or repaired, one sentence
	// each; snapshot prints them to standard error.
	Warnings []string
}

// Node is a node as optimus sees it.
type Node struct {
	Name string
	// Capacity is the node's allocatable in the plan's units: gpu, cpu,
	// memory_gb and the other resources the cluster declares.
	Capacity map[string]float64
	// Unusable says why no task may be placed there ("" when it may):
	// cordoned, or not Ready.
	Unusable string
}

var sources = registry.New[*Source]("snapshot source")

// RegisterSource adds a snapshot source; each source's file calls it from
// init.
func RegisterSource(s *Source) {
	if s.Name == "" || s.Short == "" || s.NewConfig == nil {
		panic("executor: snapshot source " + s.Name + " needs a name, Short and NewConfig")
	}
	fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
	s.NewConfig().AddFlags(fs)
	mustDefine("snapshot source "+s.Name, fs, s.FileFlags)
	sources.Add(s.Name, 0, s)
}

// Sources lists the registered snapshot sources by name.
func Sources() []*Source { return sources.List() }
