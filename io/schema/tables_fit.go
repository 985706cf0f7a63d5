package schema

// Suggestions lists the configurations `optimus fit suggest` advises
// measuring next.
var Suggestions = &Table{
	Name:    "suggestions",
	Version: 2, // 2: allreduce (ps 0, nodes)
	Doc:     "One row per configuration to measure next, per job, in the order to measure them.",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "Job."},
		{Name: "rank", Type: Int64, Required: true, Min: one, Doc: "Order of measurement, from 1."},
		{Name: "ps", Type: Int64, Required: true, Min: zero, Doc: "Parameter servers to run with (0 for allreduce)."},
		{Name: "workers", Type: Int64, Required: true, Min: one, Doc: "Workers to run with."},
		{Name: "nodes", Type: Int64, Nullable: true, Min: one, Doc: "For allreduce: nodes to spread the workers over; null for parameter-server jobs."},
		{Name: "identifiable", Type: Bool, Required: true,
			Doc: "Whether the measurements so far plus this and the earlier suggestions determine every speed-model coefficient."},
	},
}

// SpeedEval is the cross-validated accuracy of the speed model.
var SpeedEval = &Table{
	Name:    "speed_eval",
	Version: 1,
	Doc: "One row per job (or model): the speed model fitted on a few sampled configurations and scored on every " +
		"other measured configuration (optimus eval speed).",
	Key: "key",
	Columns: []Column{
		{Name: "key", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "The job or model the measurements belong to."},
		{Name: "mode", Type: String, Required: true, Enum: modes, Doc: "Speed model form."},
		{Name: "configs", Type: Int64, Required: true, Min: zero, Doc: "Configurations measured (failed runs included)."},
		{Name: "sampled", Type: Int64, Required: true, Min: zero, Doc: "Configurations the model was fitted on, per trial."},
		{Name: "sampling", Type: String, Required: true, Enum: []string{"suggest", "random"}, Doc: "How they were chosen."},
		{Name: "trials", Type: Int64, Required: true, Min: zero, Doc: "Samples drawn (random sampling), whose errors are pooled."},
		{Name: "failed", Type: Int64, Required: true, Min: zero, Doc: "Failed runs among the sampled configurations, over all trials."},
		{Name: "predicted", Type: Int64, Required: true, Min: zero, Doc: "Predictions scored, over all trials."},
		{Name: "median_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "Median |predicted - measured| / measured."},
		{Name: "p90_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "90th percentile of the relative error."},
		{Name: "max_rel_err", Type: Float64, Nullable: true, Min: zero, Doc: "Largest relative error."},
		{Name: "sampled_configs", Type: String, Nullable: true, Doc: "The (last trial's) sampled configurations, as p:w pairs."},
		{Name: "note", Type: String, Nullable: true, Doc: "Why there is no figure, when there is none."},
	},
}

// ConvergenceEval is the accuracy of the convergence prediction.
var ConvergenceEval = &Table{
	Name:    "convergence_eval",
	Version: 1,
	Doc: "One row per curve and observed fraction: the convergence epoch predicted from the first epochs against the " +
		"epoch at which the whole curve meets the rule (optimus eval convergence).",
	Columns: []Column{
		{Name: "job", Type: String, Required: true, NonEmpty: true, Doc: "The curve (job)."},
		{Name: "model", Type: String, Nullable: true, Doc: "Its model family (from --jobs), whose other curves form the prior."},
		{Name: "fraction", Type: Float64, Required: true, Min: zero, Doc: "Share of the epochs observed."},
		{Name: "observed_epochs", Type: Int64, Unit: "epochs", Required: true, Min: zero, Doc: "Epochs observed."},
		{Name: "epochs", Type: Int64, Unit: "epochs", Required: true, Min: zero, Doc: "Epochs in the whole curve."},
		{Name: "true_epoch", Type: Int64, Unit: "epochs", Required: true, Min: zero,
			Doc: "Epoch from which the whole curve, smoothed to be monotone, falls by no more than the threshold over every later window."},
		{Name: "censored", Type: Bool, Required: true, Doc: "The curve was still falling faster at its end: the truth lies beyond it."},
		{Name: "pred_epoch_p10", Type: Int64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted convergence epoch, 10th percentile."},
		{Name: "pred_epoch_p50", Type: Int64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted convergence epoch, median."},
		{Name: "pred_epoch_p90", Type: Int64, Unit: "epochs", Nullable: true, Min: zero, Doc: "Predicted convergence epoch, 90th percentile."},
		{Name: "epoch_error", Type: Float64, Unit: "epochs", Nullable: true, Doc: "pred_epoch_p50 - true_epoch (null when censored or not predicted)."},
		{Name: "covered", Type: Bool, Nullable: true, Doc: "The truth lies in [p10, p90] (censored: p90 lies beyond the curve's end and pred_final is no worse than true_final)."},
		{Name: "interval_width", Type: Float64, Unit: "epochs", Nullable: true, Min: zero, Doc: "pred_epoch_p90 - pred_epoch_p10."},
		{Name: "prior_weight", Type: Float64, Nullable: true, Min: zero, Doc: "How much the prediction leans on the other curves of its family (0: the fit alone)."},
		{Name: "floor_epoch", Type: Int64, Unit: "epochs", Nullable: true, Min: zero, Doc: "The earliest epoch the observed log still allows (one past its last fall faster than the rule's); 0 when too short to tell."},
		{Name: "true_final", Type: Float64, Nullable: true, Doc: "The smoothed metric at true_epoch, in its own units."},
		{Name: "pred_final", Type: Float64, Nullable: true, Doc: "The fitted metric at pred_epoch_p50."},
		{Name: "quality", Type: String, Nullable: true, Enum: qualities, Doc: "The fit's quality verdict (see models); poor when the fit predicted convergence before floor_epoch."},
		{Name: "r2", Type: Float64, Nullable: true, Doc: "The fit's R2."},
		{Name: "autocorr", Type: Float64, Nullable: true, Doc: "The fit's residual autocorrelation."},
		{Name: "note", Type: String, Nullable: true, Doc: "Why there is no prediction, when there is none."},
	},
}
