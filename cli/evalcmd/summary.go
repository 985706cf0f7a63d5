package evalcmd

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/eval"
	"github.com/optimus-sched/optimus/fit"
)

// summarise writes the summary, overall and by family, to standard error.
func summarise(ios *iostreams.IOStreams, res []eval.ConvergenceResult, fractions []float64) {
	for _, f := range fractions {
		var sel []eval.ConvergenceResult
		for _, r := range res {
			if r.Fraction == f {
				sel = append(sel, r)
			}
		}
		s := summary(sel)
		if s.predicted == 0 {
			cmdutil.Notef(ios, "eval convergence: %.0f%% observed: no curve could be fitted (%d too short)", 100*f, s.failed)
			continue
		}
		cmdutil.Notef(ios, "eval convergence: %.0f%% observed: %d curves predicted (%d not: too few points), interval covers the truth in %d (%.0f%%); uncensored: %d of %d covered (%s), median |epoch error| %s (%s of the truth), mean interval width %s epochs (%s of the truth)",
			100*f, s.predicted, s.failed, s.covered, 100*float64(s.covered)/float64(s.predicted),
			s.uncCovered, s.uncensored, pct(s.uncCovered, s.uncensored), num(s.medErr), pctf(s.medRelErr), num(s.meanWidth), pctf(s.meanRelWidth))
	}
	families := map[string]bool{}
	var order []string
	for _, r := range res {
		if !families[r.Family] {
			families[r.Family] = true
			order = append(order, r.Family)
		}
	}
	slices.Sort(order)
	if len(order) < 2 {
		return
	}
	cmdutil.Notef(ios, "eval convergence: by family (fraction, curves, predicted, uncensored covered, censored covered, median |epoch error|, mean width, mean prior weight):")
	for _, f := range fractions {
		for _, fam := range order {
			var sel []eval.ConvergenceResult
			for _, r := range res {
				if r.Fraction == f && r.Family == fam {
					sel = append(sel, r)
				}
			}
			s := summary(sel)
			name := fam
			if name == "" {
				name = "(none)"
			}
			cmdutil.Notef(ios, "  %-14s %3.0f%%  %3d curves  %3d predicted  %3d/%-3d  %3d/%-3d  err %-6s  width %-6s  prior %.2f",
				name, 100*f, len(sel), s.predicted, s.uncCovered, s.uncensored, s.covered-s.uncCovered, s.predicted-s.uncensored,
				num(s.medErr), num(s.meanWidth), s.meanPrior)
		}
	}
}

type convergenceSummary struct {
	predicted, failed, covered, uncensored, uncCovered    int
	medErr, medRelErr, meanWidth, meanRelWidth, meanPrior float64
}

func summary(res []eval.ConvergenceResult) convergenceSummary {
	var s convergenceSummary
	var errs, rel, widths, relWidths []float64
	for _, r := range res {
		if r.Err != "" {
			s.failed++
			continue
		}
		s.predicted++
		s.meanPrior += r.PriorWeight
		if r.Covered {
			s.covered++
		}
		if r.Censored {
			continue
		}
		s.uncensored++
		if r.Covered {
			s.uncCovered++
		}
		e := math.Abs(r.EpochError())
		errs, widths = append(errs, e), append(widths, r.Width())
		if r.TrueEpoch > 0 {
			rel, relWidths = append(rel, e/float64(r.TrueEpoch)), append(relWidths, r.Width()/float64(r.TrueEpoch))
		}
	}
	s.medErr, s.medRelErr, s.meanWidth, s.meanRelWidth = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if len(errs) > 0 {
		s.medErr, s.meanWidth = fit.Median(errs), mean(widths)
	}
	if len(rel) > 0 {
		s.medRelErr, s.meanRelWidth = fit.Median(rel), mean(relWidths)
	}
	if s.predicted > 0 {
		s.meanPrior /= float64(s.predicted)
	}
	return s
}

func mean(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func pctf(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}
