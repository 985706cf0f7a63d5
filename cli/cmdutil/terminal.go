package cmdutil

import (
	"fmt"
	"strings"

	"github.com/optimus-sched/optimus/io/table"
)

// terminalColumns are the columns a table shows at a terminal unless --wide
// or --columns says otherwise (as kubectl does): the ones a person reads
// first. Tables not listed, and tables of a few columns, show them all.
var terminalColumns = map[string][]string{
	"jobs": {"job", "model", "mode", "global_batch", "epoch_steps", "epoch_budget", "progress_steps", "ps", "workers"},
	"models": {"job", "loss_quality", "loss_points", "loss_dropped", "loss_r2", "loss_note",
		"speed_mode", "speed_samples", "speed_failed", "speed_median_rel_err", "speed_quality", "speed_note"},
	"predictions": {"job", "model", "progress_steps", "ps", "workers", "total_epochs_p50",
		"remaining_steps_p10", "remaining_steps_p50", "remaining_steps_p90", "remaining_source", "loss_quality", "speed_now", "eta_s"},
	"allocation": {"job", "model", "remaining_steps_p50", "ps", "workers", "alloc_ps", "alloc_workers",
		"alloc_speed", "alloc_completion_s", "alloc_gain", "status", "reason"},
	"plan": {"job", "role", "index", "node", "kept", "status", "job_ps", "job_workers", "job_servers", "job_method", "reason"},
	"sim_summary": {"policy", "knowledge", "seed", "jobs", "finished", "unfinished", "never_started", "mean_jct_s", "median_jct_s",
		"p95_jct_s", "makespan_s", "jct_ratio", "makespan_ratio", "restarts"},
	"sim_jobs": {"policy", "knowledge", "seed", "job", "model", "status", "arrival_s", "start_s", "finish_s", "jct_s", "restarts", "pred_err"},
}

// forTerminal picks the columns shown at a terminal: --columns, else
// (without --wide) the table's terminal columns. It returns the table to
// print and a note on what was left out ("" when nothing was).
func (o *OutputOptions) forTerminal(t *table.Table) (*table.Table, string, error) {
	if len(o.Columns) > 0 {
		for _, c := range o.Columns {
			if !t.Has(c) {
				return nil, "", Usagef("--columns: the %s table has no column %q (it has: %s)", t.Name, c, strings.Join(t.ColumnNames(), ", "))
			}
		}
		s, err := t.Select(o.Columns)
		if err == nil {
			s.Name = t.Name
		}
		return s, "", err
	}
	brief, ok := terminalColumns[t.Name]
	if o.Wide || !ok {
		return t, "", nil
	}
	var keep []string
	for _, c := range brief {
		if t.Has(c) {
			keep = append(keep, c)
		}
	}
	if len(keep) == t.NumCols() {
		return t, "", nil
	}
	s, err := t.Select(keep)
	if err != nil {
		return nil, "", err
	}
	s.Name = t.Name
	return s, fmt.Sprintf("(%d of the %s table's %d columns: --wide shows all, --columns picks)", len(keep), t.Name, t.NumCols()), nil
}
