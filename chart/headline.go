package chart

import (
	"fmt"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// The key numbers at the top of each page (Page.Headline). Each says what
// it covers: a mean over the jobs that run names how many wait, a figure
// over seeds gives their spread.

// allocHeadline sums up each allocation (policy): the jobs it runs and
// leaves waiting, and the mean predicted completion of those that run,
// saying how many that leaves out.
func allocHeadline(allocs []*table.Table) []Figure {
	var out []Figure
	for n, name := range policyNames(allocs) {
		if n == 6 {
			break
		}
		row := policySummary(name, allocs[n])
		note := "mean predicted completion " + row[4]
		if !strings.Contains(row[4], " over ") && row[4] != "-" {
			note += fmt.Sprintf(" over all %d jobs", allocs[n].NumRows())
		}
		out = append(out, Figure{Label: name, Value: row[1] + " run, " + row[2] + " wait", Note: note})
	}
	return out
}

// planHeadline counts what the plan placed.
func planHeadline(plan *table.Table) []Figure {
	placed, job, node := plan.Valid(col.Node), plan.Strings(col.Job), plan.Strings(col.Node)
	tasks := 0
	jobs, nodes, all := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i := range job {
		all[job[i]] = true
		if placed[i] {
			tasks++
			jobs[job[i]], nodes[node[i]] = true, true
		}
	}
	return []Figure{
		{Label: "tasks placed", Value: fmt.Sprint(tasks), Note: fmt.Sprintf("of %d jobs, on %d nodes", len(jobs), len(nodes))},
		{Label: "jobs not placed", Value: fmt.Sprint(len(all) - len(jobs)), Note: fmt.Sprintf("of %d in the plan", len(all))},
	}
}

// qualityHeadline counts the models table's verdicts of one model (loss,
// speed): quality column q.
func qualityHeadline(models *table.Table, what string, q col.Name) Figure {
	if models == nil {
		return Figure{Label: what + " fits", Value: "-", Note: "no models table (--models)"}
	}
	count := map[string]int{}
	for _, v := range models.Strings(q) {
		if v == "" {
			v = "none"
		}
		count[v]++
	}
	var parts []string
	for _, k := range []string{"fair", "poor", "insufficient", "none"} {
		if count[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
		}
	}
	return Figure{Label: what + " fits good", Value: fmt.Sprintf("%d of %d", count["good"], models.NumRows()), Note: strings.Join(parts, ", ")}
}

// lossHeadline adds how many predictions were borrowed from a family.
func lossHeadline(loss, models, preds *table.Table) []Figure {
	jobs, _ := groups(loss.Strings(col.Job))
	out := []Figure{{Label: "jobs", Value: fmt.Sprint(len(jobs)), Note: "with loss points"}, qualityHeadline(models, "convergence", col.LossQuality)}
	if preds != nil {
		n := 0
		for _, s := range preds.Strings(col.RemainingSource) {
			if s == "model" {
				n++
			}
		}
		out = append(out, Figure{Label: "convergence borrowed", Value: fmt.Sprint(n), Note: "from the model family (own fit poor or insufficient)"})
	}
	return out
}

// simHeadline is optimus' mean JCT and makespan against drf's, beside the
// paper's, and its prediction error, for the first knowledge simulated.
func simHeadline(jobs *table.Table) []Figure {
	lines, seeds := simLines(jobs), simSeeds(jobs)
	distinct, _ := groups(jobs.Strings(col.Job))
	out := []Figure{{Label: "jobs simulated", Value: fmt.Sprint(len(distinct)), Note: fmt.Sprintf("%s × %s", plural(len(lines), "policy run"), plural(len(seeds), "seed"))}}
	o := -1
	for k, l := range lines {
		if l.policy == "optimus" {
			o = k
			break
		}
	}
	if o < 0 {
		return out
	}
	l := lines[o]
	rows := rowsOf(jobs, -1)
	runs := runStats(jobs, rows)
	status, jct := jobs.Strings(col.Status), jobs.Float64s(col.JCTS)
	var j []float64
	for _, i := range rows[l] {
		if status[i] == "finished" && finite(jct[i]) {
			j = append(j, jct[i])
		}
	}
	out = append(out, Figure{Label: "optimus mean JCT (" + l.knowledge + ")", Value: duration(mean(j)),
		Note: fmt.Sprintf("%d of %d jobs finished%s", len(j), len(rows[l]), spread(runs[l], func(x seedRun) float64 { return x.meanJCT }, duration))})
	if r := againstDRF(runs, l, func(x seedRun) float64 { return x.meanJCT }); r != "-" {
		out = append(out, Figure{Label: "mean JCT, × shorter than drf", Value: strings.SplitN(r, " ", 2)[0], Note: "paper 2.39×" + seedSpread(r)})
	}
	if r := againstDRF(runs, l, func(x seedRun) float64 { return x.makespan }); r != "-" {
		out = append(out, Figure{Label: "makespan, × shorter than drf", Value: strings.SplitN(r, " ", 2)[0], Note: "paper 1.63×" + seedSpread(r)})
	}
	if e := jobPredErr(jobs)[l]; len(e) > 0 {
		slices.Sort(e)
		out = append(out, Figure{Label: "median prediction error", Value: percent(fit.Median(e)), Note: fmt.Sprintf("of remaining time, over %d finished jobs", len(e))})
	}
	return out
}

// seedSpread is "; seeds lo–hi" from againstDRF's "r (lo–hi)".
func seedSpread(r string) string {
	if _, s, ok := strings.Cut(r, " ("); ok {
		return "; seeds " + strings.TrimSuffix(s, ")")
	}
	return ""
}
