package solve

// Optimus is the paper's marginal-gain greedy (section 4.1), with the
// stability rule of Solve: the default policy.
const Optimus Policy = "optimus"

// restartCostKnob is Options.RestartCost.
var restartCostKnob = &Knob{
	Flag: "restart-cost",
	Usage: "what a restart (checkpoint, stop, restore) costs a running job, in `SECONDS`; " +
		"its allocation changes only when the predicted gain beats it (0: re-solve from scratch, as the paper)",
	Value: func(o *Options) FlagValue { return floatFlag{&o.RestartCost} },
	Check: nonNegative(func(o *Options) *float64 { return &o.RestartCost }, "give a number of seconds >= 0"),
}

func init() {
	registerPolicy(&PolicyEntry{
		Name:  Optimus,
		Order: 1,
		Short: "the paper's marginal-gain greedy",
		Long: "the paper's greedy: every job 1 PS + 1 worker in arrival order, then the task " +
			"(PS or worker, of any job) with the largest marginal gain, (weighted remaining " +
			"time saved) / (task's dominant share of the cluster), until no gain is positive " +
			"or nothing fits; a running job's allocation changes only when the gain beats " +
			"--restart-cost",
		Knobs: []*Knob{restartCostKnob},
		plan:  func(in *instance, opts Options) *plan { return in.stableGreedy(opts.RestartCost) },
	})
}
