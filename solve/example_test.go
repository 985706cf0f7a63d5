package solve_test

import (
	"fmt"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/solve"
)

// Decide the PS and workers of three synchronous jobs on four servers of
// 4 GPUs and 16 cores, with the paper's greedy and with DRF. A worker takes
// a GPU and 2 cores, a PS 4 cores. Each job's speed model (fit.SpeedModel,
// as fit.FitSpeed returns it) is 1/(θ0·M/w + θ1 + θ2·w/p + θ3·w + θ4·p)
// steps/s with global batch M: the first is compute-bound, the second
// communication-bound (a large model), the third small.
func ExampleSolve() {
	p := &solve.Problem{Resources: []string{"gpu", "cpu"}}
	for range 4 {
		p.Nodes = append(p.Nodes, []float64{4, 16})
	}
	for i, j := range []struct {
		name      string
		theta     [5]float64
		remaining float64 // steps left
	}{
		{"compute", [5]float64{0.004, 0.02, 0.01, 0.002, 0.002}, 40_000},
		{"network", [5]float64{0.001, 0.02, 0.08, 0.002, 0.002}, 40_000},
		{"small", [5]float64{0.001, 0.01, 0.005, 0.001, 0.001}, 5_000},
	} {
		p.Jobs = append(p.Jobs, solve.Job{
			Name: j.name, Arrival: float64(i), Weight: 1, Remaining: j.remaining,
			Speed:  fit.SpeedModel{Mode: fit.Sync, GlobalBatch: 256, Theta: j.theta},
			Worker: []float64{1, 2}, PS: []float64{0, 4},
		})
	}
	for _, policy := range []solve.Policy{solve.Optimus, solve.DRF} {
		opts := solve.DefaultOptions()
		opts.Policy = policy
		res, err := solve.Solve(p, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d tasks, sum of completion times %.0f s\n", policy, res.Tasks, res.Objective)
		for i, d := range res.Decisions {
			fmt.Printf("  %-7s %d PS, %2d workers: %5.2f steps/s, done in %4.0f s\n", p.Jobs[i].Name, d.PS, d.Workers, d.Speed, d.Completion)
		}
	}
	// Output:
	// optimus: 23 tasks, sum of completion times 15039 s
	//   compute 3 PS,  9 workers:  5.33 steps/s, done in 7511 s
	//   network 5 PS,  3 workers:  5.91 steps/s, done in 6773 s
	//   small   1 PS,  2 workers:  6.62 steps/s, done in  755 s
	// drf: 20 tasks, sum of completion times 20505 s
	//   compute 4 PS,  4 workers:  3.31 steps/s, done in 12080 s
	//   network 3 PS,  3 workers:  5.07 steps/s, done in 7893 s
	//   small   3 PS,  3 workers:  9.40 steps/s, done in  532 s
}
