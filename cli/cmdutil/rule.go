package cmdutil

import (
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

// CheckRule rejects a rule that cannot be applied, as a usage error.
func CheckRule(r fit.Rule) error {
	if !(r.Threshold > 0) || r.Window < 1 || r.Cap < r.Window {
		return Usagef("need --threshold > 0, --window >= 1 and --cap >= --window")
	}
	return nil
}
