package schema

// All lists every table, in the order the pipeline produces them.
var All = []*Table{Cluster, Jobs, Loss, Speed, Models, Predictions, Allocation, Plan, Actions, Truth}

var modes = []string{"sync", "async"}

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
			Doc: "Capacity of one resource on this node, in the resource's own unit (gpu: devices, cpu: cores, memory_gb: GB, net_gbps: Gbit/s)."},
	},
	MinPatternColumns: 1,
}

// Jobs describes every training job: what it trains, how far it is, what it
// runs with now, and what one of its tasks needs.
var Jobs = &Table{
	Name:    "jobs",
	Version: 1,
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
			Doc: "Parameter-server training mode: `sync` or `async`; selects the speed model."},
		{Name: "global_batch", Type: Int64, Unit: "examples", Required: true, Min: one,
			Doc: "Examples per step over all workers (M in the synchronous speed model)."},
		{Name: "epoch_steps", Type: Int64, Unit: "steps", Required: true, Min: one,
			Doc: "Steps in one epoch (dataset size / global batch)."},
		{Name: "arrival_s", Type: Float64, Unit: "s", Default: "0", Min: zero,
			Doc: "Submission time; earlier jobs are served first where order matters."},
		{Name: "weight", Type: Float64, Default: "1", Min: zero, MinOpen: true,
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
			Doc: "Command of the job's tasks (for apply), as one string the executor splits on whitespace."},
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
	Version: 1,
	Doc: "One row per speed measurement. A speed of 0 or NaN is a failed run: the fitter excludes and counts it. " +
		"mode and global_batch may be given here or come from the jobs table.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true,
			Doc: "Job measured."},
		{Name: "ps", Type: Int64, Required: true, Min: one,
			Doc: "Parameter servers during the measurement."},
		{Name: "workers", Type: Int64, Required: true, Min: one,
			Doc: "Workers during the measurement."},
		{Name: "speed", Type: Float64, Unit: "steps/s", Required: true, Nullable: true, AllowNaN: true, Min: zero,
			Doc: "Measured training speed of the whole job."},
		{Name: "mode", Type: String, Nullable: true, Enum: modes,
			Doc: "sync or async, when not taken from the jobs table."},
		{Name: "global_batch", Type: Int64, Unit: "examples", Nullable: true, Min: one,
			Doc: "Global batch size, when not taken from the jobs table."},
	},
}

var qualities = []string{"good", "fair", "poor", "insufficient"}

// speedModelColumns are the fitted speed-model coefficients; models carries
// them and predict copies them into predictions, so solve needs no side input.
var speedModelColumns = []Column{
	{Name: "speed_theta0", Type: Float64, Nullable: true, Min: zero,
		Doc: "Speed model coefficient theta0 (sync: compute time per example, s; async: constant time per step, s)."},
	{Name: "speed_theta1", Type: Float64, Nullable: true, Min: zero,
		Doc: "Speed model coefficient theta1 (sync: constant overhead per step, s; async: push/pull time x w/p)."},
	{Name: "speed_theta2", Type: Float64, Nullable: true, Min: zero,
		Doc: "Speed model coefficient theta2 (sync: push/pull time x w/p; async: per-worker overhead)."},
	{Name: "speed_theta3", Type: Float64, Nullable: true, Min: zero,
		Doc: "Speed model coefficient theta3 (sync: per-worker overhead; async: per-PS overhead)."},
	{Name: "speed_theta4", Type: Float64, Nullable: true, Min: zero,
		Doc: "Speed model coefficient theta4 (sync: per-PS overhead; null for async)."},
}

