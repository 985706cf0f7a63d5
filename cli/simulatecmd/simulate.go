// Package simulatecmd implements `optimus simulate`: replay a workload on a
// cluster through Optimus and its baselines and measure job completion
// times, makespan and utilisation.
package simulatecmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/simulate/simtables"
	"github.com/optimus-sched/optimus/solve"
)

// Options are simulate's inputs.
type Options struct {
	IO                          *iostreams.IOStreams
	Cluster, Workload, Profiles string
	ProfileSpeeds               string
	Philly                      string // a Philly trace to sample the workload from
	PhillyJobs, PhillyNodes     int
	PhillyGPUs                  int
	Pollux                      string // a workload in Pollux's format, or "workload-1" for the embedded one
	Policies                    []string
	Placement, Capacity         string
	Interval, Stop, Restore     float64
	Start                       float64 // seconds of a job's first start
	TiresiasOrder               string  // arrival or demotion
	SRTFWeight                  float64 // optimus: exponent of the SRTF weights (0: none)
	OracleRemaining             string  // with --pollux: truth or pollux
	// PolluxDepartures are modelling choices of Pollux's simulator to
	// depart from with --pollux (datasets.PolluxDepartures).
	PolluxDepartures []string
	PlanRestartCost  float64 // < 0: Stop + Restore
	ProfileRuns      int
	ProfileRunS      float64
	Noise            float64
	Oracle           bool     // shorthand for Knowledge = [oracle]
	Knowledge        []string // fitted, oracle
	Seeds            string
	Horizon          float64
	Parallel         int
	Compare          bool   // write the comparison over seeds rather than the summary
	Intervals        bool   // keep the per-round tables
	Dir              string // all four output tables go here
	Output           cmdutil.OutputOptions
}

