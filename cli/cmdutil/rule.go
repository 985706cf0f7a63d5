package cmdutil

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/fit"
)

// AddRuleFlags registers the convergence rule's flags (--threshold,
// --window, --cap) on a command that applies it, with fit.DefaultRule's
// values as defaults.
func AddRuleFlags(flags *pflag.FlagSet, r *fit.Rule) {
	*r = fit.DefaultRule
	flags.Float64Var(&r.Threshold, "threshold", fit.DefaultRule.Threshold,
		"converged when the loss falls by at most this share of its starting value over --window epochs")
	flags.IntVar(&r.Window, "window", fit.DefaultRule.Window, "epochs over which the fall is measured")
	flags.IntVar(&r.Cap, "cap", fit.DefaultRule.Cap, "most epochs a job runs")
}

// MaxRuleEpochs bounds --window and --cap: far beyond any training run,
// and far from where epoch arithmetic (window + 1, last + cap) overflows.
const MaxRuleEpochs = 1_000_000

// CheckRule rejects a rule that cannot be applied, as a usage error naming
// the flag that is wrong.
func CheckRule(r fit.Rule) error {
	switch {
	case !(r.Threshold > 0) || math.IsInf(r.Threshold, 1):
		return Usagef("--threshold %v: give a finite share > 0 of the starting loss", r.Threshold)
	case r.Window < 1 || r.Window > MaxRuleEpochs:
		return Usagef("--window %d: give a number of epochs from 1 to %d", r.Window, MaxRuleEpochs)
	case r.Cap < r.Window || r.Cap > MaxRuleEpochs:
		return Usagef("--cap %d: give a number of epochs from --window (%d) to %d", r.Cap, r.Window, MaxRuleEpochs)
	}
	return nil
}