// Models holds each job's fitted convergence and speed models.
var Models = &Table{
	Name:    "models",
	Version: 1,
	Doc: "One row per job: the fitted convergence model l(k) = 1/(b0*k + b1) + b2 over normalised values " +
		"and the fitted speed model (DESIGN.md 1.1, 1.2), with their quality.",
	Key: "job",
	Columns: append([]Column{
		{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Job."},
		{Name: "loss_method", Type: String, Nullable: true,
			Doc: "How the convergence model was fitted; null when it was not."},
		{Name: "loss_higher_is_better", Type: Bool, Default: "false",
			Doc: "The values were a higher-is-better metric, fitted on their complement."},
		{Name: "loss_scale", Type: Float64, Nullable: true, Min: zero, MinOpen: true,
			Doc: "Divisor that normalised the (complemented) values before fitting."},
		{Name: "loss_b0", Type: Float64, Nullable: true, Min: zero, Unit: "1/steps",
			Doc: "Convergence coefficient b0 (normalised units, k in steps)."},
		{Name: "loss_b1", Type: Float64, Nullable: true, Min: zero, Doc: "Convergence coefficient b1."},
		{Name: "loss_b2", Type: Float64, Nullable: true, Min: zero, Doc: "Convergence coefficient b2: the asymptotic normalised loss."},
		{Name: "loss_points", Type: Int64, Default: "0", Min: zero, Doc: "Points used by the fit."},
		{Name: "loss_dropped", Type: Int64, Default: "0", Min: zero, Doc: "Points dropped (non-finite or outliers)."},
		{Name: "loss_last_step", Type: Int64, Unit: "steps", Nullable: true, Min: zero, Doc: "Last step observed."},
		{Name: "loss_r2", Type: Float64, Nullable: true, AllowNaN: true, Doc: "Coefficient of determination of the fit."},
		{Name: "loss_rmse", Type: Float64, Nullable: true, Min: zero, Doc: "Root mean square error (normalised units)."},
		{Name: "loss_quality", Type: String, Nullable: true, Enum: qualities,
			Doc: "Verdict on the convergence fit: good, fair, poor, or insufficient (too few points)."},
		{Name: "speed_mode", Type: String, Nullable: true, Enum: modes, Doc: "Speed model form."},
		{Name: "speed_global_batch", Type: Int64, Nullable: true, Min: one, Unit: "examples", Doc: "M in the sync model."},
	}, append(append([]Column{}, speedModelColumns...),
		Column{Name: "speed_samples", Type: Int64, Default: "0", Min: zero, Doc: "Speed samples used."},
		Column{Name: "speed_failed", Type: Int64, Default: "0", Min: zero, Doc: "Samples excluded as failed runs (speed 0 or NaN)."},
		Column{Name: "speed_median_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "Median |predicted - measured| / measured over the samples."},
		Column{Name: "speed_max_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "Largest relative error over the samples."},
		Column{Name: "speed_quality", Type: String, Nullable: true, Enum: qualities, Doc: "Verdict on the speed fit."},
	)...),
}

// Predictions is a jobs table with each job's predicted remaining work and
// speed model added by `optimus predict`.
var Predictions = &Table{
	Name:    "predictions",
	Version: 1,
	Doc:     "A jobs table with, for each job, the predicted remaining work, its speed model, its speed now and its ETA.",
	Key:     "job",
	Extends: "jobs",
	Columns: append([]Column{
		{Name: "remaining_steps_p10", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps, 10th percentile."},
		{Name: "remaining_steps_p50", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps, median: Q in the paper."},
		{Name: "remaining_steps_p90", Type: Float64, Unit: "steps", Nullable: true, Min: zero, Doc: "Remaining steps, 90th percentile."},
		{Name: "total_epochs_p50", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted total epochs (median)."},
		{Name: "remaining_source", Type: String, Nullable: true, Enum: []string{"budget", "fit", "cap", "unknown"},
			Doc: "Where the remaining work comes from: the user's budget, the fit, the epoch cap, or unknown."},
	}, append(append([]Column{}, speedModelColumns...),
		Column{Name: "loss_quality", Type: String, Nullable: true, Enum: qualities, Doc: "Copied from models."},
		Column{Name: "speed_quality", Type: String, Nullable: true, Enum: qualities, Doc: "Copied from models."},
		Column{Name: "speed_now", Type: Float64, Unit: "steps/s", Nullable: true, Min: zero, Doc: "Predicted speed at the current ps and workers; null when not running."},
		Column{Name: "eta_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Predicted time to finish at the current allocation."},
	)...),
}

// Allocation is a predictions table with the decided parameter servers and
// workers of each job added by `optimus solve`.
var Allocation = &Table{
	Name:    "allocation",
	Version: 1,
	Doc:     "A predictions table with the allocation decided by `optimus solve` for each job.",
	Key:     "job",
	Extends: "predictions",
	Columns: []Column{
		{Name: "alloc_ps", Type: Int64, Required: true, Min: zero, Doc: "Parameter servers decided (0 when waiting)."},
		{Name: "alloc_workers", Type: Int64, Required: true, Min: zero, Doc: "Workers decided (0 when waiting)."},
		{Name: "alloc_speed", Type: Float64, Unit: "steps/s", Nullable: true, Min: zero, Doc: "Predicted speed with the decided allocation."},
		{Name: "alloc_completion_s", Type: Float64, Unit: "s", Nullable: true, Min: zero, Doc: "Predicted time to finish with it."},
		{Name: "alloc_gain", Type: Float64, Nullable: true, AllowNaN: true, Doc: "Marginal gain of the last task the policy added to this job."},
		{Name: "status", Type: String, Required: true, Enum: []string{"running", "waiting"}, Doc: "running or waiting."},
		{Name: "reason", Type: String, Nullable: true, Doc: "Why the job waits, or what limited its allocation."},
	},
}

// Plan places every task of every job on a node.
var Plan = &Table{
	Name:    "plan",
	Version: 1,
	Doc:     "One row per task of the allocation, with the node it runs on and what it uses there.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
		{Name: "role", Type: String, Required: true, Enum: []string{"ps", "worker"}, Doc: "ps or worker."},
		{Name: "index", Type: Int64, Required: true, Min: zero, Doc: "Task index within the job and role, from 0."},
		{Name: "node", Type: String, Required: true, NonEmpty: true, Doc: "Node the task runs on."},
	},
	Patterns: []Pattern{
		{Prefix: "", Type: Float64, Min: zero, Doc: "What the task uses of each cluster resource."},
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
	Columns: append([]Column{
		{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Job."},
		{Name: "loss_b0", Type: Float64, Required: true, Min: zero, Unit: "1/steps", Doc: "True b0 of the (unnormalised) loss curve."},
		{Name: "loss_b1", Type: Float64, Required: true, Min: zero, Doc: "True b1."},
		{Name: "loss_b2", Type: Float64, Required: true, Min: zero, Doc: "True b2 (final loss)."},
		{Name: "loss_noise", Type: Float64, Required: true, Min: zero, Doc: "Relative standard deviation of the observation noise."},
		{Name: "converge_epoch", Type: Float64, Unit: "epochs", Required: true, Min: zero, Doc: "Epoch at which the true curve meets the convergence rule."},
		{Name: "total_steps", Type: Float64, Unit: "steps", Required: true, Min: zero, Doc: "Steps to convergence (converge_epoch x epoch_steps)."},
	}, speedModelColumns...),
}
