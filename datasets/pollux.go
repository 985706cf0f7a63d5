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
