package simulate_test

import (
	"fmt"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/simulate/simtables"
	"github.com/optimus-sched/optimus/solve"
)

// Simulate a workload under Optimus and under DRF: the embedded
// simulate-testbed workload of seed 1 (9 jobs on the paper's testbed of 13
// servers, training at the measured speeds of their models), with the scheduler fitting each job's models
// from its noisy loss points and speed samples, as `optimus simulate` does.
func ExampleRun() {
	named, err := datatables.SimTestbed(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The tables as a reader returns them: checked against their schemas,
	// optional columns added (table.Conform).
	tabs := map[string]*table.Table{}
	for _, n := range named {
		if tabs[n.Name], err = table.Conform(n.Table); err != nil {
			fmt.Println(err)
			return
		}
	}
	in, err := simtables.Input(tabs["cluster"], tabs["workload"], tabs["profiles"], tabs["profile_speeds"])
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d jobs on %d servers, arriving over %.0f s\n", len(in.Jobs), len(in.Cluster.Capacity), in.Jobs[len(in.Jobs)-1].Arrival)
	for _, policy := range []solve.Policy{solve.Optimus, solve.DRF} {
		res, err := simulate.Run(in, simulate.DefaultConfig(policy))
		if err != nil {
			fmt.Println(err)
			return
		}
		s := res.Summary
		fmt.Printf("%-7s %d finished, mean JCT %4.0f s, makespan %5.0f s, %d restarts\n", policy, s.Finished, s.MeanJCT, s.Makespan, s.Restarts)
	}
	// Output:
	// 9 jobs on 13 servers, arriving over 4627 s
	// optimus 9 finished, mean JCT 7431 s, makespan 13517 s, 21 restarts
	// drf     9 finished, mean JCT 9628 s, makespan 19479 s, 36 restarts
}
