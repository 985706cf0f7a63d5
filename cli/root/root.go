// Package root assembles the optimus command tree and runs it.
package root

import (
	"math"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/cli/applycmd"
	"github.com/optimus-sched/optimus/cli/chartcmd"
	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/convertcmd"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/cli/evalcmd"
	"github.com/optimus-sched/optimus/cli/fitcmd"
	"github.com/optimus-sched/optimus/cli/initcmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/metricscmd"
	"github.com/optimus-sched/optimus/cli/placecmd"
	"github.com/optimus-sched/optimus/cli/predictcmd"
	"github.com/optimus-sched/optimus/cli/reportcmd"
	"github.com/optimus-sched/optimus/cli/schemacmd"
	"github.com/optimus-sched/optimus/cli/simulatecmd"
	"github.com/optimus-sched/optimus/cli/snapshotcmd"
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/cli/versioncmd"
	"github.com/optimus-sched/optimus/io/table"
)

// NewCmd returns the root command with every subcommand.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := newRoot(ios)
	for _, s := range subcommands {
		addSub(cmd, ios, s)
	}
	addCompletions(cmd)
	return cmd
}

// subcommand is one command under the root: its name (the command's
// Name(), which TestSubcommandNames checks), its help group ("" for none)
// and its constructor.
type subcommand struct {
	name, group string
	new         func(*iostreams.IOStreams) *cobra.Command
}

// subcommands are the root's commands, in the order NewCmd adds them.
var subcommands = []subcommand{
	{"snapshot", "pipeline", snapshotcmd.NewCmd},
	{"metrics", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return metricscmd.NewCmd(ios, nil) }},
	{"fit", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return fitcmd.NewCmd(ios, nil) }},
	{"predict", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return predictcmd.NewCmd(ios, nil) }},
	{"solve", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return solvecmd.NewCmd(ios, nil) }},
	{"place", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return placecmd.NewCmd(ios, nil) }},
	{"simulate", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return simulatecmd.NewCmd(ios, nil) }},
	{"apply", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return applycmd.NewCmd(ios, nil) }},
	{"init", "pipeline", func(ios *iostreams.IOStreams) *cobra.Command { return initcmd.NewCmd(ios, nil) }},
	{"convert", "tables", func(ios *iostreams.IOStreams) *cobra.Command { return convertcmd.NewCmd(ios, nil) }},
	{"chart", "tables", chartcmd.NewCmd},
	{"report", "tables", func(ios *iostreams.IOStreams) *cobra.Command { return reportcmd.NewCmd(ios, nil) }},
	{"datasets", "tables", datasetscmd.NewCmd},
	{"schema", "tables", schemacmd.NewCmd},
	{"eval", "tables", evalcmd.NewCmd},
	{"version", "", versioncmd.NewCmd},
}

func addSub(root *cobra.Command, ios *iostreams.IOStreams, s subcommand) {
	c := s.new(ios)
	if s.group != "" {
		c.GroupID = s.group
	}
	root.AddCommand(c)
}

// newRoot is the root command without its subcommands.
func newRoot(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "optimus",
		Short: "Schedule deep-learning training jobs as the Optimus paper does",
		Long: `optimus learns how long each training job still has to run and how fast it trains with
p parameter servers and w workers, decides every job's p and w to minimise the average
completion time, places the tasks on the fewest servers, and applies the plan.

Commands read a table on standard input (or -i FILE) and write one on standard output
(or -o FILE): Arrow IPC streams through pipes, Parquet, Arrow or CSV files by extension,
aligned text at a terminal. Exit status: 0 success, 2 usage or invalid input, 1 other
failures (3: a bug in optimus, with its stack on standard error).

Besides errors, commands print warnings and results on standard error, and what they
decided when standard error is a terminal: -q/--quiet keeps errors only (for cron),
-v/--verbose adds the decisions wherever standard error goes.`,
		Example: `  optimus datasets export testbed -o testbed
  optimus convert -i testbed/jobs.parquet`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       cmdutil.VersionString(),
	}
	chart.Version = cmdutil.VersionString() // the pages' footer names the version
	var maxMemory string
	cmd.PersistentFlags().StringVar(&maxMemory, "max-memory", "",
		"the memory budget (`SIZE`: 512MB, 8GB): an input that needs more to decode is refused (exit 2) rather than exhausting the machine, "+
			"and the Go runtime keeps its heap within it. Default: GOMEMLIMIT when set, else 4GB (a third of ulimit -v when that is less)")
	cmdutil.SetupRoot(cmd, ios, func() error { return setMemoryBudget(maxMemory) })
	cmd.AddGroup(
		&cobra.Group{ID: "pipeline", Title: "Pipeline:"},
		&cobra.Group{ID: "tables", Title: "Tables and data:"},
	)
	return cmd
}

// Main runs optimus with args and returns the exit status, printing any
// error to standard error as one line prefixed "optimus: ", control and
// bidi characters (from names it quotes) escaped (escape.Terminal).
func Main(ios *iostreams.IOStreams, args []string) int {
	return cmdutil.Execute(ios, newCmdFor(ios, args), args)
}

// newCmdFor is the command tree args need: when the first argument names
// a subcommand, the root with that subcommand alone, which runs it as the
// whole tree would (a command's help, flags and errors involve its own
// subtree and the root's persistent flags only) without building the
// fifteen others and their flags at every start; otherwise (help, flags
// first, completion, an unknown command and its suggestions) NewCmd's
// whole tree. Completions are only asked for through cobra's __complete
// commands, which take the whole tree.
func newCmdFor(ios *iostreams.IOStreams, args []string) *cobra.Command {
	if len(args) > 0 {
		for _, s := range subcommands {
			if s.name == args[0] {
				cmd := newRoot(ios)
				addSub(cmd, ios, s)
				return cmd
			}
		}
	}
	return NewCmd(ios)
}

// setMemoryBudget applies --max-memory (see its help): the readers'
// budget, and the runtime's soft memory limit, which an address-space
// limit lowers too, so that the collector works harder before the
// allocator fails.
func setMemoryBudget(flag string) error {
	table.SetMemoryBudget(0)
	if flag != "" {
		n, err := table.ParseBytes(flag)
		if err != nil {
			return cmdutil.Usagef("--max-memory: %v", err)
		}
		table.SetMemoryBudget(n)
		debug.SetMemoryLimit(n)
		return nil
	}
	if limit := debug.SetMemoryLimit(-1); limit == math.MaxInt64 {
		if b := table.MemoryBudget(); b < table.DefaultMemoryBudget {
			debug.SetMemoryLimit(b)
		}
	}
	return nil
}

// Run runs optimus in-process on stdin, with buffers for standard output
// and error, none a terminal, and returns the exit status and what it
// wrote: what tests and benchmarks use to run a command as a user would.
func Run(stdin []byte, args ...string) (code int, stdout []byte, stderr string) {
	ios, in, out, errOut := iostreams.Test()
	in.Write(stdin)
	code = Main(ios, args)
	return code, out.Bytes(), errOut.String()
}
