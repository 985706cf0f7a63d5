package schema

// All lists every table, in the order the pipeline produces them.
var All = []*Table{Cluster, Jobs, Loss, Speed, Models, Suggestions, Predictions, Allocation, Plan, Actions, Truth, PSBlocks, PSAssignment, PSBalance, SpeedEval, ConvergenceEval,
	Progress, ConfigChanges,
	Workload, Profiles, ProfileSpeeds, SimJobs, SimAllocations, SimUtilisation, SimSummary, SimComparison}

var modes = []string{"sync", "async", "allreduce"}

// Cluster is the capacity of every node: one row per node, one float column
// per resource.
var Cluster = &Table{
	Name:    "cluster",
	Version: 1,
	Doc: "One row per node (server). Every numeric column other than `node` is a resource capacity " +
		"and counts as a resource everywhere (jobs then need `worker_<resource>` and `ps_<resource>` demands). " +
		"The usual ones are `gpu` (devices), `cpu` (cores), `memory_gb` and `net_gbps`. " +
		"Other string or bool columns (labels, zones) are carried through and ignored.",
	Key: "node",
	Columns: []Column{
		{Name: "node", Type: String, Required: true, Unique: true, NonEmpty: true,
			Doc: "Node name, as the executor knows it (a Kubernetes node name)."},
	},
	Patterns: []Pattern{
		{Prefix: "", Type: Float64, Min: zero,
			Doc:   "Capacity of one resource on this node, in the resource's own unit (gpu: devices, cpu: cores, memory_gb: GB, net_gbps: Gbit/s).",
			Known: []string{"gpu", "cpu", "memory_gb", "net_gbps"}},
	},
	MinPatternColumns: 1,
}

// Jobs describes every training job: what it trains, how far it is, what it
// runs with now, and what one of its tasks needs.
var Jobs = &Table{
	Name:    "jobs",
	Version: 2, // 2: mode allreduce
	Doc: "One row per training job. Per-task demands come as `worker_<resource>` and `ps_<resource>` " +
		"columns, one pair for each resource column of the cluster table (a missing pair is an error where the " +
		"cluster is known).",
	Key: "job",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true,
			Doc: "Job name, unique in the table."},
		{Name: "model", Type: String, Required: true, NonEmpty: true,
			Doc: "Model family (resnet-50, vgg-16, ...); jobs of one family may share measurements."},
		{Name: "mode", Type: String, Required: true, Enum: modes,
			Doc: "Training mode: `sync` or `async` (parameter servers), or `allreduce` (one worker per GPU, no PS: ps stays 0); selects the speed model."},
		{Name: "global_batch", Type: Int64, Unit: "examples", Required: true, Min: one,
			Doc: "Examples per step over all workers (M in the synchronous speed model)."},
		{Name: "epoch_steps", Type: Int64, Unit: "steps", Required: true, Min: one,
			Doc: "Steps in one epoch (dataset size / global batch)."},
		{Name: "arrival_s", Type: Float64, Unit: "s", Default: "0", Min: zero,
			Doc: "Submission time; earlier jobs are served first where order matters."},
		{Name: "weight", Type: Float64, Default: "1", Min: zero, MinOpen: true, Max: million,
			Doc: "Importance in the objective (sum of weight x completion time)."},
		{Name: "epoch_budget", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, MinOpen: true,
			Doc: "The user's own stopping point; when set it wins over the predicted convergence epoch."},
		{Name: "progress_steps", Type: Int64, Unit: "steps", Default: "0", Min: zero,
			Doc: "Steps trained so far."},
		{Name: "ps", Type: Int64, Default: "0", Min: zero,
			Doc: "Parameter servers running now (0 when the job is not running)."},
		{Name: "workers", Type: Int64, Default: "0", Min: zero,
			Doc: "Workers running now (0 when the job is not running)."},
		{Name: "max_ps", Type: Int64, Nullable: true, Min: one,
			Doc: "Most parameter servers the job may get; null for no limit."},
		{Name: "max_workers", Type: Int64, Nullable: true, Min: one,
			Doc: "Most workers the job may get; null for no limit."},
		{Name: "image", Type: String, Nullable: true,
			Doc: "Container image of the job's tasks (for apply)."},
		{Name: "command", Type: String, Nullable: true,
			Doc: "Command of the job's tasks (for apply), as one string, split into arguments as a shell splits words (quotes group, no shell runs; docs/apply.md)."},
		{Name: "schedule_end_steps", Type: Int64, Unit: "steps", Nullable: true, Min: one,
			Doc: "Where the job's declared learning-rate schedule ends (a cosine or linear-decay horizon): the job converges there, and predict takes it over any fit."},
	},
	Patterns: []Pattern{
		{Prefix: "worker_", Type: Float64, Min: zero,
			Doc: "What one worker needs of resource `<resource>` (same unit as the cluster column)."},
		{Prefix: "ps_", Type: Float64, Min: zero,
			Doc: "What one parameter server needs of resource `<resource>`."},
	},
}

