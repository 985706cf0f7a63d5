package datatables

import (
	"math/rand/v2"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

func init() {
	Catalog = append(Catalog, Dataset{
		Name: "schedule-curves",
		Doc: "Synthetic training-loss curves under learning-rate schedules the 1/k model cannot follow, with noise: " +
			"step (lr x0.2 at a third and two thirds of training, a point every 2 epochs), cosine (per-step losses) " +
			"and linear cooldown (constant, then linear decay over the last fifth; points at irregular steps), " +
			"10 jobs of each. Tables: jobs (with schedule_end_steps for cosine and cooldown), loss. For optimus eval convergence.",
		Generate: ScheduleCurves,
	})
}

// ScheduleCurves generates the schedule-curves dataset: 10 runs of each
// schedule, from seed.
func ScheduleCurves(seed uint64) ([]Named, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5c4ed))
	var curves []datasets.ScheduleCurve
	for _, s := range []string{datasets.ScheduleStep, datasets.ScheduleCosine, datasets.ScheduleCooldown} {
		curves = append(curves, datasets.GenerateScheduleCurves(s, 10, rng)...)
	}
	return ScheduleCurvesTables(curves), nil
}

// ScheduleCurvesTables turns runs into a jobs and a loss table; the model
// family of each job is its schedule, its epoch_budget the epochs it was
// set to train for (the schedule's length, as a training script declares
// it).
func ScheduleCurvesTables(curves []datasets.ScheduleCurve) []Named {
	n := len(curves)
	jobs := table.New(schema.Jobs, n)
	names, models, modes := make([]string, n), make([]string, n), make([]string, n)
	batch, epochSteps, ends := make([]int64, n), make([]int64, n), make([]int64, n)
	endOK, budget := make([]bool, n), make([]float64, n)
	var lJob []string
	var lStep []int64
	var lValue []float64
	for i, c := range curves {
		names[i], models[i], modes[i] = c.Name, c.Schedule, "sync"
		batch[i], epochSteps[i], ends[i], endOK[i] = 256, int64(c.EpochSteps), c.ScheduleEndSteps, c.ScheduleEndSteps > 0
		budget[i] = float64(c.Epochs)
		for k := range c.Steps {
			lJob, lStep, lValue = append(lJob, c.Name), append(lStep, c.Steps[k]), append(lValue, c.Values[k])
		}
	}
	jobs.SetStrings(col.Job, names, nil)
	jobs.SetStrings(col.Model, models, nil)
	jobs.SetStrings(col.Mode, modes, nil)
	jobs.SetInt64s(col.GlobalBatch, batch, nil)
	jobs.SetInt64s(col.EpochSteps, epochSteps, nil)
	jobs.SetInt64s(col.ScheduleEndSteps, ends, endOK)
	jobs.SetFloat64s(col.EpochBudget, budget, nil)
	loss := table.New(schema.Loss, len(lJob))
	loss.SetStrings(col.Job, lJob, nil)
	loss.SetInt64s(col.Step, lStep, nil)
	loss.SetFloat64s(col.Value, lValue, nil)
	loss.SetBools(col.HigherIsBetter, make([]bool, len(lJob)), nil)
	return []Named{{"jobs", jobs}, {"loss", loss}}
}
