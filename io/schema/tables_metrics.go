package schema

// The tables of `optimus metrics`: All lists them after the others.

// Progress is what `optimus metrics` read of each job: how far it is and
// which of its logged metrics is its convergence metric.
var Progress = &Table{
	Name:    "progress",
	Version: 1,
	Doc: "One row per job whose logs `optimus metrics` read: the steps it has trained and which of its logged tags " +
		"is its convergence metric (the loss table's points). With --jobs, metrics also writes the jobs table with " +
		"progress_steps set from here, which predict and fit read.",
	Key: "job",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Job."},
		{Name: "progress_steps", Type: Int64, Unit: "steps", Required: true, Min: zero,
			Doc: "Steps trained: the largest last step of any tag, once points superseded by a restart are dropped."},
		{Name: "metric", Type: String, Nullable: true,
			Doc: "The tag read as the convergence metric; null when no logged tag is one (see docs/metrics.md)."},
		{Name: "higher_is_better", Type: Bool, Default: "false", Doc: "The metric grows as the job converges (an accuracy)."},
		{Name: "loss_points", Type: Int64, Required: true, Min: zero, Doc: "Points of the metric written to the loss table."},
		{Name: "speed_samples", Type: Int64, Required: true, Min: zero, Doc: "Rows written to the speed table."},
		{Name: "step_tag", Type: String, Nullable: true, Doc: "The tag whose steps and times measured speed; null when none has times."},
		{Name: "superseded", Type: Int64, Default: "0", Min: zero,
			Doc: "Points dropped because a later run (a restart from a checkpoint) logged the same steps again."},
		{Name: "skipped", Type: Int64, Default: "0", Min: zero, Doc: "Records or lines skipped as unreadable (each named on standard error)."},
		{Name: "files", Type: Int64, Required: true, Min: zero, Doc: "Log files read."},
	},
}

// ConfigChanges records when each job started running with a number of
// parameter servers and workers, so that speed measured from its logs is
// attributed to the configuration that produced it.
var ConfigChanges = &Table{
	Name:    "config_changes",
	Version: 1,
	Doc: "One row per start of a job at a configuration (a scheduling round that started or resized it), as " +
		"`optimus metrics --configs` reads it: the speed logged from start_s until the job's next row is attributed to ps and workers.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
		{Name: "start_s", Type: Float64, Unit: "s", Required: true, Min: zero,
			Doc: "When the job started with this configuration, in seconds since the Unix epoch (the time its logs carry)."},
		{Name: "ps", Type: Int64, Required: true, Min: zero, Doc: "Parameter servers from then on (0 for allreduce)."},
		{Name: "workers", Type: Int64, Required: true, Min: zero, Doc: "Workers from then on (0: the job stopped)."},
	},
}
