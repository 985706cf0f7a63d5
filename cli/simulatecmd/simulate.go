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
	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/datasets/datatables"
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
	// Sim is the configuration every run starts from, its solve and place
	// options bound by cmdutil.BindSolveFlags and BindPlaceFlags as those of
	// optimus solve and place; each run sets its policy, knowledge and seed.
	// --placement pollux sets Sim.PolluxPlacement instead of a place policy.
	Sim             simulate.Config
	TiresiasOrder   string // arrival or demotion
	OracleRemaining string // with --pollux: truth or pollux
	// PolluxDepartures are modelling choices of Pollux's simulator to
	// depart from with --pollux (datasets.PolluxDepartures).
	PolluxDepartures []string
	Oracle           bool     // shorthand for Knowledge = [oracle]
	Knowledge        []string // fitted, oracle
	Seeds            string
	Parallel         int
	Compare          bool   // write the comparison over seeds rather than the summary
	Dir              string // all four output tables go here
	Output           cmdutil.OutputOptions
	// planRestartCostGiven records that the deprecated --plan-restart-cost
	// was given (Run warns).
	planRestartCostGiven bool
	// Changed reports whether a flag was given (nil: none was, as when
	// Run is called with Options built in code).
	Changed func(flag string) bool
}

// polluxPlacement is --placement's value that places as Pollux's simulator
// does: simulate's own (simulate.Config.PolluxPlacement), not a policy of
// package place, which places any job on any cluster.
const polluxPlacement = "pollux"