// NewCmd returns the cobra command.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios}
	cmd := &cobra.Command{
		Use:   "simulate [--cluster FILE --workload FILE --profiles FILE] [--policies LIST] [--seeds LIST]",
		Short: "Replay a workload through the policies and measure completion times",
		Long: `Simulate replays a workload of training jobs on a cluster, one run per policy and seed,
and measures what each policy's decisions are worth: job completion time (JCT), makespan,
utilisation, restarts and the error of the scheduler's predictions.

Every --interval seconds the scheduler plans with the same code as optimus fit | predict |
solve | place, on what a real one would see: the noisy loss points of the steps each job
trained, noisy speed samples of the configurations it ran, and --profile-runs short runs at
arrival (their time counted). With --oracle it is given the true remaining steps and speed
functions instead, which separates modelling error from policy. A job whose tasks change
stops (--stop-cost) and restores (--restore-cost) before it trains again.

Inputs: --cluster, --workload and --profiles (optimus schema workload, profiles; with
--profile-speeds for profiles of kind measured); or none of them for the simulate-testbed
dataset (a workload like the paper's testbed experiment, generated anew for each seed); or
--philly with a Philly trace (../shared/data/traces). The same inputs and seeds give
byte-identical outputs. See docs/simulate.md.

Output: the sim_summary table (one row per policy and seed, with JCT and makespan ratios
to optimus), or with --compare the sim_comparison table (each policy over the seeds:
geometric mean, smallest and largest ratio); --dir DIR also writes sim_summary,
sim_comparison, sim_jobs, sim_allocations and sim_utilisation there as Parquet.`,
		Example: `  optimus simulate --seeds 1-5
  optimus simulate --seeds 1-10 --compare
  optimus simulate --seeds 1-5 --oracle --dir out/sim-oracle
  optimus simulate --seeds 1-10 --knowledge fitted,oracle --compare
  optimus datasets export simulate-testbed -o tb
  optimus simulate --cluster tb/cluster.parquet --workload tb/workload.parquet --profiles tb/profiles.parquet \
    --profile-speeds tb/profile_speeds.parquet -o summary.csv
  optimus simulate --philly ../shared/data/traces/philly-jobs.csv --philly-jobs 160 --philly-nodes 16 --oracle`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Cluster, "cluster", "", "read the cluster from `FILE`")
	f.StringVar(&opts.Workload, "workload", "", "read the workload from `FILE`")
	f.StringVar(&opts.Profiles, "profiles", "", "read the model profiles from `FILE`")
	f.StringVar(&opts.ProfileSpeeds, "profile-speeds", "", "read the measured speeds of measured profiles from `FILE`")
	f.StringVar(&opts.Philly, "philly", "", "sample the workload from the Philly trace in `FILE` (CSV)")
	f.IntVar(&opts.PhillyJobs, "philly-jobs", 160, "jobs to sample with --philly")
	f.IntVar(&opts.PhillyNodes, "philly-nodes", 16, "nodes of the cluster with --philly")
	f.IntVar(&opts.PhillyGPUs, "philly-gpus", 4, "GPUs per node with --philly")
	f.StringVar(&opts.Pollux, "pollux", "", "replay a workload of Pollux's simulator from `FILE` (CSV: name, time, application, num_replicas, batch_size; workload-1: the embedded one) on its 16 x 4-GPU cluster with its application profiles")
	f.StringSliceVar(&opts.Policies, "policies", []string{"optimus", "drf", "tetris", "fifo"}, "allocation policies to run: optimus, drf, tetris, fifo, tiresias")
	f.StringVar(&opts.Placement, "placement", string(place.Optimus), "placement policy: optimus, spread or pack; with --pollux also pollux (as Pollux's simulator places jobs)")
	f.StringVar(&opts.Capacity, "capacity", string(solve.NodeCapacity), "capacity check of solve: nodes or aggregate")
	f.Float64Var(&opts.Interval, "interval", simulate.DefaultInterval, "seconds between scheduling rounds")
	f.Float64Var(&opts.Stop, "stop-cost", simulate.DefaultStopCost, "seconds to checkpoint and stop a job whose tasks change")
	f.Float64Var(&opts.Restore, "restore-cost", simulate.DefaultRestoreCost, "seconds to restore a job from its checkpoint")
	f.Float64Var(&opts.Start, "start-cost", 0, "seconds a job's first start takes before it trains (Pollux's simulator: its restart delay, 30)")
	f.Float64Var(&opts.SRTFWeight, "srtf-weight", 0, "optimus policy: weight each job's remaining time by (mean T1 / its T1)^`A`, T1 its remaining time on one worker, so the greedy favours short jobs (0: the paper's Optimus)")
	f.StringVar(&opts.OracleRemaining, "oracle-remaining", "truth", "with --pollux and oracle knowledge, the remaining steps the scheduler is told: truth, or pollux (as Pollux's Optimus+Oracle estimates them: the iteration column by whole epochs)")
	f.StringVar(&opts.TiresiasOrder, "tiresias-order", "arrival", "order within a lower Tiresias queue: arrival, or demotion (when each job reached it, as Pollux's simulator)")
	f.StringSliceVar(&opts.PolluxDepartures, "pollux-depart", nil, "with --pollux, modelling choices of Pollux's simulator to depart from, to measure each: "+strings.Join(polluxDepartureNames, ", "))
	f.Float64Var(&opts.PlanRestartCost, "plan-restart-cost", -1, "restart cost in seconds the optimus policy plans with (-1: --stop-cost + --restore-cost; 0: re-plan from scratch every round)")
	f.IntVar(&opts.ProfileRuns, "profile-runs", simulate.DefaultProfileRuns, "profiling runs at a job's arrival (not with --oracle)")
	f.Float64Var(&opts.ProfileRunS, "profile-run-s", simulate.DefaultProfileRunS, "seconds of each profiling run")
	f.Float64Var(&opts.Noise, "noise", 1, "multiplier of the profiles' observation noise (0: noiseless)")
	f.BoolVar(&opts.Oracle, "oracle", false, "give the scheduler the true remaining steps and speed functions (--knowledge oracle)")
	f.StringSliceVar(&opts.Knowledge, "knowledge", []string{"fitted"}, "what the scheduler knows, one run of each: fitted, oracle")
	f.StringVar(&opts.Seeds, "seeds", "1", "seeds to run: a list and ranges, e.g. 1,2,5-8")
	f.Float64Var(&opts.Horizon, "horizon", simulate.DefaultHorizon, "seconds after which unfinished jobs are reported unfinished")
	f.IntVar(&opts.Parallel, "parallel", runtime.GOMAXPROCS(0), "runs simulated at once")
	f.BoolVar(&opts.Compare, "compare", false, "write the sim_comparison table (each policy over the seeds) instead of sim_summary")
	f.BoolVar(&opts.Intervals, "intervals", true, "record every round's allocations and utilisation (sim_allocations, sim_utilisation in --dir)")
	f.StringVar(&opts.Dir, "dir", "", "also write every output table as Parquet into `DIR`")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// ParseSeeds parses a list of seeds and ranges ("1,2,5-8").
