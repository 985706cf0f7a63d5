package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

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

// Learning-rate schedules of the synthetic curves.
const (
	ScheduleStep     = "step"
	ScheduleCosine   = "cosine"
	ScheduleCooldown = "cooldown"
)

// ScheduleCurve is one synthetic training run.
type ScheduleCurve struct {
	Name, Schedule      string
	Epochs, EpochSteps  int
	Steps               []int64
	Values              []float64
	ScheduleEndSteps    int64 // 0 for the step schedule, which declares none
	InitialLR, Exponent float64
}

// lrAt is the learning rate, relative to the initial one, after a share u
// of training.
func lrAt(schedule string, u float64) float64 {
	switch schedule {
	case ScheduleStep:
		switch {
		case u < 1.0/3:
			return 1
		case u < 2.0/3:
			return 0.2
		}
		return 0.04
	case ScheduleCosine:
		return 0.5 * (1 + math.Cos(math.Pi*u))
	case ScheduleCooldown:
		if u < 0.8 {
			return 1
		}
		return (1 - u) / 0.2
	}
	return 1
}

// GenerateScheduleCurves draws n runs of a schedule from rng. The loss
// follows a phenomenological model of training under a schedule:
//
//	L(t) = L0 + A·(1 + S(t)/s0)^-α + B·lr(t)
//
// with S the learning rate summed over the steps so far (the progress an
// optimiser makes) and B·lr the noise floor that a lower learning rate
// removes, which is what makes a step schedule drop and a cooldown bend
// down at the end. Step runs log every 2 epochs, cosine runs every step
// (minibatch noise of 10%), cooldown runs at irregular steps (3%).
func GenerateScheduleCurves(schedule string, n int, rng *rand.Rand) []ScheduleCurve {
	var out []ScheduleCurve
	for i := 0; i < n; i++ {
		c := ScheduleCurve{Name: fmt.Sprintf("%s-%02d", schedule, i+1), Schedule: schedule}
		noise := 0.03
		switch schedule {
		case ScheduleStep:
			c.Epochs, c.EpochSteps = 80+rng.IntN(21), 100
		case ScheduleCosine:
			c.Epochs, c.EpochSteps, noise = 40+rng.IntN(21), 20, 0.10
		case ScheduleCooldown:
			c.Epochs, c.EpochSteps = 30+rng.IntN(21), 50
		}
		total := c.Epochs * c.EpochSteps
		if schedule != ScheduleStep {
			c.ScheduleEndSteps = int64(total)
		}
		c.InitialLR = 0.5 + rng.Float64()
		c.Exponent = 0.5 + 0.3*rng.Float64()
		l0, a, b := 0.5+0.5*rng.Float64(), 2+rng.Float64(), 0.6+0.4*rng.Float64()
		s0 := float64(c.EpochSteps) * (0.5 + rng.Float64())
		var cum float64
		next := 0
		for s := 1; s <= total; s++ {
			u := float64(s-1) / float64(total)
			lr := lrAt(schedule, u)
			cum += c.InitialLR * lr
			switch schedule {
			case ScheduleStep:
				if s%(2*c.EpochSteps) != 0 {
					continue
				}
			case ScheduleCooldown:
				if s < next {
					continue
				}
				next = s + 1 + rng.IntN(2*c.EpochSteps)
			}
			clean := l0 + a*math.Pow(1+cum/s0, -c.Exponent) + b*lr
			v := clean * (1 + noise*rng.NormFloat64())
			c.Steps, c.Values = append(c.Steps, int64(s)), append(c.Values, v)
		}
		// Every log records the end of training.
		if c.Steps[len(c.Steps)-1] != int64(total) {
			clean := l0 + a*math.Pow(1+cum/s0, -c.Exponent) + b*lrAt(schedule, 1)
			c.Steps, c.Values = append(c.Steps, int64(total)), append(c.Values, clean*(1+noise*rng.NormFloat64()))
		}
		out = append(out, c)
	}
	return out
}

// ScheduleCurves generates the schedule-curves dataset: 10 runs of each
// schedule, from seed.
func ScheduleCurves(seed uint64) ([]Named, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5c4ed))
	var curves []ScheduleCurve
	for _, s := range []string{ScheduleStep, ScheduleCosine, ScheduleCooldown} {
		curves = append(curves, GenerateScheduleCurves(s, 10, rng)...)
	}
	return ScheduleCurvesTables(curves), nil
}

// ScheduleCurvesTables turns runs into a jobs and a loss table; the model
// family of each job is its schedule, its epoch_budget the epochs it was
// set to train for (the schedule's length, as a training script declares
// it).
func ScheduleCurvesTables(curves []ScheduleCurve) []Named {
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
