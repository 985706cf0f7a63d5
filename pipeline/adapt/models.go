package adapt

import (
	"fmt"
	"math"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

var schemaModels = schema.Models

// ModelsTable writes models as a models table, in the given order.
func ModelsTable(ms []pipeline.Model) *table.Table {
	t := table.New(schemaModels, len(ms))
	n := len(ms)
	str := func(name string, f func(pipeline.Model) (string, bool)) {
		vals, ok := make([]string, n), make([]bool, n)
		for i, m := range ms {
			vals[i], ok[i] = f(m)
		}
		t.SetStrings(name, vals, ok)
	}
	num := func(name string, f func(pipeline.Model) (float64, bool)) {
		vals, ok := make([]float64, n), make([]bool, n)
		for i, m := range ms {
			vals[i], ok[i] = f(m)
			if ok[i] && (math.IsNaN(vals[i]) || math.IsInf(vals[i], 0)) {
				ok[i] = false
			}
		}
		t.SetFloat64s(name, vals, ok)
	}
	integer := func(name string, f func(pipeline.Model) (int64, bool)) {
		vals, ok := make([]int64, n), make([]bool, n)
		for i, m := range ms {
			vals[i], ok[i] = f(m)
		}
		t.SetInt64s(name, vals, ok)
	}
	boolean := func(name string, f func(pipeline.Model) bool) {
		vals := make([]bool, n)
		for i, m := range ms {
			vals[i] = f(m)
		}
		t.SetBools(name, vals, nil)
	}
	fitted := func(m pipeline.Model) bool { return m.Loss != nil && m.Loss.Quality != fit.QualityInsufficient }
	str("job", func(m pipeline.Model) (string, bool) { return m.Job, true })
	str("loss_method", func(m pipeline.Model) (string, bool) {
		if fitted(m) {
			return m.Loss.Method, true
		}
		return "", false
	})
	boolean("loss_higher_is_better", func(m pipeline.Model) bool { return m.Loss != nil && m.Loss.Complement > 0 })
	num("loss_complement", func(m pipeline.Model) (float64, bool) {
		if m.Loss != nil && m.Loss.Complement > 0 {
			return m.Loss.Complement, true
		}
		return 0, false
	})
	num("loss_scale", func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.Scale, true
		}
		return 0, false
	})
	curve := func(prefix string, get func(*fit.LossFit) fit.Curve) {
		for k, name := range []string{"_b0", "_b1", "_b2"} {
			num(prefix+name, func(m pipeline.Model) (float64, bool) {
				if !fitted(m) {
					return 0, false
				}
				c := get(m.Loss)
				return [3]float64{c.B0, c.B1, c.B2}[k], true
			})
		}
	}
	curve("loss", func(f *fit.LossFit) fit.Curve { return f.Curve })
	for _, c := range []struct {
		name string
		a, b int
	}{{"b0b0", 0, 0}, {"b0b1", 0, 1}, {"b0b2", 0, 2}, {"b1b1", 1, 1}, {"b1b2", 1, 2}, {"b2b2", 2, 2}} {
		num("loss_cov_"+c.name, func(m pipeline.Model) (float64, bool) {
			if !fitted(m) {
				return 0, false
			}
			return m.Loss.Cov[c.a][c.b], true
		})
	}
	curve("loss_first50", func(f *fit.LossFit) fit.Curve { return f.Early[0] })
	curve("loss_first75", func(f *fit.LossFit) fit.Curve { return f.Early[1] })
	curve("loss_last50", func(f *fit.LossFit) fit.Curve { return f.Recent })
	integer("loss_points", func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil {
			return int64(m.Loss.Used), true
		}
		return 0, true
	})
	integer("loss_dropped", func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil {
			return int64(m.Loss.Dropped), true
		}
		return 0, true
	})
	integer("loss_first_step", func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil && m.Loss.Used > 0 {
			return int64(m.Loss.FirstStep), true
		}
		return 0, false
	})
	integer("loss_last_step", func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil && m.Loss.Used > 0 {
			return int64(m.Loss.LastStep), true
		}
		return 0, false
	})
	num("loss_r2", func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.R2, true
		}
		return 0, false
	})
	num("loss_rmse", func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.RMSE, true
		}
		return 0, false
	})
	num("loss_autocorr", func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.Autocorr, true
		}
		return 0, false
	})
	str("loss_quality", func(m pipeline.Model) (string, bool) {
		switch {
		case m.Loss != nil:
			return m.Loss.Quality, true
		case m.LossNote != "":
			return fit.QualityInsufficient, true
		}
		return "", false
	})
	str("loss_note", func(m pipeline.Model) (string, bool) { return m.LossNote, m.LossNote != "" })
	str("speed_mode", func(m pipeline.Model) (string, bool) { return m.SpeedMode, m.SpeedMode != "" })
	integer("speed_global_batch", func(m pipeline.Model) (int64, bool) {
		return int64(m.SpeedBatch), m.SpeedMode == fit.Sync && m.SpeedBatch > 0
	})
	for k := 0; k < 5; k++ {
		num(fmt.Sprintf("speed_theta%d", k), func(m pipeline.Model) (float64, bool) {
			if m.Speed == nil || k >= fit.NumTheta(m.Speed.Model.Mode) {
				return 0, false
			}
			return m.Speed.Model.Theta[k], true
		})
	}
	integer("speed_samples", func(m pipeline.Model) (int64, bool) {
		if m.Speed != nil {
			return int64(m.Speed.Used), true
		}
		return 0, true
	})
	integer("speed_failed", func(m pipeline.Model) (int64, bool) {
		if m.Speed != nil {
			return int64(m.Speed.Failed), true
		}
		return 0, true
	})
	boolean("speed_identifiable", func(m pipeline.Model) bool { return m.Identifiable })
	num("speed_median_rel_err", func(m pipeline.Model) (float64, bool) {
		if m.Speed != nil {
			return m.Speed.MedianRelErr, true
		}
		return 0, false
	})
	num("speed_max_rel_err", func(m pipeline.Model) (float64, bool) {
		if m.Speed != nil {
			return m.Speed.MaxRelErr, true
		}
		return 0, false
	})
	str("speed_quality", func(m pipeline.Model) (string, bool) { return m.SpeedQuality, m.SpeedQuality != "" })
	str("speed_note", func(m pipeline.Model) (string, bool) { return m.SpeedNote, m.SpeedNote != "" })
	return t
}

