package schema

// The simulator's tables (optimus simulate): its inputs (workload,
// profiles) and outputs (sim_jobs, sim_allocations, sim_utilisation,
// sim_summary, sim_comparison). All lists them after the pipeline's own tables.

var (
	// Workload is the jobs a simulation replays.
	Workload = &Table{
		Name:    "workload",
		Version: 1,
		Doc: "One row per job that arrives during a simulation (optimus simulate), in arrival order. " +
			"Per-task demands come as `worker_<resource>` and `ps_<resource>` columns, one pair for each resource column " +
			"of the cluster. `mode` is open to new values (all-reduce jobs later); the simulator says which it supports.",
		Key: "job",
		Columns: []Column{
			{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Job name, unique in the workload."},
			{Name: "model", Type: String, Required: true, NonEmpty: true, Doc: "Model family: the row of the profiles table that holds the job's true speed and loss curve."},
			{Name: "mode", Type: String, Required: true, NonEmpty: true, Doc: "Training mode: `sync` or `async` (parameter-server jobs); must be the profile's speed_mode."},
			{Name: "global_batch", Type: Int64, Unit: "examples", Required: true, Min: one, Doc: "Examples per step over all workers (M of the sync speed model)."},
			{Name: "epoch_steps", Type: Int64, Unit: "steps", Required: true, Min: one, Doc: "Steps in one epoch."},
			{Name: "arrival_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Submission time; rows must not decrease."},
			{Name: "weight", Type: Float64, Default: "1", Min: zero, MinOpen: true, Doc: "Importance in the optimus objective."},
			{Name: "epoch_budget", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, MinOpen: true,
				Doc: "The user's stopping point; null: the job trains until its true loss curve meets the convergence rule (the convergence target)."},
			{Name: "speed_scale", Type: Float64, Required: true, Min: zero, MinOpen: true,
				Doc: "The job's own speed relative to its profile (a data pipeline or hardware lot of its own); 1 for the profile's. Required, which also tells a workload from a jobs table."},
			{Name: "convergence_scale", Type: Float64, Default: "1", Min: zero, MinOpen: true,
				Doc: "Stretches the profile's loss curve in epochs: 2 converges about twice as late."},
			{Name: "max_ps", Type: Int64, Nullable: true, Min: one, Doc: "Most parameter servers the job may get; null for no limit."},
			{Name: "max_workers", Type: Int64, Nullable: true, Min: one, Doc: "Most workers the job may get; null for no limit."},
		},
		Patterns: []Pattern{
			{Prefix: "worker_", Type: Float64, Min: zero, Doc: "What one worker needs of resource `<resource>`."},
			{Prefix: "ps_", Type: Float64, Min: zero, Doc: "What one parameter server needs of resource `<resource>`."},
		},
	}

	// Profiles is the truth behind each model family of a workload.
	Profiles = &Table{
		Name:    "profiles",
		Version: 1,
		Doc: "One row per model family: its true speed function and true loss curve, which the simulator trains jobs " +
			"with and the scheduler under test never sees (except with --oracle). `kind` says how the speed is described: " +
			"`ps`, the parameter-server speed model of the speed_theta columns; `measured`, the family's rows of the " +
			"profile_speeds table (interpolated between measured configurations), the speed_theta columns then holding the " +
			"speed model closest to them, which the oracle plans with.",
		Key: "model",
		Columns: []Column{
			{Name: "model", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Model family."},
			{Name: "kind", Type: String, Default: "ps", NonEmpty: true, Doc: "How the speed is described: `ps` (speed_mode with speed_theta0..4) or `measured` (profile_speeds)."},
			{Name: "speed_mode", Type: String, Required: true, NonEmpty: true, Doc: "`sync` or `async`: the form of the speed model (see models)."},
			{Name: "speed_theta0", Type: Float64, Required: true, Min: zero, Doc: "θ0 of the true speed model (the job's global_batch is M)."},
			{Name: "speed_theta1", Type: Float64, Required: true, Min: zero, Doc: "θ1."},
			{Name: "speed_theta2", Type: Float64, Required: true, Min: zero, Doc: "θ2."},
			{Name: "speed_theta3", Type: Float64, Required: true, Min: zero, Doc: "θ3."},
			{Name: "speed_theta4", Type: Float64, Default: "0", Min: zero, Doc: "θ4 (sync only)."},
			{Name: "loss_b0", Type: Float64, Unit: "1/epochs", Required: true, Min: zero, MinOpen: true,
				Doc: "b0 of the true loss curve l(e) = 1/(b0·e + b1) + b2, e in epochs."},
			{Name: "loss_b1", Type: Float64, Required: true, Min: zero, MinOpen: true, Doc: "b1: the loss at the start is 1/b1 + b2."},
			{Name: "loss_b2", Type: Float64, Required: true, Min: zero, Doc: "b2: the loss the curve tends to."},
			{Name: "loss_drops", Type: String, Nullable: true,
				Doc: "A step learning-rate schedule: the epochs (comma-separated, increasing) at which the loss's excess over b2 falls to loss_drop_factor of itself; " +
					"a job without a budget then trains until the convergence rule is met after the last drop. Null: a plain 1/k curve."},
			{Name: "loss_drop_factor", Type: Float64, Default: "0.5", Min: zero, MinOpen: true, Doc: "What is left of the excess loss at each drop (below 1)."},
			{Name: "loss_noise", Type: Float64, Default: "0.03", Min: zero, Doc: "Relative (log-normal) noise of a logged loss value."},
			{Name: "speed_noise", Type: Float64, Default: "0.02", Min: zero, Doc: "Relative (log-normal) noise of a measured speed."},
		},
	}

	// ProfileSpeeds holds the measured speeds of the measured profiles.
	ProfileSpeeds = &Table{
		Name:    "profile_speeds",
		Version: 1,
		Doc: "One row per measured configuration of a model family whose profile is of kind `measured`: the true speed " +
			"there (scaled by each job's speed_scale). Unmeasured configurations take the inverse-distance-weighted mean " +
			"of the 4 nearest measured ones; beyond the measured range p and w are clamped to it. A speed of 0 or NaN is a failed run, left out.",
		Columns: []Column{
			{Name: "model", Type: String, Required: true, NonEmpty: true, Doc: "Model family (a row of profiles)."},
			{Name: "ps", Type: Int64, Required: true, Min: one, Doc: "Parameter servers."},
			{Name: "workers", Type: Int64, Required: true, Min: one, Doc: "Workers."},
			{Name: "measured_speed", Type: Float64, Unit: "steps/s", Required: true, Nullable: true, AllowNaN: true, Min: zero, Doc: "Measured speed of the whole job."},
		},
	}

	// SimJobs is what happened to every job in every run.
	SimJobs = &Table{
		Name:    "sim_jobs",
		Version: 1,
		Doc:     "One row per job per simulated run (policy, knowledge, seed).",
		Columns: []Column{
			{Name: "policy", Type: String, Required: true, Values: AllocPolicies, Enum: noAllocPolicy, Doc: "Allocation policy of the run (optimus simulate --policies)."},
			{Name: "knowledge", Type: String, Required: true, Enum: []string{"fitted", "oracle"},
				Doc: "What the scheduler knew: `fitted` (its fits of noisy observations) or `oracle` (the true remaining steps and speed)."},
			{Name: "seed", Type: Int64, Required: true, Min: zero, Doc: "Seed of the run's observation noise."},
			{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
			{Name: "model", Type: String, Required: true, Doc: "Model family."},
			{Name: "status", Type: String, Required: true, Enum: []string{"finished", "unfinished", "never_started"},
				Doc: "finished; unfinished (running or paused at the horizon); never_started."},
			{Name: "reason", Type: String, Nullable: true, Doc: "Why a job did not finish (or never started)."},
			{Name: "arrival_s", Type: Float64, Unit: "s", Required: true, Doc: "Submission time."},
			{Name: "ready_s", Type: Float64, Unit: "s", Required: true, Doc: "When its profiling runs ended and it could be planned."},
			{Name: "start_s", Type: Float64, Unit: "s", Nullable: true, Doc: "When it first got tasks."},
			{Name: "finish_s", Type: Float64, Unit: "s", Nullable: true, Doc: "When it finished training."},
			{Name: "jct_s", Type: Float64, Unit: "s", Nullable: true, Doc: "Job completion time: finish_s - arrival_s."},
			{Name: "ideal_s", Type: Float64, Unit: "s", Nullable: true,
				Doc: "Its total steps at its fastest allocation within the cluster's totals, no restarts or profiling: a lower bound of jct_s."},
			{Name: "restarts", Type: Int64, Required: true, Min: zero, Doc: "Restarts: changes of its tasks while running, and resumptions after a preemption."},
			{Name: "restart_lost_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Seconds not training because of restarts (checkpoint, stop, restore) and of its first start (--start-cost)."},
			{Name: "profiling_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Seconds of profiling runs at arrival (fitted runs only)."},
			{Name: "total_steps", Type: Float64, Unit: "steps", Required: true, Min: zero, Doc: "Steps it had to train (budget, or its true convergence)."},
			{Name: "progress_steps", Type: Float64, Unit: "steps", Required: true, Min: zero, Doc: "Steps trained by the end."},
			{Name: "pred_err", Type: Float64, Nullable: true, Min: zero,
				Doc: "Median over the rounds it ran in of |predicted / true - 1| of its remaining time (predicted: the scheduler's Q/f at its allocation; true: to its actual finish)."},
			{Name: "pred_rounds", Type: Int64, Required: true, Min: zero, Doc: "Rounds pred_err is taken over."},
		},
	}

	// SimAllocations is every job's allocation in every round.
	SimAllocations = &Table{
		Name:    "sim_allocations",
		Version: 1,
		Doc:     "One row per job planned per scheduling round per run: its allocation and what the scheduler predicted.",
		Columns: []Column{
			{Name: "policy", Type: String, Required: true, Values: AllocPolicies, Enum: noAllocPolicy, Doc: "Allocation policy of the run (optimus simulate --policies)."},
			{Name: "knowledge", Type: String, Required: true, Enum: []string{"fitted", "oracle"},
				Doc: "What the scheduler knew: `fitted` (its fits of noisy observations) or `oracle` (the true remaining steps and speed)."},
			{Name: "seed", Type: Int64, Required: true, Min: zero, Doc: "Seed of the run's observation noise."},
			{Name: "time_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Time of the round."},
			{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
			{Name: "ps", Type: Int64, Required: true, Min: zero, Doc: "Parameter servers placed (0: waiting)."},
			{Name: "workers", Type: Int64, Required: true, Min: zero, Doc: "Workers placed (0: waiting)."},
			{Name: "nodes", Type: Int64, Required: true, Min: zero, Doc: "Distinct nodes its tasks run on."},
			{Name: "restarted", Type: Bool, Required: true, Doc: "Its tasks changed this round: it pays a restart."},
			{Name: "status", Type: String, Nullable: true, Doc: "Verdict of solve and place: running, waiting or done."},
			{Name: "reason", Type: String, Nullable: true, Doc: "Why it waits or what limited it."},
			{Name: "pred_remaining_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Remaining time the scheduler predicted at this allocation."},
			{Name: "true_remaining_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Time from this round to the job's actual finish (null if it did not finish)."},
			{Name: "pred_remaining_steps", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps the scheduler planned with."},
			{Name: "true_remaining_steps", Type: Float64, Unit: "steps", Required: true, Min: zero, Doc: "Remaining steps in truth."},
		},
	}

	// SimUtilisation is the cluster's use in every round.
	SimUtilisation = &Table{
		Name:    "sim_utilisation",
		Version: 1,
		Doc:     "One row per scheduling round per run: jobs running and waiting, and the share of every resource allocated.",
		Columns: []Column{
			{Name: "policy", Type: String, Required: true, Values: AllocPolicies, Enum: noAllocPolicy, Doc: "Allocation policy of the run (optimus simulate --policies)."},
			{Name: "knowledge", Type: String, Required: true, Enum: []string{"fitted", "oracle"},
				Doc: "What the scheduler knew: `fitted` (its fits of noisy observations) or `oracle` (the true remaining steps and speed)."},
			{Name: "seed", Type: Int64, Required: true, Min: zero, Doc: "Seed of the run's observation noise."},
			{Name: "time_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Time of the round."},
			{Name: "running", Type: Int64, Required: true, Min: zero, Doc: "Jobs with tasks."},
			{Name: "waiting", Type: Int64, Required: true, Min: zero, Doc: "Jobs ready but without tasks."},
		},
		Patterns: []Pattern{{Prefix: "util_", Type: Float64, Min: zero, Doc: "Share of the cluster's `<resource>` allocated, 0 to 1."}},
	}

	// SimSummary sums up every run.
	SimSummary = &Table{
		Name:    "sim_summary",
		Version: 1,
		Doc:     "One row per simulated run (policy, knowledge, seed). Ratios compare with the optimus run of the same knowledge and seed.",
		Columns: []Column{
			{Name: "policy", Type: String, Required: true, Values: AllocPolicies, Enum: noAllocPolicy, Doc: "Allocation policy of the run (optimus simulate --policies)."},
			{Name: "knowledge", Type: String, Required: true, Enum: []string{"fitted", "oracle"},
				Doc: "What the scheduler knew: `fitted` (its fits of noisy observations) or `oracle` (the true remaining steps and speed)."},
			{Name: "seed", Type: Int64, Required: true, Min: zero, Doc: "Seed of the run's observation noise."},
			{Name: "jobs", Type: Int64, Required: true, Min: zero, Doc: "Jobs in the workload."},
			{Name: "finished", Type: Int64, Required: true, Min: zero, Doc: "Jobs finished."},
			{Name: "unfinished", Type: Int64, Required: true, Min: zero, Doc: "Jobs started but not finished by the horizon."},
			{Name: "never_started", Type: Int64, Required: true, Min: zero, Doc: "Jobs that never got a task."},
			{Name: "mean_jct_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Mean JCT of the finished jobs."},
			{Name: "median_jct_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Median JCT."},
			{Name: "p95_jct_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "95th percentile of the JCT."},
			{Name: "makespan_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "First arrival to last finish (to the end, when a job is unfinished)."},
			{Name: "jct_ratio", Type: Float64, Nullable: true, Min: zero, Doc: "mean_jct_s / the optimus run's: how much longer jobs take than under optimus."},
			{Name: "makespan_ratio", Type: Float64, Nullable: true, Min: zero, Doc: "makespan_s / the optimus run's."},
			{Name: "restarts", Type: Int64, Required: true, Min: zero, Doc: "Restarts over all jobs."},
			{Name: "restart_lost_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Seconds lost to restarts (and first starts) over all jobs."},
			{Name: "profiling_s", Type: Float64, Unit: "s", Required: true, Min: zero, Doc: "Seconds of profiling over all jobs."},
			{Name: "mean_pred_err", Type: Float64, Nullable: true, Min: zero, Doc: "Mean over finished jobs of pred_err (see sim_jobs)."},
			{Name: "rounds", Type: Int64, Required: true, Min: zero, Doc: "Scheduling rounds simulated."},
		},
		Patterns: []Pattern{{Prefix: "util_", Type: Float64, Min: zero, Doc: "Share of the cluster's `<resource>` allocated over the makespan, 0 to 1."}},
	}

	// SimComparison sums up the runs of each policy over the seeds.
	SimComparison = &Table{
		Name:    "sim_comparison",
		Version: 1,
		Doc: "One row per policy and knowledge: its runs over every seed against the optimus run of the same knowledge and seed " +
			"(optimus simulate --compare). Ratios above 1: jobs take longer than under optimus.",
		Columns: []Column{
			{Name: "policy", Type: String, Required: true, Values: AllocPolicies, Enum: noAllocPolicy, Doc: "Allocation policy of the run (optimus simulate --policies)."},
			{Name: "knowledge", Type: String, Required: true, Enum: []string{"fitted", "oracle"},
				Doc: "What the scheduler knew: `fitted` (its fits of noisy observations) or `oracle` (the true remaining steps and speed)."},
			{Name: "seeds", Type: Int64, Required: true, Min: zero, Doc: "Runs (seeds) summed up."},
			{Name: "mean_jct_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Mean over the seeds of the runs' mean JCT."},
			{Name: "mean_jct_s_min", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Smallest mean JCT of a seed (null for one seed)."},
			{Name: "mean_jct_s_max", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Largest mean JCT of a seed (null for one seed)."},
			{Name: "p95_jct_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Mean over the seeds of the runs' 95th percentile of JCT."},
			{Name: "p95_jct_s_min", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Smallest p95 JCT of a seed (null for one seed)."},
			{Name: "p95_jct_s_max", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Largest p95 JCT of a seed (null for one seed)."},
			{Name: "makespan_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Mean over the seeds of the makespan."},
			{Name: "makespan_s_min", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Smallest makespan of a seed (null for one seed)."},
			{Name: "makespan_s_max", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Largest makespan of a seed (null for one seed)."},
			{Name: "jct_ratio", Type: Float64, Nullable: true, Min: zero, Doc: "Geometric mean over the seeds of jct_ratio (see sim_summary)."},
			{Name: "jct_ratio_min", Type: Float64, Nullable: true, Min: zero, Doc: "Smallest jct_ratio of a seed."},
			{Name: "jct_ratio_max", Type: Float64, Nullable: true, Min: zero, Doc: "Largest jct_ratio of a seed."},
			{Name: "makespan_ratio", Type: Float64, Nullable: true, Min: zero, Doc: "Geometric mean over the seeds of makespan_ratio."},
			{Name: "makespan_ratio_min", Type: Float64, Nullable: true, Min: zero, Doc: "Smallest makespan_ratio of a seed."},
			{Name: "makespan_ratio_max", Type: Float64, Nullable: true, Min: zero, Doc: "Largest makespan_ratio of a seed."},
			{Name: "behind_optimus", Type: Int64, Required: true, Min: zero, Doc: "Seeds in which its mean JCT is longer than optimus'."},
			{Name: "restarts", Type: Float64, Required: true, Min: zero, Doc: "Mean restarts per run."},
			{Name: "unfinished", Type: Int64, Required: true, Min: zero, Doc: "Jobs unfinished or never started, over all seeds."},
		},
	}
)
