package benchmarks

// Benchmarks of planning at scale: solve (the allocation) and place (the
// tasks onto nodes) on workloads from `optimus datasets generate`. The bar
// (the project's speed bar): 100,000 tasks on 16,000 nodes well under a second
// on one core; the paper reports about 5 s. Run on one core with
//
//	go test ./benchmarks -run '^$' -bench 'Plan$|Solve|Place|Pipe' -cpu 1 -count 5
//
// Results and the machine they came from are in solve-place.md. Solve
// checks node-level capacity by default (solve.NodeCapacity); the
// sub-benchmarks named aggregate use the paper's check of the totals only,
// and those named tight plan 100,000 tasks on 5,000 nodes, where capacity
// binds (solve repacks, place falls back to solve's layouts).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// planSizes are the workloads: tasks and nodes in the paper's ratio
// (100,000 tasks on 16,000 nodes).
var planSizes = []int{1000, 3000, 10000, 30000, 100000}

func nodesFor(tasks int) int { return tasks * 16 / 100 }

// tightNodes is the cluster of the tight sub-benchmarks at the largest
// size: a third of the paper's ratio, so that the jobs ask for more than
// fits.
const tightNodes = 5000

// workload generates a workload of the given size (seed 1) and its solver
// problem; running is the share of jobs running now.
func workload(b *testing.B, tasks int, running float64) (*table.Table, *pipeline.Cluster, *solve.Problem) {
	return workloadOn(b, tasks, nodesFor(tasks), running)
}

// workloadOn generates a workload and reads it into solve's problem
// through the same adapters as `optimus solve`.
func workloadOn(b *testing.B, tasks, nodes int, running float64) (*table.Table, *pipeline.Cluster, *solve.Problem) {
	b.Helper()
	cluster, pred, err := datatables.Workload(datatables.WorkloadConfig{Seed: 1, Tasks: tasks, Nodes: nodes, Running: running})
	if err != nil {
		b.Fatal(err)
	}
	c, prob, err := adapt.SolveProblem(pred, cluster, "p50")
	if err != nil {
		b.Fatal(err)
	}
	return pred, c, prob
}

// placeProblem turns a solve result into the placer's problem with the
// pipeline's hand-off, as the simulator does.
func placeProblem(b *testing.B, c *pipeline.Cluster, prob *solve.Problem, res *solve.Result) *place.Problem {
	pp, err := pipeline.PlaceProblem(c, pipeline.Assignments(prob, res), nil)
	if err != nil {
		b.Fatal(err)
	}
	return pp
}

// plan solves and places: the work the bar measures.
func plan(b *testing.B, c *pipeline.Cluster, prob *solve.Problem, solveOpts solve.Options, placeOpts place.Options) (*solve.Result, *place.Result) {
	res, err := solve.Solve(prob, solveOpts)
	if err != nil {
		b.Fatal(err)
	}
	pres, err := place.Place(placeProblem(b, c, prob, res), placeOpts)
	if err != nil {
		b.Fatal(err)
	}
	return res, pres
}

// BenchmarkPlan is solve + place with the optimus policies, from scratch
// (no job running: restart cost irrelevant) and with 30% of the jobs
// running (the stability rule compares up to four greedy plans); at the
// largest size also with the paper's aggregate capacity check, and on a
// tight cluster with both checks.
func BenchmarkPlan(b *testing.B) {
	largest := planSizes[len(planSizes)-1]
	type variant struct {
		name         string
		tasks, nodes int
		running      float64
		capacity     solve.CapacityCheck
	}
	var variants []variant
	for _, running := range []float64{0, 0.3} {
		for _, tasks := range planSizes {
			variants = append(variants, variant{"", tasks, nodesFor(tasks), running, solve.NodeCapacity})
		}
	}
	for _, running := range []float64{0, 0.3} {
		variants = append(variants, variant{"aggregate/", largest, nodesFor(largest), running, solve.AggregateCapacity})
	}
	for _, capacity := range solve.CapacityChecks {
		name := "tight/"
		if capacity == solve.AggregateCapacity {
			name = "tight/aggregate/"
		}
		variants = append(variants, variant{name, largest, tightNodes, 0, capacity})
	}
	for _, v := range variants {
		_, c, prob := workloadOn(b, v.tasks, v.nodes, v.running)
		opts := solve.DefaultOptions()
		opts.Capacity = v.capacity
		b.Run(fmt.Sprintf("%srunning=%g/tasks=%d/nodes=%d", v.name, v.running, v.tasks, v.nodes), func(b *testing.B) {
			var placed, short int
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				res, pres := plan(b, c, prob, opts, place.Options{Policy: place.Optimus})
				placed, short = len(pres.Tasks), 0
				for j, jp := range pres.Jobs {
					if d := res.Decisions[j]; d.Status == solve.Running && jp.PS+jp.Workers < d.PS+d.Workers {
						short++
					}
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(placed), "tasks")
			b.ReportMetric(float64(len(prob.Jobs)), "jobs")
			b.ReportMetric(float64(short), "short")
		})
	}
}

