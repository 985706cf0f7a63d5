package datatables

import (
	"fmt"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/layout"
)

func init() {
	Catalog = append(Catalog, Dataset{
		Name: "pollux-workload-1",
		Doc: "Pollux's (OSDI'21) workload-1 for its simulator: 160 all-reduce jobs (cifar10, ncf, deepspeech2, bert, " +
			"imagenet, yolov3) on its 16 nodes of 4 GPUs, each with an epoch budget of its application's epochs (steps as Pollux's simulator counts them); each job's " +
			"speed at 10 profiling configurations of (workers, nodes) by its application's profile (speed); and the " +
			"applications' profiled placements as all-reduce speed samples, job = application (placements, for " +
			"optimus eval speed). Tables: cluster, jobs, speed, placements. optimus simulate --pollux workload-1 replays it.",
		Generate: func(uint64) ([]Named, error) {
			jobs, profiles, err := datasets.PolluxWorkload1()
			if err != nil {
				return nil, err
			}
			return PolluxTables(jobs, profiles), nil
		},
	})
}

// PolluxTables are a Pollux workload's tables, as the pollux-workload-1
// dataset has them: cluster, jobs, speed (10 profiling configurations a
// job) and placements.
func PolluxTables(jobs []datasets.PolluxJob, profiles map[string]*datasets.PolluxProfile) []Named {
	return []Named{{"cluster", PolluxClusterTable()}, {"jobs", PolluxJobsTable(jobs)},
		{"speed", PolluxProfilingTable(jobs, profiles, 10)}, {"placements", PolluxSpeedTable(profiles)}}
}

// PolluxJobsTable is a Pollux workload as a jobs table: allreduce jobs of 1
// GPU a worker, max_workers their replica cap, epoch_budget their steps
// to train in epochs of epoch_steps (the first epoch's).
func PolluxJobsTable(jobs []datasets.PolluxJob) *table.Table {
	n := len(jobs)
	t := table.New(schema.Jobs, n)
	name, model, mode := make([]string, n), make([]string, n), make([]string, n)
	batch, epoch, maxW, zero := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	arrival, budget, wGPU, pGPU := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, j := range jobs {
		name[i], model[i], mode[i] = j.Name, j.App, fit.AllReduce
		batch[i], epoch[i], maxW[i] = int64(j.Batch), j.EpochSteps, int64(j.MaxReplicas)
		arrival[i], budget[i], wGPU[i] = j.Arrival, j.TotalSteps/float64(j.EpochSteps), 1
	}
	t.SetStrings(col.Job, name, nil)
	t.SetStrings(col.Model, model, nil)
	t.SetStrings(col.Mode, mode, nil)
	t.SetInt64s(col.GlobalBatch, batch, nil)
	t.SetInt64s(col.EpochSteps, epoch, nil)
	t.SetFloat64s(col.ArrivalS, arrival, nil)
	t.SetFloat64s(col.EpochBudget, budget, nil)
	t.SetInt64s(col.ProgressSteps, zero, nil)
	t.SetInt64s(col.MaxWorkers, maxW, nil)
	t.SetFloat64s("worker_gpu", wGPU, nil)
	t.SetFloat64s("ps_gpu", pGPU, nil)
	return t
}

// PolluxSpeedTable is every application's profiled placements as allreduce
// speed samples (datasets.PolluxSpeedSamples), one job per application at its
// largest profiled global batch.
func PolluxSpeedTable(profiles map[string]*datasets.PolluxProfile) *table.Table {
	var job, mode []string
	var ps, ws, nodes, batch []int64
	var speed, local []float64
	for _, app := range datasets.PolluxApps {
		p, ok := profiles[app]
		if !ok {
			continue
		}
		for _, s := range datasets.PolluxSpeedSamples(p) {
			job, mode = append(job, app), append(mode, fit.AllReduce)
			ps, ws, nodes = append(ps, 0), append(ws, int64(s.Workers)), append(nodes, int64(s.Nodes))
			batch = append(batch, int64(p.Batches[len(p.Batches)-1]))
			speed, local = append(speed, s.Speed), append(local, s.LocalBatch)
		}
	}
	t := speedTable(job, mode, ps, ws, nodes, batch, speed)
	t.SetFloat64s(col.LocalBatch, local, nil)
	return t
}

