package adapt

import (
	"fmt"
	"math"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
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
	str(col.Job, func(m pipeline.Model) (string, bool) { return m.Job, true })
	str(col.LossMethod, func(m pipeline.Model) (string, bool) {
		if fitted(m) {
			return m.Loss.Method, true
		}
		return "", false
	})
	boolean(col.LossHigherIsBetter, func(m pipeline.Model) bool { return m.Loss != nil && m.Loss.Complement > 0 })
	num(col.LossComplement, func(m pipeline.Model) (float64, bool) {
		if m.Loss != nil && m.Loss.Complement > 0 {
			return m.Loss.Complement, true
		}
		return 0, false
	})
	num(col.LossScale, func(m pipeline.Model) (float64, bool) {
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
	integer(col.LossPoints, func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil {
			return int64(m.Loss.Used), true
		}
		return 0, true
	})
	integer(col.LossDropped, func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil {
			return int64(m.Loss.Dropped), true
		}
		return 0, true
	})
	integer(col.LossFirstStep, func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil && m.Loss.Used > 0 {
			return int64(m.Loss.FirstStep), true
		}
		return 0, false
	})
	integer(col.LossLastStep, func(m pipeline.Model) (int64, bool) {
		if m.Loss != nil && m.Loss.Used > 0 {
			return int64(m.Loss.LastStep), true
		}
		return 0, false
	})
	num(col.LossR2, func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.R2, true
		}
		return 0, false
	})
	num(col.LossRMSE, func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.RMSE, true
		}
		return 0, false
	})
	num(col.LossAutocorr, func(m pipeline.Model) (float64, bool) {
		if fitted(m) {
			return m.Loss.Autocorr, true
		}
		return 0, false
	})
	str(col.LossQuality, func(m pipeline.Model) (string, bool) {
		switch {
		case m.Loss != nil:
			return m.Loss.Quality, true
		case m.LossNote != "":
			return fit.QualityInsufficient, true
		}
		return "", false
	})
	str(col.LossNote, func(m pipeline.Model) (string, bool) { return m.LossNote, m.LossNote != "" })
	str(col.SpeedMode, func(m pipeline.Model) (string, bool) { return m.SpeedMode, m.SpeedMode != "" })
	integer(col.SpeedGlobalBatch, func(m pipeline.Model) (int64, bool) {
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
	integer(col.SpeedSamples, func(m pipeline.Model) (int64, bool) {
		if m.Speed != nil {
			return int64(m.Speed.Used), true
		}
		return 0, true
	})
	integer(col.SpeedFailed, func(m pipeline.Model) (int64, bool) {
		if m.Speed != nil {
			return int64(m.Speed.Failed), true
		}
		return 0, true
	})
	boolean(col.SpeedIdentifiable, func(m pipeline.Model) bool { return m.Identifiable })
	num(col.SpeedMedianRelErr, func(m pipeline.Model) (float64, bool) {
		if m.Speed != nil {
			return m.Speed.MedianRelErr, true
		}
		return 0, false
	})
	num(col.SpeedMaxRelErr, func(m pipeline.Model) (float64, bool) {
		if m.Speed != nil {
			return m.Speed.MaxRelErr, true
		}
		return 0, false
	})
	str(col.SpeedQuality, func(m pipeline.Model) (string, bool) { return m.SpeedQuality, m.SpeedQuality != "" })
	str(col.SpeedNote, func(m pipeline.Model) (string, bool) { return m.SpeedNote, m.SpeedNote != "" })
	return t
}

// ReadModels indexes a models table by job: the inverse of ModelsTable
// for every column it writes (a fit's null figures read as NaN).
func ReadModels(t *table.Table) map[string]pipeline.Model {
	jobs := t.Strings(col.Job)
	get := func(name string) []float64 { return t.Float64s(name) }
	b0, b1, b2 := get(col.LossB0), get(col.LossB1), get(col.LossB2)
	e50 := [3][]float64{get(col.LossFirst50B0), get(col.LossFirst50B1), get(col.LossFirst50B2)}
	e75 := [3][]float64{get(col.LossFirst75B0), get(col.LossFirst75B1), get(col.LossFirst75B2)}
	l50 := [3][]float64{get(col.LossLast50B0), get(col.LossLast50B1), get(col.LossLast50B2)}
	cov := map[string][]float64{}
	for _, c := range []string{"b0b0", "b0b1", "b0b2", "b1b1", "b1b2", "b2b2"} {
		cov[c] = get("loss_cov_" + c)
	}
	scale, comp := get(col.LossScale), get(col.LossComplement)
	points, dropped := t.Int64s(col.LossPoints), t.Int64s(col.LossDropped)
	first, last := t.Int64s(col.LossFirstStep), t.Int64s(col.LossLastStep)
	r2, rmse, autocorr := get(col.LossR2), get(col.LossRMSE), get(col.LossAutocorr)
	lossQ, lossQOK := t.Strings(col.LossQuality), t.Valid(col.LossQuality)
	lossNote := t.Strings(col.LossNote)
	lossMethod, lossMethodOK := t.Strings(col.LossMethod), t.Valid(col.LossMethod)
	mode, batch := t.Strings(col.SpeedMode), t.Int64s(col.SpeedGlobalBatch)
	var theta [5][]float64
	for k := range theta {
		theta[k] = get(fmt.Sprintf("speed_theta%d", k))
	}
	samples, failed := t.Int64s(col.SpeedSamples), t.Int64s(col.SpeedFailed)
	ident := t.Bools(col.SpeedIdentifiable)
	med, mx := get(col.SpeedMedianRelErr), get(col.SpeedMaxRelErr)
	speedNote, speedQ := t.Strings(col.SpeedNote), t.Strings(col.SpeedQuality)
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