// BenchmarkSolve and BenchmarkPlace time the two steps apart, from
// scratch, every policy at the largest size and optimus at every size;
// solve with node-level capacity (the default) and, named aggregate, with
// the totals only.
//
// With OPTIMUS_BENCH_1M=1 it also solves 1,000,000 tasks on 160,000 nodes
// (optimus only; generating that workload takes seconds, so not by
// default): issue 25 asks that size for at most 12 times the 100,000-task
// time.
func BenchmarkSolve(b *testing.B) {
	sizes := planSizes
	if os.Getenv("OPTIMUS_BENCH_1M") != "" {
		sizes = append(slices.Clone(planSizes), 1000000)
	}
	for _, tasks := range sizes {
		_, _, prob := workload(b, tasks, 0)
		for _, policy := range solve.Policies {
			if policy != solve.Optimus && tasks != planSizes[len(planSizes)-1] {
				continue
			}
			for _, capacity := range solve.CapacityChecks {
				name := fmt.Sprintf("%s/tasks=%d", policy, tasks)
				if capacity == solve.AggregateCapacity {
					name = fmt.Sprintf("%s/aggregate/tasks=%d", policy, tasks)
				}
				b.Run(name, func(b *testing.B) {
					opts := solve.DefaultOptions()
					opts.Policy, opts.Capacity = policy, capacity
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						if _, err := solve.Solve(prob, opts); err != nil {
							b.Fatal(err)
						}
					}
					// The process's user+sys time: on a loaded machine the
					// wall time (ns/op) counts the waits for a core too.
					b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				})
			}
		}
	}
}

// cpuTime is the process's user+sys CPU time so far, in nanoseconds.
func cpuTime() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

func BenchmarkPlace(b *testing.B) {
	for _, tasks := range planSizes {
		_, c, prob := workload(b, tasks, 0)
		res, err := solve.Solve(prob, solve.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		pp := placeProblem(b, c, prob, res)
		for _, policy := range place.Policies {
			if policy != place.Optimus && tasks != planSizes[len(planSizes)-1] {
				continue
			}
			b.Run(fmt.Sprintf("%s/tasks=%d", policy, tasks), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := place.Place(pp, place.Options{Policy: policy}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPipe runs `optimus solve | optimus place` in-process on Arrow
// streams at the largest size: planning plus reading, validating and
// writing the tables.
func BenchmarkPipe(b *testing.B) {
	tasks := planSizes[len(planSizes)-1]
	cluster, pred, err := datatables.Workload(datatables.WorkloadConfig{Seed: 1, Tasks: tasks, Nodes: nodesFor(tasks)})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	c := filepath.Join(dir, "cluster.parquet")
	if err := table.WriteFile(c, cluster); err != nil {
		b.Fatal(err)
	}
	var in bytes.Buffer
	if err := table.WriteStream(&in, pred); err != nil {
		b.Fatal(err)
	}
	main := func(stdin []byte, args ...string) []byte {
		code, out, stderr := optimus.Run(b, stdin, args...)
		if code != 0 {
			b.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			alloc := main(in.Bytes(), "solve", "--cluster", c)
			main(alloc, "place", "--cluster", c, "-o", filepath.Join(dir, "plan.parquet"))
		}
	})
	os.Remove(filepath.Join(dir, "plan.parquet"))
}
