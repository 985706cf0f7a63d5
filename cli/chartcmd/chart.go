// Package chartcmd implements `optimus chart KIND`: draw a table as a
// self-contained HTML page (package chart), one subcommand per kind of
// chart.
package chartcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/table"
)

// Options are one chart subcommand's inputs.
type Options struct {
	IO     *iostreams.IOStreams
	Kind   *chart.Kind
	Inputs map[string][]string // files by flag (chart.Main for -i)
	Jobs   []string            // --job: draw only these (per-job kinds)
	Seeds  []int64             // --seed: draw only these runs (seeded kinds)
	Output string
}

// NewCmd returns `optimus chart` with one subcommand per registered kind;
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chart KIND",
		Short: "Draw a table as a self-contained HTML chart page",
		Long: `Chart draws optimus' tables as one HTML file that works offline (echarts is embedded;
open it from disk in any browser). Identical input gives byte-identical HTML.

Kinds: ` + kindNames() + `. Each reads its main table with -i (or standard input) and
side tables by flag; see 'optimus chart KIND --help'.`,
		Example: `  optimus chart loss -i tb/loss.parquet --models models.parquet --predictions predictions.parquet -o loss.html
  optimus chart allocation -i allocation.parquet -i allocation-drf.parquet --cluster tb/cluster.parquet -o allocation.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Usagef("name a kind of chart: %s (optimus chart --help)", kindNames())
		},
	}
	for _, k := range chart.Kinds() {
		cmd.AddCommand(NewCmdKind(ios, k, nil))
	}
	return cmd
}

func kindNames() string {
	var names []string
	for _, k := range chart.Kinds() {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// NewCmdKind returns `optimus chart KIND` for one registered kind.
func NewCmdKind(ios *iostreams.IOStreams, k *chart.Kind, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Kind: k, Inputs: map[string][]string{}}
	use := k.Name + " -i FILE"
	for _, in := range k.Inputs[1:] {
		part := "--" + in.Flag + " FILE"
		if !in.Required {
			part = "[" + part + "]"
		}
		use += " " + part
	}
	cmd := &cobra.Command{
		Use:     use + " -o FILE.html",
		Short:   k.Short,
		Long:    k.Long,
		Example: k.Example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, in := range k.Inputs {
				name := in.Flag
				if name == chart.Main {
					name = "input"
				}
				vals, _ := cmd.Flags().GetStringArray(name)
				opts.Inputs[in.Flag] = vals
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	for _, in := range k.Inputs {
		what := "read the " + in.Schema.Name + " table (" + in.Doc + ") from `FILE`"
		if in.Many {
			what += "; repeat to draw several side by side"
		}
		if in.Flag == chart.Main {
			cmd.Flags().StringArrayP("input", "i", nil, what+" instead of standard input")
			continue
		}
		if in.Required {
			what += " (required)"
		}
		cmd.Flags().StringArray(in.Flag, nil, what)
	}
	if k.PerJob {
		cmd.Flags().StringArrayVar(&opts.Jobs, "job", nil, fmt.Sprintf("draw only job `NAME` (repeat for several; without it the first %d jobs)", chart.MaxJobCharts))
	}
	if k.Seeded {
		cmd.Flags().Int64SliceVar(&opts.Seeds, "seed", nil, "draw only the runs of seed `N` (repeat or list for several; without it every seed, and the smallest for charts of one seed)")
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the page to `FILE` (written atomically) instead of standard output")
	return cmd
}

// Run reads the kind's tables, builds its page and writes it.
func Run(opts *Options) error {
	k := opts.Kind
	if err := chart.CheckAssets(); err != nil {
		return err // before reading anything: this binary cannot draw
	}
	if opts.Output == "" && opts.IO.IsStdoutTTY() {
		return cmdutil.Usagef("name the HTML file to write with -o FILE.html")
	}
	if err := cmdutil.CheckPageFile(opts.Output); err != nil {
		return err
	}
	tables, err := ReadInputs(opts.IO, k.Inputs, opts.Inputs)
	if err != nil {
		return err
	}
	if len(opts.Jobs) > 0 {
		for i, t := range tables[chart.Main] {
			if tables[chart.Main][i], err = chart.SelectJobs(t, opts.Jobs); err != nil {
				return err
			}
		}
	}
	if len(opts.Seeds) > 0 {
		if err := chart.SelectSeeds(tables, opts.Seeds); err != nil {
			return err
		}
	}
	page, err := k.BuildPage(tables)
	if err != nil {
		return err
	}
	return cmdutil.WritePage(opts.IO, opts.Output, page)
}

// ReadInputs reads the files given for each of inputs (the main input from
// standard input when no -i is given).
func ReadInputs(ios *iostreams.IOStreams, inputs []chart.Input, files map[string][]string) (chart.Tables, error) {
	out := chart.Tables{}
	for _, in := range inputs {
		paths := files[in.Flag]
		if len(paths) > 1 && !in.Many {
			return nil, cmdutil.Usagef("--%s: give one file", flagName(in))
		}
		if in.Flag == chart.Main && len(paths) == 0 {
			t, err := cmdutil.ReadInput(ios, "", in.Schema)
			if err != nil {
				return nil, err
			}
			out[in.Flag] = []*table.Table{t}
			continue
		}
		if in.Required && len(paths) == 0 {
			return nil, cmdutil.Usagef("--%s FILE is required: the %s table (%s)", flagName(in), in.Schema.Name, in.Doc)
		}
		for _, p := range paths {
			if p == "-" && in.Flag != chart.Main {
				return nil, cmdutil.Usagef("--%s: give a file; standard input carries the main input", in.Flag)
			}
			t, err := cmdutil.ReadInput(ios, p, in.Schema)
			if err != nil {
				return nil, err
			}
			out[in.Flag] = append(out[in.Flag], t)
		}
	}
	return out, nil
}

func flagName(in chart.Input) string {
	if in.Flag == chart.Main {
		return "input"
	}
	return in.Flag
}
