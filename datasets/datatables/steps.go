package datatables

import (
	"math/rand/v2"

	"github.com/optimus-sched/optimus/datasets"
)

func init() {
	Catalog = append(Catalog, Dataset{
		Name: "step-curves",
		Doc: "Synthetic training-loss curves under step learning-rate schedules, flat between the cuts, with 2-4% noise, " +
			"one point an epoch, no schedule declared: four recipes as four model families, 8 runs each, 120-200 epochs " +
			"(cifar: x0.2 at 30%, 60% and 80% of the budget; halves: x0.1 at 50% and 75%; thirds: x0.3 at a third and two " +
			"thirds; every30: x0.1 every 30 epochs of 70-90). Tables: jobs, loss. For optimus eval convergence.",
		Generate: StepCurves,
	})
}

// StepCurves generates the step-curves dataset: 8 runs of each recipe,
// from seed.
func StepCurves(seed uint64) ([]Named, error) {
	rng := rand.New(rand.NewPCG(seed, 0x57e95))
	var curves []datasets.ScheduleCurve
	for _, r := range datasets.StepRecipes {
		curves = append(curves, datasets.GenerateStepCurves(r, 8, rng)...)
	}
	return ScheduleCurvesTables(curves), nil
}
