package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// StepRecipe is a step learning-rate schedule: the rate is multiplied by
// Factor at each cut, a share of the epoch budget (Cuts) or every Period
// epochs.
type StepRecipe struct {
	Name   string
	Cuts   []float64
	Period int
	Factor float64
}

// StepRecipes are the families of step-curves: the common CIFAR recipe,
// ResNet's halves, thirds with a mild factor, and ImageNet's cut every 30
// epochs.
var StepRecipes = []StepRecipe{
	{Name: "cifar", Cuts: []float64{0.3, 0.6, 0.8}, Factor: 0.2},
	{Name: "halves", Cuts: []float64{0.5, 0.75}, Factor: 0.1},
	{Name: "thirds", Cuts: []float64{1.0 / 3, 2.0 / 3}, Factor: 0.3},
	{Name: "every30", Period: 30, Factor: 0.1},
}

// lr is the learning rate, relative to the initial one, in epoch e
// (0-based) of a budget of epochs.
func (r StepRecipe) lr(e, epochs int) float64 {
	cuts := 0
	if r.Period > 0 {
		cuts = e / r.Period
	} else {
		for _, c := range r.Cuts {
			if float64(e) >= c*float64(epochs) {
				cuts++
			}
		}
	}
	return math.Pow(r.Factor, float64(cuts))
}

// GenerateStepCurves draws n runs of a recipe from rng, with the loss model
// of GenerateScheduleCurves (L0 + A·(1 + S/s0)^-α + B·lr, S the summed
// learning rate), one mean value an epoch (the steps count epochs).
func GenerateStepCurves(r StepRecipe, n int, rng *rand.Rand) []ScheduleCurve {
	var out []ScheduleCurve
	for i := 0; i < n; i++ {
		c := ScheduleCurve{Name: fmt.Sprintf("%s-%02d", r.Name, i+1), Schedule: r.Name, EpochSteps: 1}
		c.Epochs = 120 + rng.IntN(81)
		if r.Period > 0 {
			c.Epochs = 2*r.Period + 10 + rng.IntN(21) // two cuts, then 10-30 epochs
		}
		c.InitialLR = 0.5 + rng.Float64()
		c.Exponent = 0.5 + 0.3*rng.Float64()
		noise := 0.02 + 0.02*rng.Float64()
		l0, a, b := 0.5+0.5*rng.Float64(), 2+rng.Float64(), 0.6+0.4*rng.Float64()
		s0 := 2 + 4*rng.Float64() // epochs of full-rate progress
		var cum float64
		for e := 0; e < c.Epochs; e++ {
			lr := r.lr(e, c.Epochs)
			cum += c.InitialLR * lr
			clean := l0 + a*math.Pow(1+cum/s0, -c.Exponent) + b*lr
			c.Steps = append(c.Steps, int64(e+1))
			c.Values = append(c.Values, clean*(1+noise*rng.NormFloat64()))
		}
		out = append(out, c)
	}
	return out
}