// Loss holds training-loss (or validation-metric) observations.
var Loss = &Table{
	Name:    "loss",
	Version: 1,
	Doc: "One row per observation of a job's training loss or validation metric. " +
		"NaN or infinite values are allowed here: the fitter drops and counts them.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true,
			Doc: "Job the point belongs to."},
		{Name: "step", Type: Int64, Unit: "steps", Required: true, Min: zero,
			Doc: "Training step at which the value was taken; increasing within a job."},
		{Name: "value", Type: Float64, Required: true, Nullable: true, AllowNaN: true,
			Doc: "Loss (lower is better) or metric (see higher_is_better)."},
		{Name: "higher_is_better", Type: Bool, Default: "false",
			Doc: "True for metrics such as accuracy, which are fitted on their complement."},
	},
}

// Speed holds measured training speeds at given numbers of parameter servers
// and workers.
var Speed = &Table{
	Name:    "speed",
	Version: 2, // 2: mode allreduce, ps 0, nodes, local_batch
	Doc: "One row per speed measurement. A speed of 0 or NaN is a failed run: the fitter excludes and counts it. " +
		"mode and global_batch may be given here or come from the jobs table.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true,
			Doc: "Job measured."},
		{Name: "ps", Type: Int64, Required: true, Min: zero,
			Doc: "Parameter servers during the measurement (>= 1; 0 for allreduce)."},
		{Name: "workers", Type: Int64, Required: true, Min: one,
			Doc: "Workers during the measurement."},
		{Name: "speed", Type: Float64, Unit: "steps/s", Required: true, Nullable: true, AllowNaN: true, Min: zero,
			Doc: "Measured training speed of the whole job."},
		{Name: "mode", Type: String, Nullable: true, Enum: modes,
			Doc: "sync or async, when not taken from the jobs table."},
		{Name: "global_batch", Type: Int64, Unit: "examples", Nullable: true, Min: one,
			Doc: "Global batch size, when not taken from the jobs table."},
		{Name: "nodes", Type: Int64, Nullable: true, Min: one,
			Doc: "For allreduce: nodes the workers spanned; null for one node."},
		{Name: "local_batch", Type: Float64, Unit: "examples", Nullable: true, Min: zero, MinOpen: true,
			Doc: "For allreduce: per-GPU batch of the measurement, when it is not global_batch / workers."},
	},
}

var qualities = []string{"good", "fair", "poor", "insufficient"}

