package cmdutil

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// BindSolveFlags binds solve.Options onto fs, each flag's default the value
// in o: --capacity and the knob of every registered allocation policy
// (--restart-cost, --tetris-srtf, --baseline-cap, the Tiresias
// thresholds, ...). `optimus solve` and `optimus simulate` both bind their
// options with it, so a knob has one name, one help and one check
// (solve.Options.Validate) in both. The policy flag is the command's own:
// solve takes one (--policy, see PolicyUsage), simulate a list
// (--policies).
func BindSolveFlags(fs *pflag.FlagSet, o *solve.Options) {
	fs.StringVar((*string)(&o.Capacity), "capacity", string(o.Capacity),
		"check allocations against the `CHECK`: nodes (every task fits on some node) or aggregate (the cluster's totals only, as the paper)")
	for _, k := range solve.Knobs() {
		fs.Var(k.Value(o), k.Flag, solve.KnobUsage(k))
	}
}

// BindPlaceFlags binds place.Options' knobs onto fs (--candidates), each
// flag's default the value in o, for `optimus place` and `optimus
// simulate`; the policy flag is the command's own (place --policy,
// simulate --placement).
func BindPlaceFlags(fs *pflag.FlagSet, o *place.Options) {
	fs.IntVar(&o.Candidates, "candidates", o.Candidates,
		"`N` nodes with the most free capacity considered per job before a first-fit search over all (optimus, spread)")
}

// Choice is one value of a flag with its description, for help text.
type Choice struct{ Name, Doc string }

// SolvePolicies are the allocation policies of the registry with their
// paragraphs, for help text.
func SolvePolicies() []Choice {
	var out []Choice
	for _, e := range solve.PolicyEntries() {
		out = append(out, Choice{string(e.Name), e.Long})
	}
	return out
}

// PlacePolicies are the placement policies of the registry with their
// paragraphs, for help text.
func PlacePolicies() []Choice {
	var out []Choice
	for _, e := range place.PolicyEntries() {
		out = append(out, Choice{string(e.Name), e.Long})
	}
	return out
}

// DescribeChoices lays out choices for a command's long help: each name in
// a column, its description wrapped beside it to width columns.
//
//	optimus  the paper's greedy: every job 1 PS + 1 worker in arrival
//	         order, then ...
func DescribeChoices(choices []Choice, width int) string {
	col := 0
	for _, c := range choices {
		col = max(col, len(c.Name))
	}
	indent := 2 + col + 2
	var b strings.Builder
	for _, c := range choices {
		line := "  " + c.Name + strings.Repeat(" ", col-len(c.Name)+2)
		n := 0
		for _, word := range strings.Fields(c.Doc) {
			if n > 0 && len(line)+1+len(word) > width {
				b.WriteString(line + "\n")
				line, n = strings.Repeat(" ", indent), 0
			}
			if n > 0 {
				line += " "
			}
			line += word
			n++
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
