// Package reportcmd implements `optimus report`: one HTML page for a
// pipeline run (package chart).
package reportcmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// Options are report's inputs: files by table.
type Options struct {
	IO          *iostreams.IOStreams
	Loss        string
	Speed       string
	Models      string
	Suggestions string
	Predictions string
	Allocations []string
	Plan        string
	Cluster     string
	Simulation  string // a folder of optimus simulate --dir
	SpeedEval   string
	ConvEval    string
	Output      string
}

// NewCmd returns `optimus report`.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "report [--loss F] [--speed F] [--models F] [--predictions F] [--allocation F]... [--plan F] [--cluster F] [--simulation DIR] -o FILE.html",
		Short: "One HTML page for a pipeline run: inputs, decisions explained, charts",
		Long: `Report writes one self-contained HTML page (it works offline) for a run of the pipeline:
the tables it was given (file, table, schema version, rows), every job's decision explained
(progress, remaining work with its p10-p90 range, PS and workers now and decided, predicted
speed and completion, the last marginal gain and the next one, where it was placed and why
it waits or got no more), and the charts of optimus chart: allocation (several policies side
by side when --allocation is repeated) and cluster utilisation, the plan on the nodes, each
job's convergence fit and its speed model; with --simulation, the charts of optimus chart
simulation from the tables optimus simulate --dir wrote. Give the tables you have; each adds
its part.
Identical input gives byte-identical HTML.`,
		Example: `  optimus report --loss tb/loss.parquet --speed tb/speed.parquet --cluster tb/cluster.parquet \
    --models models.parquet --predictions predictions.parquet \
    --allocation allocation.parquet --allocation allocation-drf.parquet --plan plan.parquet \
    --simulation sim -o report.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Loss, "loss", "", "read the loss points from `FILE`")
	f.StringVar(&opts.Speed, "speed", "", "read the speed samples from `FILE`")
	f.StringVar(&opts.Models, "models", "", "read the fitted models (optimus fit) from `FILE`")
	f.StringVar(&opts.Suggestions, "suggestions", "", "read the configurations to measure next (optimus fit suggest) from `FILE`")
	f.StringVar(&opts.Predictions, "predictions", "", "read the predictions (optimus predict) from `FILE`")
	f.StringArrayVar(&opts.Allocations, "allocation", nil, "read an allocation (optimus solve) from `FILE`; repeat for other policies on the same predictions (the first is the run's)")
	f.StringVar(&opts.Plan, "plan", "", "read the plan (optimus place) from `FILE`")
	f.StringVar(&opts.Cluster, "cluster", "", "read the cluster's nodes from `FILE`")
	f.StringVar(&opts.SpeedEval, "speed-eval", "", "read the speed model's cross-validated errors (optimus eval speed) from `FILE`")
	f.StringVar(&opts.ConvEval, "convergence-eval", "", "read the convergence prediction's cross-validated errors (optimus eval convergence) from `FILE`")
	f.StringVar(&opts.Simulation, "simulation", "", "read the tables optimus simulate --dir wrote from `DIR` (sim_jobs.parquet; sim_allocations.parquet and sim_utilisation.parquet when there)")
	f.StringVarP(&opts.Output, "output", "o", "", "write the page to `FILE` (written atomically) instead of standard output")
	return cmd
}

// simulationFiles are the tables of optimus simulate --dir the report
// draws, by the simulation chart's inputs; the first is required.
var simulationFiles = []struct {
	input, file string
	want        *schema.Table
}{
	{chart.Main, "sim_jobs.parquet", schema.SimJobs},
	{"allocations", "sim_allocations.parquet", schema.SimAllocations},
	{"utilisation", "sim_utilisation.parquet", schema.SimUtilisation},
}

// readSimulation reads the simulation tables in dir: sim_jobs must be
// there, the per-round tables are drawn when they are.
func readSimulation(dir string, read func(flag, path string, want *schema.Table, dst **table.Table) error) (chart.Tables, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, cmdutil.Usagef("--simulation %s: not a folder (give the --dir of optimus simulate)", dir)
	}
	out := chart.Tables{}
	for n, f := range simulationFiles {
		path := filepath.Join(dir, f.file)
		if _, err := os.Stat(path); n > 0 && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var t *table.Table
		if err := read("simulation", path, f.want, &t); err != nil {
			return nil, err
		}
		out[f.input] = []*table.Table{t}
	}
	return out, nil
}

// Run reads the tables given, builds the report and writes it.
func Run(opts *Options) error {
	if err := chart.CheckAssets(); err != nil {
		return err // before reading anything: this binary cannot draw
	}
	if opts.Output == "" && opts.IO.IsStdoutTTY() {
		return cmdutil.Usagef("name the HTML file to write with -o FILE.html")
	}
	if err := cmdutil.CheckPageFile(opts.Output); err != nil {
		return err
	}
	in := chart.ReportInputs{}
	read := func(flag, path string, want *schema.Table, dst **table.Table) error {
		if path == "" {
			return nil
		}
		t, err := cmdutil.ReadSide(flag, path, want)
		if err != nil {
			return err
		}
		in.Files = append(in.Files, chart.ReportFile{Flag: flag, Path: path, Table: t})
		if dst != nil {
			*dst = t
		}
		return nil
	}
	for _, s := range []struct {
		flag, path string
		want       *schema.Table
		dst        **table.Table
	}{
		{"loss", opts.Loss, schema.Loss, &in.Loss},
		{"speed", opts.Speed, schema.Speed, &in.Speed},
		{"cluster", opts.Cluster, schema.Cluster, &in.Cluster},
		{"models", opts.Models, schema.Models, &in.Models},
		{"suggestions", opts.Suggestions, schema.Suggestions, &in.Suggestions},
		{"predictions", opts.Predictions, schema.Predictions, &in.Predictions},
		{"speed-eval", opts.SpeedEval, schema.SpeedEval, &in.SpeedEval},
		{"convergence-eval", opts.ConvEval, schema.ConvergenceEval, &in.ConvergenceEval},
	} {
		if err := read(s.flag, s.path, s.want, s.dst); err != nil {
			return err
		}
	}
	for _, p := range opts.Allocations {
		var t *table.Table
		if err := read("allocation", p, schema.Allocation, &t); err != nil {
			return err
		}
		in.Allocations = append(in.Allocations, t)
	}
	if err := read("plan", opts.Plan, schema.Plan, &in.Plan); err != nil {
		return err
	}
	if opts.Simulation != "" {
		sim, err := readSimulation(opts.Simulation, read)
		if err != nil {
			return err
		}
		in.Simulation = sim
	}
	if len(in.Files) == 0 {
		return cmdutil.Usagef("give at least one table: --loss, --speed, --models, --predictions, --allocation, --plan, --cluster, --speed-eval, --convergence-eval or --simulation")
	}
	page, err := chart.Report(in)
	if err != nil {
		return err
	}
	return cmdutil.WritePage(opts.IO, opts.Output, page)
}
