package solve

// DRF is dominant resource fairness (Ghodsi et al., NSDI 2011), the paper's
// first baseline (baselines.go).
const DRF Policy = "drf"

func init() {
	registerPolicy(&PolicyEntry{
		Name:  DRF,
		Order: 2,
		Short: "dominant resource fairness (the paper's first baseline)",
		Long: "dominant resource fairness: units of 1 PS + 1 worker to the job with the " +
			"smallest dominant share, up to its limits (or --baseline-cap)",
		Knobs: []*Knob{baselineCapKnob},
		plan:  func(in *instance, _ Options) *plan { return in.drf() },
	})
}