// Models holds each job's fitted convergence and speed models.
var Models = &Table{
	Name:    "models",
	Version: 2, // 2: speed_mode allreduce
	Doc: "One row per job: the fitted convergence model l(k) = 1/(b0*k + b1) + b2 over normalised values, with " +
		"what predict needs for its uncertainty, and the fitted speed model (docs/models.md), with their quality. " +
		"Normalised values are (the metric, or its complement for higher-is-better metrics) divided by loss_scale; " +
		"k counts steps.",
	Key: "job",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Job."},
		{Name: "loss_method", Type: String, Nullable: true,
			Doc: "How the convergence model was fitted (b2-search+nnls); null when it was not."},
		{Name: "loss_higher_is_better", Type: Bool, Default: "false",
			Doc: "The values were a higher-is-better metric, fitted on their complement."},
		{Name: "loss_complement", Type: Float64, Nullable: true, Min: zero,
			Doc: "For a higher-is-better metric, the value it was subtracted from (1, or 100 for percentages); null for a loss."},
		{Name: "loss_scale", Type: Float64, Nullable: true, Min: zero, MinOpen: true,
			Doc: "Divisor of the normalisation: the first finite (complemented) value."},
		{Name: "loss_b0", Type: Float64, Nullable: true, Min: zero, Unit: "1/steps", Doc: "b0 of the best fit."},
		{Name: "loss_b1", Type: Float64, Nullable: true, Min: zero, Doc: "b1 of the best fit."},
		{Name: "loss_b2", Type: Float64, Nullable: true, Min: zero, Doc: "b2 of the best fit: the normalised loss it tends to."},
		{Name: "loss_cov_b0b0", Type: Float64, Nullable: true, Doc: "Covariance of (b0, b1, b2) by the Laplace approximation: var(b0)."},
		{Name: "loss_cov_b0b1", Type: Float64, Nullable: true, Doc: "cov(b0, b1)."},
		{Name: "loss_cov_b0b2", Type: Float64, Nullable: true, Doc: "cov(b0, b2)."},
		{Name: "loss_cov_b1b1", Type: Float64, Nullable: true, Doc: "var(b1)."},
		{Name: "loss_cov_b1b2", Type: Float64, Nullable: true, Doc: "cov(b1, b2)."},
		{Name: "loss_cov_b2b2", Type: Float64, Nullable: true, Doc: "var(b2)."},
		{Name: "loss_first50_b0", Type: Float64, Nullable: true, Min: zero, Unit: "1/steps", Doc: "b0 of the fit to the first half of the points (for the drift allowance)."},
		{Name: "loss_first50_b1", Type: Float64, Nullable: true, Min: zero, Doc: "b1 of the fit to the first half of the points (for the drift allowance)."},
		{Name: "loss_first50_b2", Type: Float64, Nullable: true, Min: zero, Doc: "b2 of the fit to the first half of the points (for the drift allowance): the normalised loss it tends to."},
		{Name: "loss_first75_b0", Type: Float64, Nullable: true, Min: zero, Unit: "1/steps", Doc: "b0 of the fit to the first three quarters of the points."},
		{Name: "loss_first75_b1", Type: Float64, Nullable: true, Min: zero, Doc: "b1 of the fit to the first three quarters of the points."},
		{Name: "loss_first75_b2", Type: Float64, Nullable: true, Min: zero, Doc: "b2 of the fit to the first three quarters of the points: the normalised loss it tends to."},
		{Name: "loss_last50_b0", Type: Float64, Nullable: true, Min: zero, Unit: "1/steps", Doc: "b0 of the fit to the second half of the points."},
		{Name: "loss_last50_b1", Type: Float64, Nullable: true, Min: zero, Doc: "b1 of the fit to the second half of the points."},
		{Name: "loss_last50_b2", Type: Float64, Nullable: true, Min: zero, Doc: "b2 of the fit to the second half of the points: the normalised loss it tends to."},
		{Name: "loss_points", Type: Int64, Default: "0", Min: zero, Doc: "Points used by the fit."},
		{Name: "loss_dropped", Type: Int64, Default: "0", Min: zero, Doc: "Points dropped: non-finite values and outliers."},
		{Name: "loss_first_step", Type: Int64, Unit: "steps", Nullable: true, Min: zero, Doc: "First step used."},
		{Name: "loss_last_step", Type: Int64, Unit: "steps", Nullable: true, Min: zero, Doc: "Last step used."},
		{Name: "loss_r2", Type: Float64, Nullable: true, Doc: "Coefficient of determination of the fit (unweighted, normalised units)."},
		{Name: "loss_rmse", Type: Float64, Nullable: true, Min: zero, Doc: "Root mean square error (normalised units)."},
		{Name: "loss_autocorr", Type: Float64, Nullable: true, Doc: "Lag-1 autocorrelation of the residuals: near 0 for noise, near 1 when the curve is not 1/k-shaped."},
		{Name: "loss_quality", Type: String, Nullable: true, Enum: qualities,
			Doc: "Verdict: good (R2 >= 0.95, autocorr < 0.5), fair (R2 >= 0.8, autocorr < 0.75), poor, or insufficient (fewer than 3 usable points)."},
		{Name: "loss_note", Type: String, Nullable: true, Doc: "Why there is no fit, when there is none."},
		{Name: "speed_mode", Type: String, Nullable: true, Enum: modes, Doc: "Speed model form."},
		{Name: "speed_global_batch", Type: Int64, Nullable: true, Min: one, Unit: "examples", Doc: "M in the sync model."},
		{Name: "speed_theta0", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta0 (sync and allreduce: compute time per example, s; async: constant time per step, s)."},
		{Name: "speed_theta1", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta1 (sync and allreduce: constant overhead per step, s; async: push/pull time x w/p)."},
		{Name: "speed_theta2", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta2 (sync: push/pull time x w/p; async: per-worker overhead; allreduce: all-reduce time within a node)."},
		{Name: "speed_theta3", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta3 (sync: per-worker overhead; async: per-PS overhead; allreduce: extra all-reduce time across nodes)."},
		{Name: "speed_theta4", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta4 (sync: per-PS overhead; allreduce: across-node all-reduce time per worker beyond 2; null for async)."},
		{Name: "speed_samples", Type: Int64, Default: "0", Min: zero, Doc: "Speed samples used."},
		{Name: "speed_failed", Type: Int64, Default: "0", Min: zero, Doc: "Samples excluded as failed runs (speed 0 or NaN)."},
		{Name: "speed_identifiable", Type: Bool, Default: "false", Doc: "The measured configurations determine every coefficient (see optimus fit suggest)."},
		{Name: "speed_median_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "Median |predicted - measured| / measured over the samples."},
		{Name: "speed_max_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "Largest relative error over the samples."},
		{Name: "speed_quality", Type: String, Nullable: true, Enum: qualities,
			Doc: "Verdict: good (median error <= 5%, max <= 15%), fair (<= 10%, <= 30%), poor, or insufficient (fewer samples than coefficients, or not identifiable)."},
		{Name: "speed_note", Type: String, Nullable: true, Doc: "Why there is no speed model, when there is none."},
	},
}

// Predictions is a jobs table with each job's predicted remaining work and
// speed model added by `optimus predict`.
var Predictions = &Table{
	Name:    "predictions",
	Version: 1,
	Doc: "A jobs table with, for each job, the predicted total and remaining work (10th, 50th, 90th percentiles), " +
		"its speed model, its speed now and its ETA. Further `speed_at_<p>_<w>` columns hold predicted speeds at " +
		"configurations asked for with --at.",
	Key:     "job",
	Extends: "jobs",
	Columns: []Column{
		{Name: "remaining_steps_p10", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps, 10th percentile."},
		{Name: "remaining_steps_p50", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps, median: Q in the paper."},
		{Name: "remaining_steps_p90", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps, 90th percentile."},
		{Name: "total_epochs_p10", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted total epochs, 10th percentile."},
		{Name: "total_epochs_p50", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted total epochs, median."},
		{Name: "total_epochs_p90", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted total epochs, 90th percentile."},
		{Name: "remaining_source", Type: String, Nullable: true, Enum: []string{"budget", "schedule", "fit", "cap", "model", "unknown"},
			Doc: "Where the remaining work comes from: the user's epoch budget, the declared schedule's end (schedule_end_steps), the job's own fit (leaning on finished jobs of its model by prior_weight), the epoch cap (the fit had not converged by then), " +
				"the median of other jobs of the same model (the job's own fit is insufficient), or unknown."},
		{Name: "speed_theta0", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta0 (sync and allreduce: compute time per example, s; async: constant time per step, s)."},
		{Name: "speed_theta1", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta1 (sync and allreduce: constant overhead per step, s; async: push/pull time x w/p)."},
		{Name: "speed_theta2", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta2 (sync: push/pull time x w/p; async: per-worker overhead; allreduce: all-reduce time within a node)."},
		{Name: "speed_theta3", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta3 (sync: per-worker overhead; async: per-PS overhead; allreduce: extra all-reduce time across nodes)."},
		{Name: "speed_theta4", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta4 (sync: per-PS overhead; allreduce: across-node all-reduce time per worker beyond 2; null for async)."},
		{Name: "prior_weight", Type: Float64, Nullable: true, Min: zero, Max: one,
			Doc: "How much total_epochs lean on the job's model family (finished jobs' epochs): 0 for the job's own fit alone, 1 for the family alone; null for a budget, a declared schedule or unknown."},
		{Name: "loss_quality", Type: String, Nullable: true, Enum: qualities, Doc: "Copied from models."},
		{Name: "speed_quality", Type: String, Nullable: true, Enum: qualities, Doc: "Copied from models."},
		{Name: "speed_now", Type: Float64, Unit: "steps/s", Nullable: true, Min: zero, Doc: "Predicted speed at the current ps and workers; null when not running."},
		{Name: "eta_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Predicted time to finish at the current allocation (remaining_steps_p50 / speed_now)."},
	},
}

// Allocation is a predictions table with the decided parameter servers and
// workers of each job added by `optimus solve`.
var Allocation = &Table{
	Name:    "allocation",
	Version: 1,
	Doc: "A predictions table with the allocation decided by `optimus solve` for each job: how many parameter " +
		"servers and workers it gets, what that is predicted to give, and the figures that explain the decision " +
		"(docs/solve-place.md describes the policies).",
	Key:     "job",
	Extends: "predictions",
	Columns: []Column{
		{Name: "alloc_policy", Type: String, Nullable: true, Values: AllocPolicies, Enum: noAllocPolicy,
			Doc: "Allocation policy that decided (optimus solve --policy; docs/solve-place.md describes each)."},
		{Name: "alloc_ps", Type: Int64, Required: true, Min: zero, Doc: "Parameter servers decided (0 when waiting or done)."},
		{Name: "alloc_workers", Type: Int64, Required: true, Min: zero, Doc: "Workers decided (0 when waiting or done)."},
		{Name: "alloc_speed", Type: Float64, Unit: "steps/s", Nullable: true, Min: zero,
			Doc: "Predicted speed f(alloc_ps, alloc_workers); null when the job does not run."},
		{Name: "alloc_completion_s", Type: Float64, Unit: "s", Nullable: true, Min: zero,
			Doc: "Predicted remaining time with the allocation: remaining steps / alloc_speed; null when the job does not run."},
		{Name: "alloc_gain", Type: Float64, Unit: "s/share", Nullable: true,
			Doc: "optimus: marginal gain of the last task added to the job (weight x seconds of remaining time saved, per unit of the task's dominant share of the cluster); null when it got only its first PS and worker, or for other policies."},
		{Name: "alloc_next_gain", Type: Float64, Unit: "s/share", Nullable: true,
			Doc: "optimus: marginal gain of the best further task the job did not get (not positive: it would not help; positive: it did not fit); null when at its limits or for other policies."},
		{Name: "alloc_dominant_share", Type: Float64, Default: "0", Min: zero,
			Doc: "Largest share of any cluster resource (total capacity) that the job's allocation takes."},
		{Name: "alloc_changed", Type: Bool, Default: "false",
			Doc: "The job runs now (ps, workers > 0) and its allocation changes: applying the plan restarts it from a checkpoint."},
		{Name: "alloc_change_saves_s", Type: Float64, Unit: "s", Nullable: true,
			Doc: "For a job running now: its remaining time at the current allocation minus at the decided one (negative when the change slows it down to make room for others); null otherwise."},
		{Name: "alloc_nodes", Type: String, Nullable: true,
			Doc: "Where solve's node-level capacity check (--capacity nodes, the default) fitted the job's tasks, as a JSON array of " +
				"{\"node\", \"ps\", \"workers\"} objects; optimus place falls back to it when its own placement would leave a job waiting or short. " +
				"Null for a job not running, and with --capacity aggregate."},
		{Name: "status", Type: String, Required: true, Enum: []string{"running", "waiting", "done"},
			Doc: "running (at least 1 PS and 1 worker), waiting (nothing this round; see reason) or done (no remaining steps)."},
		{Name: "reason", Type: String, Nullable: true,
			Doc: "Why the job waits, or what limited its allocation per role (its maximum, no further gain, cluster full, no node has room), or why a running job keeps its allocation (restart cost)."},
	},
}

// Plan places every task of every job on a node.
var Plan = &Table{
	Name:    "plan",
	Version: 1,
	Doc: "One row per task placed by `optimus place`, with the node it runs on and what it uses there; a job " +
		"with no task placed (waiting or done) has one row with role, index and node null. Per-job columns " +
		"(job_*) repeat on each of the job's rows.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
		{Name: "role", Type: String, Nullable: true, Enum: []string{"ps", "worker"}, Doc: "ps or worker; null on the row of a job with no task placed."},
		{Name: "index", Type: Int64, Nullable: true, Min: zero, Doc: "Task index within the job and role, from 0."},
		{Name: "node", Type: String, Nullable: true, Doc: "Node the task runs on; null on the row of a job with no task placed."},
		{Name: "kept", Type: Bool, Default: "false",
			Doc: "The task stays on the node it runs on now (its job's allocation did not change; see place --current)."},
		{Name: "status", Type: String, Default: "running", Enum: []string{"running", "waiting", "done"},
			Doc: "The job's status after placement: running (at least 1 PS and 1 worker placed), waiting or done."},
		{Name: "reason", Type: String, Nullable: true,
			Doc: "Why the job waits, or why it runs with fewer tasks than allocated."},
		{Name: "job_ps", Type: Int64, Default: "0", Min: zero, Doc: "Parameter servers of the job placed."},
		{Name: "job_workers", Type: Int64, Default: "0", Min: zero, Doc: "Workers of the job placed."},
		{Name: "job_servers", Type: Int64, Default: "0", Min: zero, Doc: "Distinct nodes the job's tasks use."},
		{Name: "job_method", Type: String, Nullable: true, Values: PlaceMethods, Enum: noPlaceMethod,
			Doc: "How the job's tasks were placed: kept (left where they ran), solve (where solve's node-level check fitted them, alloc_nodes, when the optimus policy's own placement left a job waiting or short), or the method of the placement policy that placed them (optimus place --policy; docs/solve-place.md says which policy writes which); null when the job does not run."},
		{Name: "job_even", Type: Bool, Default: "false",
			Doc: "The job's tasks lie evenly: on each of its k nodes the same number of PS and the same number of workers, up to one where p/k or w/k is not whole."},
		{Name: "job_cross_traffic", Type: Float64, Nullable: true, Min: zero,
			Doc: "Estimated share of the job's PS-worker traffic that crosses servers: 1 - sum over nodes of (PS there x workers there) / (PS x workers), every worker exchanging equal shares with every PS; null when the job does not run."},
	},
	Patterns: []Pattern{
		{Prefix: "", Type: Float64, Min: zero, Doc: "What the task uses of each cluster resource (0 on a job row with no task)."},
	},
}

// Actions records what `optimus apply` did.
var Actions = &Table{
	Name:    "actions",
	Version: 1,
	Doc:     "One row per action apply took (or would take) to bring the cluster to the plan.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
		{Name: "action", Type: String, Required: true, Enum: []string{"start", "stop", "resize", "move"}, Doc: "What was done."},
		{Name: "role", Type: String, Nullable: true, Enum: []string{"ps", "worker"}, Doc: "Task role, when the action is about one task."},
		{Name: "index", Type: Int64, Nullable: true, Min: zero, Doc: "Task index."},
		{Name: "node", Type: String, Nullable: true, Doc: "Node concerned."},
		{Name: "outcome", Type: String, Required: true, Enum: []string{"done", "failed", "skipped", "planned"}, Doc: "done, failed, skipped (nothing to do) or planned (dry run)."},
		{Name: "message", Type: String, Nullable: true, Doc: "What the executor said."},
	},
}

// Truth is the ground truth behind a generated dataset: what the scheduler
// should learn from the loss and speed tables. Simulators and oracle
// baselines read it; schedulers must not.
var Truth = &Table{
	Name:    "truth",
	Version: 1,
	Doc:     "Ground truth of a generated dataset, one row per job: the true convergence curve and speed model.",
	Key:     "job",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Job."},
		{Name: "loss_b0", Type: Float64, Required: true, Min: zero, Unit: "1/steps", Doc: "True b0 of the (unnormalised) loss curve."},
		{Name: "loss_b1", Type: Float64, Required: true, Min: zero, Doc: "True b1."},
		{Name: "loss_b2", Type: Float64, Required: true, Min: zero, Doc: "True b2 (final loss)."},
		{Name: "loss_noise", Type: Float64, Required: true, Min: zero, Doc: "Relative standard deviation of the observation noise."},
		{Name: "converge_epoch", Type: Float64, Unit: "epochs", Required: true, Min: zero, Doc: "Epoch at which the true curve meets the convergence rule."},
		{Name: "total_steps", Type: Float64, Unit: "steps", Required: true, Min: zero, Doc: "Steps to convergence (converge_epoch x epoch_steps)."},
		{Name: "speed_theta0", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta0 (sync and allreduce: compute time per example, s; async: constant time per step, s)."},
		{Name: "speed_theta1", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta1 (sync and allreduce: constant overhead per step, s; async: push/pull time x w/p)."},
		{Name: "speed_theta2", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta2 (sync: push/pull time x w/p; async: per-worker overhead; allreduce: all-reduce time within a node)."},
		{Name: "speed_theta3", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta3 (sync: per-worker overhead; async: per-PS overhead; allreduce: extra all-reduce time across nodes)."},
		{Name: "speed_theta4", Type: Float64, Nullable: true, Min: zero,
			Doc: "Speed model coefficient theta4 (sync: per-PS overhead; allreduce: across-node all-reduce time per worker beyond 2; null for async)."},
	},
}