// speedTable is a speed table of all-reduce samples, one value per row in
// each slice.
func speedTable(job, mode []string, ps, ws, nodes, batch []int64, speed []float64) *table.Table {
	t := table.New(schema.Speed, len(job))
	t.SetStrings(col.Job, job, nil)
	t.SetInt64s(col.PS, ps, nil)
	t.SetInt64s(col.Workers, ws, nil)
	t.SetFloat64s(col.Speed, speed, nil)
	t.SetStrings(col.Mode, mode, nil)
	t.SetInt64s(col.GlobalBatch, batch, nil)
	t.SetInt64s(col.Nodes, nodes, nil)
	return t
}

// PolluxProfilingTable is each job's speed, by its application's profile,
// at the n configurations of (workers, nodes) fit.SuggestConfigs picks
// among 1..max_workers workers on the default cluster: what profiling runs
// at arrival would measure (noiseless).
func PolluxProfilingTable(jobs []datasets.PolluxJob, profiles map[string]*datasets.PolluxProfile, n int) *table.Table {
	var job, mode []string
	var ps, ws, nodes, batch []int64
	var speed []float64
	for _, j := range jobs {
		p := profiles[j.App]
		grid := fit.AllReduceGrid(j.MaxReplicas, datasets.PolluxGPUsPerNode, datasets.PolluxNodes)
		for _, c := range fit.SuggestConfigs(nil, grid, n) {
			st := p.StepTime(layout.SpreadEvenly(c.Workers, c.Nodes), float64(j.Batch))
			job, mode = append(job, j.Name), append(mode, fit.AllReduce)
			ps, ws, nodes, batch = append(ps, 0), append(ws, int64(c.Workers)), append(nodes, int64(c.Nodes)), append(batch, int64(j.Batch))
			speed = append(speed, 1/st)
		}
	}
	return speedTable(job, mode, ps, ws, nodes, batch, speed)
}

// PolluxClusterTable is Pollux's default cluster: 16 nodes of 4 GPUs.
func PolluxClusterTable() *table.Table {
	t := table.New(schema.Cluster, datasets.PolluxNodes)
	names := make([]string, datasets.PolluxNodes)
	gpu := make([]float64, datasets.PolluxNodes)
	for i := range names {
		names[i], gpu[i] = fmt.Sprintf("node-%02d", i), datasets.PolluxGPUsPerNode
	}
	t.SetStrings(col.Node, names, nil)
	t.SetFloat64s("gpu", gpu, nil)
	return t
}

// PolluxCurvesTables turns validation curves into a loss table and the jobs
// table that goes with it. Pollux adapted batch sizes during training, so
// iterations per epoch vary; the tables count steps in epochs instead (step
// e is the end of epoch e, epoch_steps is 1), which is what the convergence
// rule needs. epoch_budget is what Pollux's simulator trains a job of the
// application for (PolluxEpochs), which is each curve's length.
func PolluxCurvesTables(curves []datasets.ValidationCurve) []Named {
	var lJob []string
	var lStep []int64
	var lValue []float64
	var lHigher []bool
	n := len(curves)
	jobs := table.New(schema.Jobs, n)
	names, models, modes := make([]string, n), make([]string, n), make([]string, n)
	batch, epochSteps := make([]int64, n), make([]int64, n)
	budget, budgetOK := make([]float64, n), make([]bool, n)
	for i, c := range curves {
		names[i], models[i], modes[i] = c.Name, c.App, "sync"
		batch[i], epochSteps[i] = int64(c.GlobalBatch), 1
		if e, ok := datasets.PolluxEpochs[c.App]; ok {
			budget[i], budgetOK[i] = float64(e), true
		}
		for e, v := range c.Metric {
			lJob, lStep, lValue, lHigher = append(lJob, c.Name), append(lStep, int64(e+1)), append(lValue, v), append(lHigher, c.HigherIsBetter)
		}
	}
	jobs.SetStrings(col.Job, names, nil)
	jobs.SetStrings(col.Model, models, nil)
	jobs.SetStrings(col.Mode, modes, nil)
	jobs.SetInt64s(col.GlobalBatch, batch, nil)
	jobs.SetInt64s(col.EpochSteps, epochSteps, nil)
	jobs.SetFloat64s(col.EpochBudget, budget, budgetOK)
	loss := table.New(schema.Loss, len(lJob))
	loss.SetStrings(col.Job, lJob, nil)
	loss.SetInt64s(col.Step, lStep, nil)
	loss.SetFloat64s(col.Value, lValue, nil)
	loss.SetBools(col.HigherIsBetter, lHigher, nil)
	return []Named{{"jobs", jobs}, {"loss", loss}}
}
