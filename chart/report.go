package chart

import (
	"fmt"
	"strings"

	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// ReportFile is one table given to the report, for its list of inputs.
type ReportFile struct {
	Flag, Path string
	Table      *table.Table
}

// ReportInputs are the tables of one pipeline run; any may be nil.
// Allocations[0] is the allocation the run applies; the others (baseline
// policies on the same predictions) are drawn beside it.
type ReportInputs struct {
	Files                            []ReportFile
	Loss, Speed, Models, Suggestions *table.Table
	Predictions, Plan, Cluster       *table.Table
	// SpeedEval and ConvergenceEval are optimus eval's cross-validated
	// errors of the models, or nil.
	SpeedEval, ConvergenceEval *table.Table
	Allocations                []*table.Table
	// Simulation holds optimus simulate's tables as the simulation kind
	// reads them (Main: sim_jobs; "allocations", "utilisation"), or nil.
	Simulation Tables
}

// Report builds the page of one pipeline run: what it was given, the
// decision for every job with its reasons, and the charts of every kind
// its tables allow.
func Report(in ReportInputs) (*Page, error) {
	p := &Page{Title: "optimus report"}
	if len(in.Allocations) > 0 && nonEmpty(in.Allocations[0]) {
		p.Headline = append(p.Headline, allocHeadline(in.Allocations)...)
	}
	if nonEmpty(in.Plan) {
		p.Headline = append(p.Headline, planHeadline(in.Plan)...)
	}
	if jobs := in.Simulation.One(Main); nonEmpty(jobs) {
		p.Headline = append(p.Headline, simHeadline(jobs)[1:]...)
	}
	p.Lead = append(p.Lead, reportLead(in)...)
	p.Sections = append(p.Sections, inputsSection(in.Files))
	if len(in.Allocations) > 0 {
		p.Sections = append(p.Sections, decisionsSection(in.Allocations[0], in.Plan))
	} else if in.Predictions != nil {
		p.Sections = append(p.Sections, &Section{ID: "decisions", Heading: "Decisions per job",
			Empty: "No allocation table was given (--allocation): there are no decisions to explain."})
	}
	add := func(secs []*Section, err error) error {
		if err != nil {
			return err
		}
		p.Sections = append(p.Sections, secs...)
		return nil
	}
	if len(in.Allocations) > 0 && nonEmpty(in.Allocations[0]) {
		if err := add(allocationSections(in.Allocations, in.Cluster)); err != nil {
			return nil, err
		}
	}
	if nonEmpty(in.Plan) {
		if err := add(planSections(in.Plan, in.Cluster)); err != nil {
			return nil, err
		}
	}
	if nonEmpty(in.Loss) {
		preds := in.Predictions
		if preds == nil && len(in.Allocations) > 0 {
			preds = in.Allocations[0] // an allocation is a predictions table too
		}
		sec, err := lossSection(in.Loss, in.Models, preds)
		if err != nil {
			return nil, err
		}
		p.Sections = append(p.Sections, reportCap(sec, "loss"))
	}
	if nonEmpty(in.Speed) {
		p.Sections = append(p.Sections, reportCap(speedSection(in.Speed, in.Models, in.Suggestions), "speed"))
	}
	if in.ConvergenceEval != nil {
		p.Sections = append(p.Sections, evalConvergenceSection(in.ConvergenceEval))
	}
	if in.SpeedEval != nil {
		p.Sections = append(p.Sections, evalSpeedSection(in.SpeedEval))
	}
	if jobs := in.Simulation.One(Main); jobs != nil {
		if jobs.NumRows() == 0 {
			p.Sections = append(p.Sections, &Section{ID: "simulation", Heading: "Simulation",
				Empty: fmt.Sprintf("The %s table %s is empty (0 rows): no simulated job to draw.", jobs.Name, sourceName(jobs))})
			return p, nil
		}
		p.Sections = append(p.Sections, &Section{ID: "simulation", Heading: "Simulation", Text: []string{simLead(jobs) +
			" Policies replayed on a simulated cluster: how long jobs take under each, what they get and how much of the cluster they use."}})
		if err := add(simulationSections(in.Simulation)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func nonEmpty(t *table.Table) bool { return t != nil && t.NumRows() > 0 }

func reportLead(in ReportInputs) []string {
	lead := []string{"One run of the optimus pipeline (fit → predict → solve → place): the tables it was given, what it decided for every job and why, and charts of the fits, the allocation and the placement" +
		map[bool]string{true: ", and of a simulation of the policies (optimus simulate)", false: ""}[in.Simulation.One(Main) != nil] +
		". Everything here comes from the tables listed below; the page works offline."}
	if len(in.Allocations) == 0 {
		return lead
	}
	a := in.Allocations[0]
	row := policySummary(policyName(a), a)
	s := fmt.Sprintf("Policy %s: %s of %d jobs run, %s wait, with %s tasks in all; the mean predicted completion of the jobs that run is %s.",
		row[0], row[1], a.NumRows(), row[2], row[3], row[4])
	for _, b := range in.Allocations[1:] {
		r := policySummary(policyName(b), b)
		s += fmt.Sprintf(" %s: %s run, %s wait, mean of those that run %s.", r[0], r[1], r[2], r[4])
	}
	return append(lead, s)
}

func inputsSection(files []ReportFile) *Section {
	g := &Grid{Header: []string{"flag", "file", "table", "schema version", "rows", "columns"},
		Numeric: []bool{false, false, false, true, true, true}}
	for _, f := range files {
		name, version := f.Table.Name, "-"
		if name == "" {
			name = "(unknown)"
		}
		if f.Table.Version > 0 {
			version = fmt.Sprint(f.Table.Version)
		}
		g.Rows = append(g.Rows, []string{"--" + f.Flag, f.Path, name, version, fmt.Sprint(f.Table.NumRows()), fmt.Sprint(f.Table.NumCols())})
	}
	return &Section{ID: "inputs", Heading: "Inputs and outputs", Grid: g,
		Text: []string{"The tables this report was made from: the pipeline's inputs (loss, speed, cluster) and what its steps wrote (models, predictions, allocation, plan)."}}
}

// decisionsSection explains the allocation job by job.
func decisionsSection(a, plan *table.Table) *Section {
	if a.NumRows() == 0 {
		return &Section{ID: "decisions", Heading: "Decisions per job", Empty: fmt.Sprintf("The allocation table %s is empty (0 rows): no job to decide for.", sourceName(a))}
	}
	jobs, status, reason := a.Strings(col.Job), a.Strings(col.Status), a.Strings(col.Reason)
	prog, es := a.Int64s(col.ProgressSteps), a.Int64s(col.EpochSteps)
	r10, r50, r90 := a.Float64s(col.RemainingStepsP10), a.Float64s(col.RemainingStepsP50), a.Float64s(col.RemainingStepsP90)
	src := a.Strings(col.RemainingSource)
	nowP, nowW, ps, ws := a.Int64s(col.PS), a.Int64s(col.Workers), a.Int64s(col.AllocPS), a.Int64s(col.AllocWorkers)
	speed, comp := a.Float64s(col.AllocSpeed), a.Float64s(col.AllocCompletionS)
	gain, next := a.Float64s(col.AllocGain), a.Float64s(col.AllocNextGain)
	changed := a.Bools(col.AllocChanged)
	placed := map[string]string{}
	if plan != nil {
		pj, servers, method := plan.Strings(col.Job), plan.Int64s(col.JobServers), plan.Strings(col.JobMethod)
		pstatus, preason := plan.Strings(col.Status), plan.Strings(col.Reason)
		for i, j := range pj {
			if _, ok := placed[j]; ok {
				continue
			}
			s := pstatus[i]
			if servers[i] > 0 {
				s = fmt.Sprintf("%d node%s (%s)", servers[i], map[bool]string{true: "", false: "s"}[servers[i] == 1], method[i])
			}
			if preason[i] != "" {
				s += ": " + preason[i]
			}
			placed[j] = s
		}
	}
	header := []string{"job", "status", "progress", "remaining steps: median (p10–p90)", "now → decided (PS + workers)", "predicted speed", "predicted completion", "last marginal gain", "next gain", "why"}
	numeric := []bool{false, false, true, true, true, true, true, true, true, false}
	if plan != nil {
		header = append(header[:9], "placed", "why")
		numeric = append(numeric[:9], false, false)
	}
	g := &Grid{Header: header, Numeric: numeric}
	for i, j := range jobs {
		progress := fmt.Sprintf("%d steps", prog[i])
		if prog[i] == 0 {
			progress = "not started"
		} else if es[i] > 0 {
			progress += fmt.Sprintf(" (epoch %.1f)", float64(prog[i])/float64(es[i]))
		}
		remaining := fmt.Sprintf("%s (%s–%s)", num(r50[i]), num(r10[i]), num(r90[i]))
		if src[i] != "" {
			remaining += ", from " + src[i]
		}
		alloc := fmt.Sprintf("%d+%d → %d+%d", nowP[i], nowW[i], ps[i], ws[i])
		if changed[i] {
			alloc += " (restart)"
		}
		sp := "-"
		if finite(speed[i]) {
			sp = num(speed[i]) + " steps/s"
		}
		why := reason[i]
		if why == "" && status[i] == "running" {
			why = "runs with what it asked for"
		}
		row := []string{j, status[i], progress, remaining, alloc, sp, duration(comp[i]), num(gain[i]), num(next[i])}
		if plan != nil {
			row = append(row, placed[j])
		}
		g.Rows = append(g.Rows, append(row, why))
	}
	return &Section{ID: "decisions", Heading: "Decisions per job (" + policyName(a) + ")", Grid: g, Text: []string{
		"For every job: how far it is, how much work the fitted convergence curve says is left, what it runs with now and what it gets, the speed and completion time that gives, and why it got no more (or waits).",
		"Codes in the table. Remaining steps \"from\": fit (the job's own convergence fit, leaning on its model family's finished jobs by its prior weight), model (its own fit was poor or insufficient: the median of its family's better fits), budget (the user's epoch budget), schedule (its declared schedule's end), cap (the epoch cap: the fit had not converged by then), unknown. " +
			"\"(restart)\": the decided PS + workers differ from what the job runs with, so it restarts from a checkpoint. " +
			"Placed \"(method)\": even (the paper's placement: the fewest nodes that hold the same number of PS and of workers each), fallback (no even split fitted: tasks placed one by one, first fit), kept (the tasks stay on the nodes they run on), solve (where solve's node-level check fitted them, when the placement's own left the job waiting or short), or the name of another placement policy's method (docs/solve-place.md).",
		"The marginal gain of a task is the weighted seconds of remaining time it saves per unit of the task's dominant share of the cluster: optimus adds, one at a time, the task with the largest gain. \"Last\" is the gain of the last task the job got; \"next\" is what one more would gain (positive: it would help but did not fit; not positive: it would not help).",
	}}
}

// maxReportJobCharts is the most per-job charts (convergence, speed) of one
// kind the report draws, so that a report of many jobs stays a page one
// can read: `optimus chart KIND` draws up to MaxJobCharts.
const maxReportJobCharts = 12

// reportCap keeps the first maxReportJobCharts charts of a per-job
// section, and says so in place of what the kind's own page would say.
func reportCap(sec *Section, kind string) *Section {
	if len(sec.Charts) <= maxReportJobCharts {
		return sec
	}
	var text []string
	for _, t := range sec.Text {
		if !strings.HasPrefix(t, "Showing the first ") {
			text = append(text, t)
		}
	}
	sec.Text = append(text, fmt.Sprintf("The report shows the first %d jobs' charts, in table order; optimus chart %s draws up to %d, and --job picks others.",
		maxReportJobCharts, kind, MaxJobCharts))
	sec.Charts = sec.Charts[:maxReportJobCharts]
	return sec
}