// NewCmd returns the cobra command.
func NewCmd(ios *iostreams.IOStreams, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: ios, Sim: simulate.DefaultConfig(solve.Optimus)}
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
	opts.Changed = f.Changed
	f.StringVar(&opts.Cluster, "cluster", "", "read the cluster from `FILE`")
	f.StringVar(&opts.Workload, "workload", "", "read the workload from `FILE`")
	f.StringVar(&opts.Profiles, "profiles", "", "read the model profiles from `FILE`")
	f.StringVar(&opts.ProfileSpeeds, "profile-speeds", "", "read the measured speeds of measured profiles from `FILE`")
	f.StringVar(&opts.Philly, "philly", "", "sample the workload from the Philly trace in `FILE` (CSV)")
	f.IntVar(&opts.PhillyJobs, "philly-jobs", 160, "jobs to sample with --philly (at most the trace's)")
	f.IntVar(&opts.PhillyNodes, "philly-nodes", 16, fmt.Sprintf("nodes of the cluster with --philly (at most %d)", datatables.MaxNodes))
	f.IntVar(&opts.PhillyGPUs, "philly-gpus", 4, fmt.Sprintf("GPUs per node with --philly (at most %d)", datatables.MaxGPUsPerNode))
	f.StringVar(&opts.Pollux, "pollux", "", "replay a workload of Pollux's simulator from `FILE` (CSV: name, time, application, num_replicas, batch_size; workload-1: the embedded one) on its 16 x 4-GPU cluster with its application profiles")
	f.StringSliceVar(&opts.Policies, "policies", []string{"optimus", "drf", "tetris", "fifo"}, "allocation `POLICIES` to run (comma-separated): "+solve.PolicyNames(", "))
	f.StringVar((*string)(&opts.Sim.Place.Policy), "placement", string(opts.Sim.Place.Policy), "placement `POLICY`: "+place.PolicyNames(", ")+"; with --pollux also "+polluxPlacement+" (as Pollux's simulator places jobs)")
	cmdutil.BindSolveFlags(f, &opts.Sim.Solve)
	cmdutil.BindPlaceFlags(f, &opts.Sim.Place)
	restartCostFlags(f, &opts.Sim, &opts.planRestartCostGiven)
	f.Float64Var(&opts.Sim.Interval, "interval", opts.Sim.Interval, "seconds between scheduling rounds")
	f.Float64Var(&opts.Sim.StopCost, "stop-cost", opts.Sim.StopCost, "seconds to checkpoint and stop a job whose tasks change")
	f.Float64Var(&opts.Sim.RestoreCost, "restore-cost", opts.Sim.RestoreCost, "seconds to restore a job from its checkpoint")
	f.Float64Var(&opts.Sim.StartCost, "start-cost", opts.Sim.StartCost, "seconds a job's first start takes before it trains (Pollux's simulator: its restart delay, 30)")
	f.Float64Var(&opts.Sim.SRTFWeight, "srtf-weight", opts.Sim.SRTFWeight, "optimus policy: weight each job's remaining time by (mean T1 / its T1)^`A`, T1 its remaining time on one worker, so the greedy favours short jobs (0: the paper's Optimus)")
	f.StringVar(&opts.OracleRemaining, "oracle-remaining", "truth", "with --pollux and oracle knowledge, the remaining steps the scheduler is told: truth, or pollux (as Pollux's Optimus+Oracle estimates them: the iteration column by whole epochs)")
	f.IntVar(&opts.Sim.PolluxGenerations, "pollux-generations", 0, "generations of the pollux policy's allocation search (0: Pollux's 100)")
	f.BoolVar(&opts.Sim.PolluxNoAvoidance, "pollux-no-avoidance", false, "let the pollux policy put several multi-node jobs on one node (Pollux avoids their interference: one a node)")
	f.BoolVar(&opts.Sim.PolluxNoRestartPenalty, "pollux-no-restart-penalty", false, "drop the pollux policy's restart penalty (Pollux: a changed allocation counts the share of a job's age its restarts lose)")
	f.Var(&baselineRequestFlag{&opts.Sim.BaselineRequest}, "baseline-request", "drf, tetris: run them statically, as the paper's baselines: each job gets `PS:WORKERS` (within its max_ps, max_workers) once they fit, and keeps them on the same nodes until it finishes (empty: elastic, units of 1 PS + 1 worker re-decided every round)")
	f.BoolVar(&opts.Sim.RestartEveryRound, "restart-every-round", false, "every running job checkpoints and restarts at every round, changed or not (--stop-cost + --restore-cost), as the authors' scheduler restarts every job every time slot (not those of static baselines, --baseline-request)")
	f.BoolVar(&opts.Sim.ArriveAtOnce, "arrive-at-once", false, "every job of the workload arrives at 0 s")
	f.StringVar(&opts.TiresiasOrder, "tiresias-order", "arrival", "order within a lower Tiresias queue: arrival, or demotion (when each job reached it, as Pollux's simulator)")
	f.StringSliceVar(&opts.PolluxDepartures, "pollux-depart", nil, "with --pollux, modelling choices of Pollux's simulator to depart from, to measure each: "+strings.Join(polluxDepartureNames, ", "))
	f.IntVar(&opts.Sim.ProfileRuns, "profile-runs", opts.Sim.ProfileRuns, "profiling runs at a job's arrival (not with --oracle)")
	f.Float64Var(&opts.Sim.ProfileRunS, "profile-run-s", opts.Sim.ProfileRunS, "seconds of each profiling run")
	f.Float64Var(&opts.Sim.NoiseScale, "noise", opts.Sim.NoiseScale, "multiplier of the profiles' observation noise (0: noiseless)")
	f.BoolVar(&opts.Oracle, "oracle", false, "give the scheduler the true remaining steps and speed functions (--knowledge oracle)")
	f.StringSliceVar(&opts.Knowledge, "knowledge", []string{"fitted"}, "what the scheduler knows, one run of each: fitted, oracle")
	f.StringVar(&opts.Seeds, "seeds", "1", "seeds to run: a list and ranges, e.g. 1,2,5-8 (at most "+strconv.Itoa(MaxSeeds)+" seeds)")
	f.Float64Var(&opts.Sim.Horizon, "horizon", opts.Sim.Horizon, fmt.Sprintf("seconds after which unfinished jobs are reported unfinished (at most %d rounds of --interval)", simulate.MaxRounds))
	f.IntVar(&opts.Parallel, "parallel", runtime.GOMAXPROCS(0), "runs simulated at once")
	f.BoolVar(&opts.Compare, "compare", false, "write the sim_comparison table (each policy over the seeds) instead of sim_summary")
	opts.Sim.KeepIntervals = true
	f.BoolVar(&opts.Sim.KeepIntervals, "intervals", opts.Sim.KeepIntervals, "record every round's allocations and utilisation (sim_allocations, sim_utilisation in --dir)")
	f.StringVar(&opts.Dir, "dir", "", "also write every output table as Parquet into `DIR`")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// MaxSeeds is the most seeds one simulate runs (each is a run per policy