// ReadModels indexes a models table by job: the inverse of ModelsTable
// for every column it writes (a fit's null figures read as NaN).
func ReadModels(t *table.Table) map[string]pipeline.Model {
	jobs := t.Strings("job")
	get := func(name string) []float64 { return t.Float64s(name) }
	b0, b1, b2 := get("loss_b0"), get("loss_b1"), get("loss_b2")
	e50 := [3][]float64{get("loss_first50_b0"), get("loss_first50_b1"), get("loss_first50_b2")}
	e75 := [3][]float64{get("loss_first75_b0"), get("loss_first75_b1"), get("loss_first75_b2")}
	l50 := [3][]float64{get("loss_last50_b0"), get("loss_last50_b1"), get("loss_last50_b2")}
	cov := map[string][]float64{}
	for _, c := range []string{"b0b0", "b0b1", "b0b2", "b1b1", "b1b2", "b2b2"} {
		cov[c] = get("loss_cov_" + c)
	}
	scale, comp := get("loss_scale"), get("loss_complement")
	points, dropped := t.Int64s("loss_points"), t.Int64s("loss_dropped")
	first, last := t.Int64s("loss_first_step"), t.Int64s("loss_last_step")
	r2, rmse, autocorr := get("loss_r2"), get("loss_rmse"), get("loss_autocorr")
	lossQ, lossQOK := t.Strings("loss_quality"), t.Valid("loss_quality")
	lossNote := t.Strings("loss_note")
	lossMethod, lossMethodOK := t.Strings("loss_method"), t.Valid("loss_method")
	mode, batch := t.Strings("speed_mode"), t.Int64s("speed_global_batch")
	var theta [5][]float64
	for k := range theta {
		theta[k] = get(fmt.Sprintf("speed_theta%d", k))
	}
	samples, failed := t.Int64s("speed_samples"), t.Int64s("speed_failed")
	ident := t.Bools("speed_identifiable")
	med, mx := get("speed_median_rel_err"), get("speed_max_rel_err")
	speedNote, speedQ := t.Strings("speed_note"), t.Strings("speed_quality")
	out := make(map[string]pipeline.Model, len(jobs))
	for i, j := range jobs {
		m := pipeline.Model{Job: j, LossNote: lossNote[i], SpeedNote: speedNote[i], Identifiable: ident[i],
			SpeedMode: mode[i], SpeedBatch: float64(batch[i]), SpeedQuality: speedQ[i]}
		if lossQOK[i] {
			lf := &fit.LossFit{Quality: lossQ[i], Scale: scale[i], Used: int(points[i]), Dropped: int(dropped[i]),
				FirstStep: float64(first[i]), LastStep: float64(last[i]), R2: r2[i], RMSE: rmse[i], Autocorr: autocorr[i]}
			if lossMethodOK[i] {
				lf.Method = lossMethod[i]
			}
			if !math.IsNaN(comp[i]) {
				lf.Complement = comp[i]
			}
			if !math.IsNaN(b0[i]) {
				lf.Curve = fit.Curve{B0: b0[i], B1: b1[i], B2: b2[i]}
				lf.Early[0] = fit.Curve{B0: e50[0][i], B1: e50[1][i], B2: e50[2][i]}
				lf.Early[1] = fit.Curve{B0: e75[0][i], B1: e75[1][i], B2: e75[2][i]}
				lf.Recent = fit.Curve{B0: l50[0][i], B1: l50[1][i], B2: l50[2][i]}
				c := func(n string) float64 {
					if v := cov[n][i]; !math.IsNaN(v) {
						return v
					}
					return 0
				}
				lf.Cov = [3][3]float64{
					{c("b0b0"), c("b0b1"), c("b0b2")},
					{c("b0b1"), c("b1b1"), c("b1b2")},
					{c("b0b2"), c("b1b2"), c("b2b2")},
				}
			}
			m.Loss = lf
		}
		if mode[i] != "" && !math.IsNaN(theta[0][i]) {
			sm := fit.SpeedModel{Mode: mode[i], GlobalBatch: float64(batch[i])}
			for k := 0; k < fit.NumTheta(mode[i]); k++ {
				sm.Theta[k] = theta[k][i]
			}
			m.Speed = &fit.SpeedFit{Model: sm, Used: int(samples[i]), Failed: int(failed[i]), MedianRelErr: med[i], MaxRelErr: mx[i]}
		}
		out[j] = m
	}
	return out
}

// Present reports, per value, whether it is non-empty: the validity of a
// nullable string column in which "" means null.
func Present(s []string) []bool {
	ok := make([]bool, len(s))
	for i, v := range s {
		ok[i] = v != ""
	}
	return ok
}
