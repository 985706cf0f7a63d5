package solve

// Tetris packs tasks by the alignment of their demands with the free
// resources, biased to the shortest remaining time (Grandl et al., SIGCOMM
// 2014), the paper's second baseline (baselines.go).
const Tetris Policy = "tetris"

// tetrisSRTFKnob is Options.TetrisSRTFWeight.
var tetrisSRTFKnob = &Knob{
	Flag:  "tetris-srtf",
	Usage: "`WEIGHT` in [0,1] of the shortest-remaining-time bias against the packing score",
	Value: func(o *Options) FlagValue { return floatFlag{&o.TetrisSRTFWeight} },
	Check: func(o *Options) string {
		if !(o.TetrisSRTFWeight >= 0 && o.TetrisSRTFWeight <= 1) {
			return "give a weight in [0, 1]"
		}
		return ""
	},
}

func init() {
	registerPolicy(&PolicyEntry{
		Name:  Tetris,
		Order: 3,
		Short: "packing score plus a shortest-remaining-time bias (the paper's second baseline)",
		Long: "units of 1 PS + 1 worker by packing score plus a shortest-remaining-time " +
			"bias (--tetris-srtf), up to the job's limits (or --baseline-cap)",
		Knobs: []*Knob{baselineCapKnob, tetrisSRTFKnob},
		plan:  func(in *instance, opts Options) *plan { return in.tetris(opts.TetrisSRTFWeight) },
	})
}