func ParseSeeds(s string) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: %q is not a seed", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a || b-a > 10000 {
				return nil, fmt.Errorf("--seeds %q: %q is not a range of seeds", s, part)
			}
		}
		for x := a; x <= b; x++ {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out, nil
}

// Run runs the simulations and writes their tables.
func Run(opts *Options) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	seeds, err := ParseSeeds(opts.Seeds)
	if err != nil {
		return cmdutil.Usagef("%v", err)
	}
	var policies []solve.Policy
	var order []string
	for _, name := range opts.Policies {
		p, err := solve.ParsePolicy(name)
		if err != nil {
			return cmdutil.Usagef("--policies: %v", err)
		}
		policies = append(policies, p)
		order = append(order, string(p))
	}
	polluxPlacement := opts.Placement == "pollux"
	if polluxPlacement && opts.Pollux == "" {
		return cmdutil.Usagef("--placement pollux needs --pollux: it places all-reduce jobs of 1 GPU a worker only")
	}
	placement := place.Optimus
	if !polluxPlacement {
		if placement, err = place.ParsePolicy(opts.Placement); err != nil {
			return cmdutil.Usagef("--placement: %v", err)
		}
	}
	capacity, err := solve.ParseCapacity(opts.Capacity)
	if err != nil {
		return cmdutil.Usagef("--capacity: %v", err)
	}
	switch {
	case opts.Interval <= 0:
		return cmdutil.Usagef("--interval %g: must be positive", opts.Interval)
	case opts.OracleRemaining != "truth" && opts.OracleRemaining != "pollux":
		return cmdutil.Usagef("--oracle-remaining %q: want truth or pollux", opts.OracleRemaining)
	case opts.OracleRemaining == "pollux" && opts.Pollux == "":
		return cmdutil.Usagef("--oracle-remaining pollux needs --pollux")
	case opts.TiresiasOrder != "arrival" && opts.TiresiasOrder != "demotion":
		return cmdutil.Usagef("--tiresias-order %q: want arrival or demotion", opts.TiresiasOrder)
	case !(opts.SRTFWeight >= 0 && opts.SRTFWeight <= 10):
		return cmdutil.Usagef("--srtf-weight %g: must be in [0, 10]", opts.SRTFWeight)
	case opts.Stop < 0 || opts.Restore < 0 || opts.Start < 0 || opts.ProfileRunS < 0 || opts.ProfileRuns < 0 || opts.Noise < 0:
		return cmdutil.Usagef("--stop-cost, --restore-cost, --start-cost, --profile-runs, --profile-run-s and --noise must not be negative")
	case opts.Horizon <= 0:
		return cmdutil.Usagef("--horizon %g: must be positive", opts.Horizon)
	}
	var oracles []bool
	if opts.Oracle {
		opts.Knowledge = []string{"oracle"}
	}
	for _, k := range opts.Knowledge {
		switch k {
		case "fitted":
			oracles = append(oracles, false)
		case "oracle":
			oracles = append(oracles, true)
		default:
			return cmdutil.Usagef("--knowledge %q: fitted or oracle", k)
		}
	}
	inputs, err := readInputs(opts, seeds)
	if err != nil {
		return err
	}

	type job struct {
		in  *simulate.Input
		cfg simulate.Config
	}
	var jobs []job
	for _, oracle := range oracles {
		for i, seed := range seeds {
			for _, p := range policies {
				jobs = append(jobs, job{inputs[i], config(opts, p, placement, capacity, oracle, seed)})
			}
		}
	}
	results := make([]*simulate.Result, len(jobs))
	errs := make([]error, len(jobs))
	pipeline.ForEach(len(jobs), opts.Parallel, func(k int) {
		results[k], errs[k] = simulate.Run(jobs[k].in, jobs[k].cfg)
	}, cmdutil.Progress(opts.IO, "simulate"))
	for k, err := range errs {
		if err != nil {
			return fmt.Errorf("simulate %s, seed %d: %w", jobs[k].cfg.Policy, jobs[k].cfg.Seed, err)
		}
	}
	simtables.SortRuns(results, order)
	resources := inputs[0].Cluster.Resources
	summary, err := simtables.SummaryTable(results, resources)
	if err != nil {
		return err
	}
	comparison, err := simtables.ComparisonTable(results)
	if err != nil {
		return err
	}
	if opts.Dir != "" {
		jt, err := simtables.JobsTable(results)
		if err != nil {
			return err
		}
		at, err := simtables.AllocationsTable(results)
		if err != nil {
			return err
		}
		ut, err := simtables.UtilisationTable(results, resources)
		if err != nil {
			return err
		}
		if err := writeDir(opts.IO, opts.Dir, []*table.Table{summary, comparison, jt, at, ut}); err != nil {
			return err
		}
	}
	if opts.Compare {
		return opts.Output.Write(opts.IO, comparison)
	}
	return opts.Output.Write(opts.IO, summary)
}

