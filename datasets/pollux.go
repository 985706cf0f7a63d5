package datasets

import (
	"bytes"
	"embed"
	"encoding/csv"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

//go:embed data/pollux
var polluxFS embed.FS

// PolluxHigherIsBetter says which Pollux applications report a metric that
// grows as training progresses (accuracy, F1, hit rate) rather than one
// that falls (word error rate, loss).
var PolluxHigherIsBetter = map[string]bool{
	"cifar10": true, "imagenet": true, "bert": true, "ncf": true,
	"yolov3": false, "deepspeech2": false,
}

// ValidationCurve is one validation curve: a metric after each epoch.
type ValidationCurve struct {
	Name           string // "<app>-<global batch>"
	App            string
	GlobalBatch    int
	HigherIsBetter bool
	Metric         []float64 // after epoch 1, 2, ...
	Iteration      []int64
}

// PolluxCurves returns the embedded Pollux validation curves, ordered by
// application and batch size.
func PolluxCurves() ([]ValidationCurve, error) {
	return ReadPolluxCurves(polluxFS, "data/pollux")
}

// ReadPolluxCurves reads validation-<batch>.csv files laid out as
// <root>/<app>/validation-<batch>.csv, as in Pollux's repository.
func ReadPolluxCurves(fsys fs.FS, root string) ([]ValidationCurve, error) {
	files, err := fs.Glob(fsys, path.Join(root, "*", "validation-*.csv"))
	if err != nil {
		return nil, err
	}
	var out []ValidationCurve
	for _, f := range files {
		app := path.Base(path.Dir(f))
		batch, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path.Base(f), "validation-"), ".csv"))
		if err != nil {
			return nil, fmt.Errorf("%s: the name must be validation-<batch size>.csv", f)
		}
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(recs) < 1 || len(recs[0]) < 3 || recs[0][1] != "iteration" || recs[0][2] != "metric" {
			return nil, fmt.Errorf("%s: expected columns progress,iteration,metric,...", f)
		}
		c := ValidationCurve{Name: fmt.Sprintf("%s-%d", app, batch), App: app, GlobalBatch: batch, HigherIsBetter: PolluxHigherIsBetter[app]}
		for i, r := range recs[1:] {
			it, err1 := strconv.ParseFloat(r[1], 64)
			m, err2 := strconv.ParseFloat(r[2], 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: row %d: bad number", f, i+1)
			}
			c.Iteration = append(c.Iteration, int64(it))
			c.Metric = append(c.Metric, m)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b ValidationCurve) int {
		if a.App != b.App {
			return strings.Compare(a.App, b.App)
		}
		return a.GlobalBatch - b.GlobalBatch
	})
	return out, nil
}

// PolluxCurvesTables turns validation curves into a loss table and the jobs
// table that goes with it. Pollux adapted batch sizes during training, so
// iterations per epoch vary; the tables count steps in epochs instead (step
// e is the end of epoch e, epoch_steps is 1), which is what the convergence
// rule needs. epoch_budget is what Pollux's simulator trains a job of the
// application for (PolluxEpochs), which is each curve's length.
func PolluxCurvesTables(curves []ValidationCurve) []Named {
	var lJob []string
	var lStep []int64
	var lValue []float64
	var lHigher []bool
	n := len(curves)
	jobs := table.New(schema.Jobs, n)
	names, models, modes := make([]string, n), make([]string, n), make([]string, n)
	batch, epochSteps := make([]int64, n), make([]int64, n)
	budget, budgetOK := make([]float64, n), make([]bool, n)
	for i, c := range curves {
		names[i], models[i], modes[i] = c.Name, c.App, "sync"
		batch[i], epochSteps[i] = int64(c.GlobalBatch), 1
		if e, ok := PolluxEpochs[c.App]; ok {
			budget[i], budgetOK[i] = float64(e), true
		}
		for e, v := range c.Metric {
			lJob, lStep, lValue, lHigher = append(lJob, c.Name), append(lStep, int64(e+1)), append(lValue, v), append(lHigher, c.HigherIsBetter)
		}
	}
	jobs.SetStrings(col.Job, names, nil)
	jobs.SetStrings(col.Model, models, nil)
	jobs.SetStrings(col.Mode, modes, nil)
	jobs.SetInt64s(col.GlobalBatch, batch, nil)
	jobs.SetInt64s(col.EpochSteps, epochSteps, nil)
	jobs.SetFloat64s(col.EpochBudget, budget, budgetOK)
	loss := table.New(schema.Loss, len(lJob))
	loss.SetStrings(col.Job, lJob, nil)
	loss.SetInt64s(col.Step, lStep, nil)
	loss.SetFloat64s(col.Value, lValue, nil)
	loss.SetBools(col.HigherIsBetter, lHigher, nil)
	return []Named{{"jobs", jobs}, {"loss", loss}}
}
