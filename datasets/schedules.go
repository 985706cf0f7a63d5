package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

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