func config(opts *Options, p solve.Policy, placement place.Policy, capacity solve.CapacityCheck, oracle bool, seed uint64) simulate.Config {
	cfg := simulate.DefaultConfig(p)
	cfg.Placement, cfg.Capacity, cfg.Interval = placement, capacity, opts.Interval
	cfg.StopCost, cfg.RestoreCost, cfg.StartCost = opts.Stop, opts.Restore, opts.Start
	cfg.TiresiasDemotionOrder = opts.TiresiasOrder == "demotion"
	cfg.SRTFWeight = opts.SRTFWeight
	cfg.PolluxPlacement = opts.Placement == "pollux"
	if opts.PlanRestartCost >= 0 {
		c := opts.PlanRestartCost
		cfg.PlanRestartCost = &c
	}
	cfg.ProfileRuns, cfg.ProfileRunS, cfg.NoiseScale = opts.ProfileRuns, opts.ProfileRunS, opts.Noise
	cfg.Oracle, cfg.Seed, cfg.Horizon, cfg.KeepIntervals = oracle, seed, opts.Horizon, opts.Intervals
	return cfg
}

// readInputs returns the input of each seed: the same tables for every
// seed, or the simulate-testbed dataset generated with each seed, or a
// Philly sample of each seed.
func readInputs(opts *Options, seeds []uint64) ([]*simulate.Input, error) {
	given := opts.Cluster != "" || opts.Workload != "" || opts.Profiles != "" || opts.ProfileSpeeds != ""
	if given && opts.Philly != "" {
		return nil, cmdutil.Usagef("--philly samples its own workload: give it without --cluster, --workload and --profiles")
	}
	out := make([]*simulate.Input, len(seeds))
	if opts.Pollux != "" {
		if given || opts.Philly != "" {
			return nil, cmdutil.Usagef("--pollux brings its own cluster and profiles: give it without --cluster, --workload, --profiles and --philly")
		}
		in, err := polluxInput(opts.Pollux, opts.PolluxDepartures, opts.OracleRemaining == "pollux")
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = in
		}
		return out, nil
	}
	if given {
		if opts.Cluster == "" || opts.Workload == "" || opts.Profiles == "" {
			return nil, cmdutil.Usagef("--cluster, --workload and --profiles come together (or none of them, for the simulate-testbed dataset)")
		}
		cluster, err := cmdutil.ReadSide("cluster", opts.Cluster, schema.Cluster)
		if err != nil {
			return nil, err
		}
		workload, err := cmdutil.ReadSide("workload", opts.Workload, schema.Workload)
		if err != nil {
			return nil, err
		}
		profiles, err := cmdutil.ReadSide("profiles", opts.Profiles, schema.Profiles)
		if err != nil {
			return nil, err
		}
		var speeds *table.Table
		if opts.ProfileSpeeds != "" {
			if speeds, err = cmdutil.ReadSide("profile-speeds", opts.ProfileSpeeds, schema.ProfileSpeeds); err != nil {
				return nil, err
			}
		}
		in, err := simtables.Input(cluster, workload, profiles, speeds)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = in
		}
		return out, nil
	}
	var trace []datasets.PhillyJob
	if opts.Philly != "" {
		f, err := os.Open(opts.Philly)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if trace, err = datasets.ReadPhilly(f, opts.Philly); err != nil {
			return nil, fmt.Errorf("%w: %v", table.ErrInvalidInput, err)
		}
	}
	for i, seed := range seeds {
		var named []datasets.Named
		var err error
		if trace != nil {
			named, err = datasets.PhillyWorkload(trace, datasets.PhillyConfig{Jobs: opts.PhillyJobs, Nodes: opts.PhillyNodes, GPUsPerNode: opts.PhillyGPUs, Seed: seed})
			if err != nil {
				return nil, cmdutil.Usagef("%v", err)
			}
		} else if named, err = datasets.SimTestbed(seed); err != nil {
			return nil, err
		}
		tabs := map[string]*table.Table{}
		for _, n := range named {
			t, err := table.Conform(n.Table)
			if err != nil {
				return nil, err
			}
			t.Source = n.Name
			tabs[n.Name] = t
		}
		if out[i], err = simtables.Input(tabs["cluster"], tabs["workload"], tabs["profiles"], tabs["profile_speeds"]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// writeDir writes the tables into dir as <name>.parquet, all or none: each
// goes to a temporary file first, renamed into place once all are written.
func writeDir(ios *iostreams.IOStreams, dir string, tabs []*table.Table) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tmps []string
	defer func() {
		if err != nil {
			for _, t := range tmps {
				os.Remove(t)
			}
		}
	}()
	for _, t := range tabs {
		f, err := os.CreateTemp(dir, "."+t.Name+".parquet.tmp-*")
		if err != nil {
			return err
		}
		tmps = append(tmps, f.Name())
		werr := table.Write(f, table.Parquet, cmdutil.Stamp(t))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(f.Name(), 0o644)
		}
		if werr != nil {
			return werr
		}
	}
	for i, t := range tabs {
		path := filepath.Join(dir, t.Name+".parquet")
		if err := os.Rename(tmps[i], path); err != nil {
			return err
		}
		cmdutil.Summaryf(ios, "wrote %s (%d rows)", path, t.NumRows())
	}
	return nil
}