// and knowledge): it bounds what a list of ranges can ask for.
const MaxSeeds = 10000

// ParseSeeds parses a list of seeds and ranges ("1,2,5-8"): the distinct
// seeds in the order given, at most MaxSeeds of them.
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
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				return nil, fmt.Errorf("--seeds %q: %q is not a range of seeds (FIRST-LAST, e.g. 5-8)", s, part)
			}
			if b < a {
				return nil, fmt.Errorf("--seeds %q: %q is not a range of seeds: it ends before it starts", s, part)
			}
		}
		// Counted down from the range's length, not up to b: b may be
		// the largest uint64, past which x+1 wraps.
		for x, n := a, b-a; ; x, n = x+1, n-1 {
			if !seen[x] {
				if len(out) == MaxSeeds {
					return nil, fmt.Errorf("--seeds %q: more than %d seeds", s, MaxSeeds)
				}
				seen[x] = true
				out = append(out, x)
			}
			if n == 0 {
				break
			}
		}
	}
	return out, nil
}

// Run runs the simulations and writes their tables.
func Run(opts *Options) error {
	opts.Output.MadeDir = opts.Dir
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Dir != "" {
		if err := cmdutil.CheckOutputDir("--dir", opts.Dir); err != nil {
			return err
		}
	}
	seeds, err := ParseSeeds(opts.Seeds)
	if err != nil {
		return cmdutil.Usagef("%v", err)
	}
	if opts.Parallel < 1 {
		return cmdutil.Usagef("--parallel %d: simulate at least 1 run at a time", opts.Parallel)
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
	if opts.planRestartCostGiven {
		cmdutil.Warnf(opts.IO, "--plan-restart-cost is deprecated: use --restart-cost")
	}
	sim := opts.Sim
	if sim.PolluxPlacement = sim.Place.Policy == polluxPlacement; sim.PolluxPlacement {
		if opts.Pollux == "" {
			return cmdutil.Usagef("--placement pollux needs --pollux: it places all-reduce jobs of 1 GPU a worker only")
		}
		sim.Place.Policy = place.Optimus
	}
	// The flags of one input mode, given without it, would be ignored.
	if opts.Philly == "" && opts.Changed != nil {
		for _, f := range []string{"philly-jobs", "philly-nodes", "philly-gpus"} {
			if opts.Changed(f) {
				return cmdutil.Usagef("--%s applies to --philly only", f)
			}
		}
	}
	switch {
	case len(opts.PolluxDepartures) > 0 && opts.Pollux == "":
		return cmdutil.Usagef("--pollux-depart applies to --pollux only")
	case opts.OracleRemaining != "truth" && opts.OracleRemaining != "pollux":
		return cmdutil.Usagef("--oracle-remaining %q: want truth or pollux", opts.OracleRemaining)
	case opts.OracleRemaining == "pollux" && opts.Pollux == "":
		return cmdutil.Usagef("--oracle-remaining pollux needs --pollux")
	case opts.TiresiasOrder != "arrival" && opts.TiresiasOrder != "demotion":
		return cmdutil.Usagef("--tiresias-order %q: want arrival or demotion", opts.TiresiasOrder)
	}
	sim.TiresiasDemotionOrder = opts.TiresiasOrder == "demotion"
	for _, p := range policies {
		sim.Solve.Policy = p
		if err := sim.Validate(); err != nil {
			return cmdutil.Usagef("%v", err)
		}
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
				cfg := sim
				cfg.Solve.Policy, cfg.Oracle, cfg.Seed = p, oracle, seed
				jobs = append(jobs, job{inputs[i], cfg})
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
			return fmt.Errorf("simulate %s, seed %d: %w", jobs[k].cfg.Solve.Policy, jobs[k].cfg.Seed, err)
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

// restartCostFlags explains simulate's default of --restart-cost (bound by
// cmdutil.BindSolveFlags) and makes giving it turn off
// Config.TrueRestartCost; it adds --plan-restart-cost, the hidden
// deprecated name of --restart-cost (-1 there: the default), and records
// in deprecated that it was given. (Not pflag's MarkDeprecated, which
// prints its notice on standard output, into the table.)
func restartCostFlags(f *pflag.FlagSet, sim *simulate.Config, deprecated *bool) {
	rc := f.Lookup("restart-cost")
	rc.Usage += "; in simulate the default is --stop-cost + --restore-cost, what a restart really costs a simulated job, whatever they are set to"
	rc.Value = &givenFlag{Value: rc.Value, given: func() { sim.TrueRestartCost = false }}
	f.Var(&givenFlag{Value: &planRestartCostFlag{sim}, given: func() { *deprecated = true }}, "plan-restart-cost", "deprecated name of --restart-cost (-1: the default)")
	f.Lookup("plan-restart-cost").Hidden = true
}

// baselineRequestFlag is --baseline-request: PS:WORKERS, or empty for
// elastic baselines (simulate.Config.BaselineRequest zero).
type baselineRequestFlag struct{ req *[2]int }

func (b *baselineRequestFlag) Type() string { return "PS:WORKERS" }
func (b *baselineRequestFlag) String() string {
	if b.req[1] == 0 {
		return ""
	}
	return strconv.Itoa(b.req[0]) + ":" + strconv.Itoa(b.req[1])
}
func (b *baselineRequestFlag) Set(s string) error {
	if s == "" {
		*b.req = [2]int{}
		return nil
	}
	ps, w, ok := strings.Cut(s, ":")
	p, err1 := strconv.Atoi(ps)
	n, err2 := strconv.Atoi(w)
	if !ok || err1 != nil || err2 != nil || p < 0 || n < 1 || p > simulate.MaxBaselineRequest || n > simulate.MaxBaselineRequest {
		return fmt.Errorf("want PS:WORKERS, e.g. 2:2 (PS >= 0, WORKERS >= 1, each at most %d)", simulate.MaxBaselineRequest)
	}
	*b.req = [2]int{p, n}
	return nil
}

// givenFlag records that its flag was given.
type givenFlag struct {
	pflag.Value
	given func()
}

func (g *givenFlag) Set(s string) error {
	g.given()
	return g.Value.Set(s)
}

// planRestartCostFlag is --plan-restart-cost: a negative value restores
// the default, any other sets the restart cost.
type planRestartCostFlag struct{ sim *simulate.Config }

func (p *planRestartCostFlag) Type() string { return "float64" }
func (p *planRestartCostFlag) String() string {
	if p.sim.TrueRestartCost {
		return "-1"
	}
	return strconv.FormatFloat(p.sim.Solve.RestartCost, 'g', -1, 64)
}
func (p *planRestartCostFlag) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	if p.sim.TrueRestartCost = x < 0; !p.sim.TrueRestartCost {
		p.sim.Solve.RestartCost = x
	}
	return nil
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
			return nil, table.InvalidInput(err)
		}
	}
	for i, seed := range seeds {
		var named []datatables.Named
		var err error
		if trace != nil {
			named, err = datatables.PhillyWorkload(trace, datatables.PhillyConfig{Jobs: opts.PhillyJobs, Nodes: opts.PhillyNodes, GPUsPerNode: opts.PhillyGPUs, Seed: seed})
			if err != nil {
				return nil, cmdutil.Usagef("--philly-jobs %d, --philly-nodes %d, --philly-gpus %d: %v", opts.PhillyJobs, opts.PhillyNodes, opts.PhillyGPUs, err)
			}
		} else if named, err = datatables.SimTestbed(seed); err != nil {
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

// writeDir writes the tables into dir as <name>.parquet, all or none
// (cmdutil.WriteFiles).
func writeDir(ios *iostreams.IOStreams, dir string, tabs []*table.Table) error {
	paths := make([]string, len(tabs))
	for i, t := range tabs {
		paths[i] = filepath.Join(dir, t.Name+".parquet")
	}
	if err := cmdutil.WriteDir(dir, paths, tabs); err != nil {
		return err
	}
	for i, t := range tabs {
		cmdutil.Summaryf(ios, "wrote %s (%d rows)", paths[i], t.NumRows())
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
		return nil, table.InvalidInput(err)
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
