package datatables

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// Metrics generates the metrics of n synthetic jobs, for benchmarking fit:
// a loss table of points loss points per job, on 1/k curves with 3% noise,
// and a speed table of samples speed samples per job, at the
// configurations fit.SuggestConfigs picks, from the speed model of a
// measured model family with 2% noise. The speed table carries each job's
// mode and global batch, so fit needs no jobs table.
func Metrics(n, points, samples int, seed uint64) (loss, speed *table.Table, err error) {
	families, err := datasets.JobModels()
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x3e7))
	configs := fit.SuggestConfigs(nil, fit.Grid(16, 16), samples)
	lJob := make([]string, 0, n*points)
	lStep := make([]int64, 0, n*points)
	lValue := make([]float64, 0, n*points)
	var sJob, sMode []string
	var sPS, sW, sBatch []int64
	var sSpeed []float64
	for j := 0; j < n; j++ {
		name := fmt.Sprintf("job-%06d", j+1)
		fam := families[rng.IntN(len(families))]
		l0 := 2 + 5*rng.Float64()
		curve := fit.Curve{B0: math.Exp(-14 + 4*rng.Float64()), B1: 1 / (l0 * (0.7 + 0.25*rng.Float64())), B2: l0 * 0.05 * rng.Float64()}
		every := int64(10 + rng.IntN(90))
		for p := 0; p < points; p++ {
			k := int64(p) * every
			lJob, lStep = append(lJob, name), append(lStep, k)
			lValue = append(lValue, curve.At(float64(k))*math.Exp(0.03*rng.NormFloat64()))
		}
		for _, c := range configs {
			sJob, sMode = append(sJob, name), append(sMode, fam.Speed.Mode)
			sPS, sW, sBatch = append(sPS, int64(c.PS)), append(sW, int64(c.Workers)), append(sBatch, int64(fam.Speed.GlobalBatch))
			sSpeed = append(sSpeed, fam.Speed.Speed(c.PS, c.Workers)*math.Exp(0.02*rng.NormFloat64()))
		}
	}
	loss = table.New(schema.Loss, len(lJob))
	loss.SetStrings(col.Job, lJob, nil)
	loss.SetInt64s(col.Step, lStep, nil)
	loss.SetFloat64s(col.Value, lValue, nil)
	loss.SetBools(col.HigherIsBetter, make([]bool, len(lJob)), nil)
	speed = table.New(schema.Speed, len(sJob))
	speed.SetStrings(col.Job, sJob, nil)
	speed.SetInt64s(col.PS, sPS, nil)
	speed.SetInt64s(col.Workers, sW, nil)
	speed.SetFloat64s(col.Speed, sSpeed, nil)
	speed.SetStrings(col.Mode, sMode, nil)
	speed.SetInt64s(col.GlobalBatch, sBatch, nil)
	return loss, speed, nil
}
