package adapt_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/eval"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// DL2's measurements (keyed by model, no job column) read as speed
// measurements, and their evaluation writes one speed_eval row per model
// with suggest's first configuration, 1 PS + 1 worker, first.
func TestSpeedEvalOnDL2Measurements(t *testing.T) {
	data, err := os.ReadFile("../../datasets/data/ps-sync-measured.csv")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.Read(strings.NewReader(string(data)), "ps-sync-measured.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := adapt.SpeedKey(raw)
	if key != "model" {
		t.Fatalf("key %q, want model (the table has no job column)", key)
	}
	conformed, err := adapt.ConformSpeed(raw, key)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := adapt.SpeedMeasurements(conformed, key, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := datasets.Measured()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != len(want) {
		t.Fatalf("%d measurements, want %d", len(ms), len(want))
	}
	for i, w := range want {
		m := ms[i]
		if m.Key != w.Model || m.Mode != w.Mode || m.GlobalBatch != float64(w.GlobalBatch) || m.PS != w.PS || m.Workers != w.Workers || m.Speed != w.Speed {
			t.Fatalf("row %d: %+v, want %+v", i+1, m, w)
		}
	}
	res, err := eval.Speed(ms, 6, 1, 1, eval.SampleSuggest)
	if err != nil {
		t.Fatal(err)
	}
	out, err := table.Conform(adapt.SpeedEvalTable(res, eval.SampleSuggest))
	if err != nil {
		t.Fatal(err)
	}
	models := datasets.MeasuredModels(want)
	if out.NumRows() != len(models) {
		t.Fatalf("%d rows, want one per model (%d)", out.NumRows(), len(models))
	}
	keys, cfgs, medOK, sampling := out.Strings("key"), out.Strings("sampled_configs"), out.Valid("median_rel_err"), out.Strings("sampling")
	for i := range keys {
		if !strings.HasPrefix(cfgs[i], "1:1 ") || len(strings.Fields(cfgs[i])) != 6 {
			t.Errorf("%s: sampled %q, want 6 ps:workers configurations from 1:1", keys[i], cfgs[i])
		}
		if !medOK[i] || sampling[i] != eval.SampleSuggest {
			t.Errorf("%s: no median error or sampling %q", keys[i], sampling[i])
		}
	}
}

// Bad measurements are errors naming the column and row; a jobs table
// fills in a row's mode and global batch.
func TestSpeedMeasurementsErrors(t *testing.T) {
	jobs := readCSV(t, "jobs.csv", "job,model,mode,global_batch,epoch_steps\na,resnet-50,sync,128,100\nr,bert,allreduce,64,100\n", schema.Jobs)
	cases := []struct {
		name, csv string
		jobs      bool
		column    string // "" for no error
		row       int
	}{
		{"no mode and no jobs", "job,ps,workers,speed\na,1,1,2\n", false, "mode", 1},
		{"mode from jobs", "job,ps,workers,speed\na,1,1,2\n", true, "", 0},
		{"unknown job", "job,ps,workers,speed\na,1,1,2\nb,1,1,2\n", true, "job", 2},
		{"sync without its batch", "job,ps,workers,speed,mode\na,1,1,2,sync\n", false, "global_batch", 1},
		{"allreduce with a PS", "job,ps,workers,speed,mode,global_batch\nr,1,2,2,allreduce,64\n", false, "ps", 1},
		{"allreduce from jobs", "job,ps,workers,nodes,speed\nr,0,4,2,3.5\n", true, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := readCSV(t, "speed.csv", c.csv, nil)
			s, err := adapt.ConformSpeed(raw, "job")
			if err != nil {
				t.Fatal(err)
			}
			var j *table.Table
			if c.jobs {
				j = jobs
			}
			ms, err := adapt.SpeedMeasurements(s, "job", j, "jobs.csv")
			if c.column == "" {
				if err != nil {
					t.Fatal(err)
				}
				m := ms[0]
				if info := map[string][2]any{"a": {fit.Sync, 128.0}, "r": {fit.AllReduce, 64.0}}[m.Key]; m.Mode != info[0] || m.GlobalBatch != info[1] {
					t.Errorf("%+v: mode and batch not taken from the jobs table", m)
				}
				return
			}
			var te *table.Error
			if !errors.As(err, &te) || te.Source != "speed.csv" || te.Column != c.column || te.Row != c.row {
				t.Errorf("error %v, want one naming speed.csv, column %s, row %d", err, c.column, c.row)
			}
		})
	}
	if _, err := adapt.ConformSpeed(jobs, "job"); err == nil || !strings.Contains(err.Error(), "not a jobs table") {
		t.Errorf("a jobs table read as measurements: %v", err)
	}
}

// Curves take their epoch length, family and declared schedule end from
// the jobs table, or --epoch-steps without one; a loss row of a job the
// jobs table lacks is an error naming the row.
func TestConvergenceCurves(t *testing.T) {
	loss := readCSV(t, "loss.csv", "job,step,value\na,10,3\na,20,2\nb,5,4\nb,10,3\n", schema.Loss)
	jobs := readCSV(t, "jobs.csv", "job,epoch_steps,model,schedule_end_steps\na,10,resnet,40\nb,5,vgg,\n", adapt.EpochJobsSpec())
	curves, err := adapt.ConvergenceCurves(loss, jobs, "jobs.csv", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 2 || curves[0].Family != "resnet" || curves[0].ScheduleEnd != 4 || len(curves[0].Values) != 2 ||
		curves[1].Family != "vgg" || curves[1].ScheduleEnd != 0 || len(curves[1].Values) != 2 {
		t.Errorf("curves %+v", curves)
	}
	curves, err = adapt.ConvergenceCurves(loss, nil, "", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(curves[0].Values) != 4 || curves[0].Family != "" {
		t.Errorf("with 5 steps an epoch: %+v", curves[0])
	}
	only := readCSV(t, "jobs.csv", "job,epoch_steps\na,10\n", adapt.EpochJobsSpec())
	if _, err := adapt.ConvergenceCurves(loss, only, "jobs.csv", 0); err == nil || !strings.HasPrefix(err.Error(), `loss.csv: column "job", row 3 (line 4): unknown job "b" (not in jobs.csv)`) {
		t.Errorf("unknown job: %v", err)
	}
}

// The convergence evaluation of Pollux's curves writes a valid table:
// predicted columns null exactly where a curve could not be predicted.
func TestConvergenceEvalTableOnPolluxCurves(t *testing.T) {
	vcs, err := datasets.PolluxCurves()
	if err != nil {
		t.Fatal(err)
	}
	var curves []eval.Curve
	for _, v := range vcs {
		if len(v.Metric) < 30 || len(curves) == 4 {
			continue // enough epochs to predict from half of them
		}
		c := eval.Curve{Name: v.Name, Family: v.App, HigherIsBetter: v.HigherIsBetter, Values: v.Metric}
		for e, m := range v.Metric {
			c.Points = append(c.Points, fit.LossPoint{Step: float64(e + 1), Value: m})
		}
		curves = append(curves, c)
	}
	res := eval.ConvergenceWith(curves, []float64{0.02, 0.5}, fit.DefaultRule, fit.DefaultLossOptions, eval.ConvergenceConfig{})
	out, err := table.Conform(adapt.ConvergenceEvalTable(res))
	if err != nil {
		t.Fatal(err)
	}
	if out.NumRows() != len(res) {
		t.Fatalf("%d rows, want %d", out.NumRows(), len(res))
	}
	p50OK, notes, predictedSome, failedSome := out.Valid("pred_epoch_p50"), out.Strings("note"), false, false
	for i, r := range res {
		if p50OK[i] != (r.Err == "") {
			t.Errorf("row %d: p50 present %v, error %q", i+1, p50OK[i], r.Err)
		}
		if r.Err != "" && notes[i] != r.Err {
			t.Errorf("row %d: note %q, want the error %q", i+1, notes[i], r.Err)
		}
		predictedSome, failedSome = predictedSome || r.Err == "", failedSome || r.Err != ""
	}
	if !predictedSome || !failedSome {
		t.Errorf("predicted some %v, failed some %v: want both (half the epochs, and 2%% of them)", predictedSome, failedSome)
	}
}