// polluxDepartureNames are --pollux-depart's values, each a field of
// datasets.PolluxDepartures.
var polluxDepartureNames = []string{"epochs-minus-one", "iteration-column", "no-single-gpu-accumulation", "max-local-from-scalability", "no-ncf-cap", "unprofiled-nearest"}

// polluxDepartures parses --pollux-depart.
func polluxDepartures(names []string) (datasets.PolluxDepartures, error) {
	var d datasets.PolluxDepartures
	for _, n := range names {
		switch strings.TrimSpace(n) {
		case "epochs-minus-one":
			d.EpochsMinusOne = true
		case "iteration-column":
			d.IterationColumn = true
		case "no-single-gpu-accumulation":
			d.NoSingleGPUAccumulation = true
		case "max-local-from-scalability":
			d.MaxLocalFromScalability = true
		case "no-ncf-cap":
			d.NoNCFCap = true
		case "unprofiled-nearest":
			d.UnprofiledNearest = true
		default:
			return d, cmdutil.Usagef("--pollux-depart %q: want some of %s", n, strings.Join(polluxDepartureNames, ", "))
		}
	}
	return d, nil
}

// polluxInput reads a workload in Pollux's format (or the embedded
// workload-1) against the embedded application profiles, departing from
// Pollux's simulator where departures say; with polluxRemaining the oracle
// is told remaining steps as Pollux's Optimus+Oracle estimates them.
func polluxInput(name string, departures []string, polluxRemaining bool) (*simulate.Input, error) {
	d, err := polluxDepartures(departures)
	if err != nil {
		return nil, err
	}
	profiles, err := datasets.PolluxProfiles()
	if err != nil {
		return nil, err
	}
	for _, p := range profiles {
		p.Departures = d
	}
	var jobs []datasets.PolluxJob
	if name == "workload-1" {
		jobs, err = datasets.ReadPolluxWorkload1(profiles)
	} else {
		var f *os.File
		if f, err = os.Open(name); err != nil {
			return nil, err
		}
		defer f.Close()
		jobs, err = datasets.ReadPolluxWorkload(f, name, profiles, datasets.PolluxNodes*datasets.PolluxGPUsPerNode)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", table.ErrInvalidInput, err)
	}
	in, err := simtables.PolluxInput(jobs, profiles, polluxSpeedNoise)
	if err == nil && polluxRemaining {
		simtables.UsePolluxRemaining(in, jobs, profiles)
	}
	return in, err
}

// polluxSpeedNoise is the relative noise of a measured speed of a Pollux
// job, as of the simulate-testbed's measured profiles.
const polluxSpeedNoise = 0.02
