package datatables

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// The testbed imitates the paper's (section 6.1): 13 servers, 6 with GPUs
// and 7 without, and 9 MXNet training jobs over the models whose speeds were
// measured on such servers. Capacities follow the authors' scheduler
// defaults (16 cores, 48 GB, 2 GPUs, 10 Gbit/s per node) scaled up so that
// jobs can grow: GPU servers have 4 GPUs, 16 cores, 64 GB; CPU servers 32
// cores and 128 GB; every node 10 Gbit/s.
var testbedNodes = []struct {
	prefix                 string
	count                  int
	gpu, cpu, memGB, netGb float64
}{
	{"gpu", 6, 4, 16, 64, 10},
	{"cpu", 7, 0, 32, 128, 10},
}

// testbedJobs lists the jobs in arrival order. The first five have been
// running for a while at the given allocation; the last four have just
// arrived and were only profiled.
var testbedJobs = []struct {
	name, model   string
	ps, workers   int
	epochBudget   float64 // 0: none
	maxWorkers    int     // 0: no limit
	higherBetter  bool    // reports accuracy instead of loss
	lossCorrupted bool    // one NaN and one spike in its loss log
}{
	{"resnet50-a", "resnet-50", 2, 2, 0, 0, false, true},
	{"vgg16-a", "vgg-16", 2, 4, 0, 0, false, false},
	{"inception-a", "inception-bn", 1, 2, 0, 0, false, false},
	{"seq2seq-a", "seq2seq", 2, 2, 0, 0, true, false},
	{"dssm-a", "dssm", 1, 2, 20, 0, false, false},
	{"resnet50-b", "resnet-50", 0, 0, 0, 0, false, false},
	{"vgg16-b", "vgg-16", 0, 0, 0, 6, false, false},
	{"inception-b", "inception-bn", 0, 0, 0, 0, false, false},
	{"seq2seq-b", "seq2seq", 0, 0, 0, 0, false, false},
}

const (
	lossNoise        = 0.03 // relative noise of a logged loss value
	pointsPerEpoch   = 4    // loss values logged per epoch
	speedSamplesJob  = 10   // profiled configurations per job
	speedNoise       = 0.02 // relative noise of a profiled speed
	profileMaxTasks  = 12   // profiling uses at most this many PS and workers
	arrivalGapMinS   = 300
	arrivalGapMaxS   = 900
	runningFractionN = 0.9 // running jobs are at most this far through
)

// Testbed generates the default dataset: cluster, jobs, loss, speed and
// truth tables. The same seed gives the same tables.
func Testbed(seed uint64) ([]Named, error) {
	ms, err := datasets.Measured()
	if err != nil {
		return nil, err
	}
	families := datasets.TestbedModels()
	rng := rand.New(rand.NewPCG(seed, 0x0b7e57))
	cluster := testbedCluster()

	type jobState struct {
		truthCurve fit.Curve
		speed      fit.SpeedModel
		converge   int
		total      float64
		arrival    float64
		progress   int64
	}
	n := len(testbedJobs)
	states := make([]jobState, n)
	arrival := 0.0
	for i, j := range testbedJobs {
		m := families[j.model]
		ref, err := datasets.ReferenceSpeedModel(ms, j.model)
		if err != nil {
			return nil, err
		}
		// A job trains at its model's measured speed times a factor of its
		// own (data pipeline, hardware lot).
		factor := 0.95 + 0.1*rng.Float64()
		sm := ref.Model
		for k := range sm.Theta {
			sm.Theta[k] /= factor
		}
		target := m.MinEpochs + rng.IntN(m.MaxEpochs-m.MinEpochs+1)
		curve, epoch := m.CurveConvergingAt(target)
		total := float64(epoch * m.EpochSteps)
		if j.epochBudget > 0 {
			total = j.epochBudget * float64(m.EpochSteps)
		}
		arrival += arrivalGapMinS + (arrivalGapMaxS-arrivalGapMinS)*rng.Float64()
		states[i] = jobState{truthCurve: curve, speed: sm, converge: epoch, total: total, arrival: math.Round(arrival)}
	}
	// The snapshot is taken a minute after the last arrival. Running jobs
	// trained at their allocation since they arrived (at most 90% through).
	now := states[n-1].arrival + 60
	for i, j := range testbedJobs {
		if j.workers > 0 {
			steps := states[i].speed.Speed(j.ps, j.workers) * (now - states[i].arrival)
			states[i].progress = int64(math.Min(steps, runningFractionN*states[i].total))
		}
	}

	jobs := table.New(schema.Jobs, n)
	var (
		names, models, modes, images, commands []string
		batch, epochSteps, progress, ps, wk    []int64
		maxWorkers                             []int64
		maxWorkersOK, budgetOK                 []bool
		arrivals, weights, budgets             []float64
		wGPU, wCPU, wMem, wNet                 []float64
		pGPU, pCPU, pMem, pNet                 []float64
	)
	for i, j := range testbedJobs {
		m := families[j.model]
		names = append(names, j.name)
		models = append(models, j.model)
		modes = append(modes, states[i].speed.Mode)
		batch = append(batch, int64(states[i].speed.GlobalBatch))
		epochSteps = append(epochSteps, int64(m.EpochSteps))
		arrivals = append(arrivals, states[i].arrival)
		weights = append(weights, 1)
		budgets = append(budgets, j.epochBudget)
		budgetOK = append(budgetOK, j.epochBudget > 0)
		progress = append(progress, states[i].progress)
		ps = append(ps, int64(j.ps))
		wk = append(wk, int64(j.workers))
		maxWorkers = append(maxWorkers, int64(j.maxWorkers))
		maxWorkersOK = append(maxWorkersOK, j.maxWorkers > 0)
		images = append(images, "example.com/optimus/mxnet-train:1.9")
		commands = append(commands, "python "+m.Script+" --kv-store dist_"+states[i].speed.Mode)
		wGPU, wCPU, wMem, wNet = append(wGPU, m.Worker.GPU), append(wCPU, m.Worker.CPU), append(wMem, m.Worker.MemGB), append(wNet, m.Worker.NetGbps)
		pGPU, pCPU, pMem, pNet = append(pGPU, m.PS.GPU), append(pCPU, m.PS.CPU), append(pMem, m.PS.MemGB), append(pNet, m.PS.NetGbps)
	}
	jobs.SetStrings(col.Job, names, nil)
	jobs.SetStrings(col.Model, models, nil)
	jobs.SetStrings(col.Mode, modes, nil)
	jobs.SetInt64s(col.GlobalBatch, batch, nil)
	jobs.SetInt64s(col.EpochSteps, epochSteps, nil)
	jobs.SetFloat64s(col.ArrivalS, arrivals, nil)
	jobs.SetFloat64s(col.Weight, weights, nil)
	jobs.SetFloat64s(col.EpochBudget, budgets, budgetOK)
	jobs.SetInt64s(col.ProgressSteps, progress, nil)
	jobs.SetInt64s(col.PS, ps, nil)
	jobs.SetInt64s(col.Workers, wk, nil)
	jobs.SetInt64s(col.MaxPS, make([]int64, n), make([]bool, n))
	jobs.SetInt64s(col.MaxWorkers, maxWorkers, maxWorkersOK)
	jobs.SetStrings(col.Image, images, nil)
	jobs.SetStrings(col.Command, commands, nil)
	jobs.SetFloat64s("worker_gpu", wGPU, nil)
	jobs.SetFloat64s("worker_cpu", wCPU, nil)
	jobs.SetFloat64s("worker_memory_gb", wMem, nil)
	jobs.SetFloat64s("worker_net_gbps", wNet, nil)
	jobs.SetFloat64s("ps_gpu", pGPU, nil)
	jobs.SetFloat64s("ps_cpu", pCPU, nil)
	jobs.SetFloat64s("ps_memory_gb", pMem, nil)
	jobs.SetFloat64s("ps_net_gbps", pNet, nil)

	// Loss logs: running jobs logged pointsPerEpoch values per epoch so far;
	// new jobs logged a few values while being profiled.
	var lJob []string
	var lStep []int64
	var lValue []float64
	var lValid, lHigher []bool
	for i, j := range testbedJobs {
		m := families[j.model]
		every := int64(m.EpochSteps / pointsPerEpoch)
		last := states[i].progress
		if j.workers == 0 {
			last = int64(rng.IntN(4)) * every // 0 to 3 profiling points after step 0
		}
		first := len(lJob)
		for k := int64(0); k <= last; k += every {
			v := states[i].truthCurve.At(float64(k)) * math.Exp(lossNoise*rng.NormFloat64())
			if j.higherBetter {
				v = 1 - v/m.Loss0 // token accuracy, in [0, 1)
			}
			lJob, lStep, lValue = append(lJob, j.name), append(lStep, k), append(lValue, v)
			lValid, lHigher = append(lValid, true), append(lHigher, j.higherBetter)
		}
		if j.lossCorrupted && len(lJob)-first > 20 {
			lValue[first+7] = math.NaN() // a diverged logging step
			lValue[first+13] *= 3        // a spike
			lValid[first+17] = false     // a missing value
		}
	}
	loss := table.New(schema.Loss, len(lJob))
	loss.SetStrings(col.Job, lJob, nil)
	loss.SetInt64s(col.Step, lStep, nil)
	loss.SetFloat64s(col.Value, lValue, lValid)
	loss.SetBools(col.HigherIsBetter, lHigher, nil)

	// Speed samples: each job profiled speedSamplesJob measured
	// configurations of its model, with p != w in most so that every term of
	// the model is identifiable; failed runs in the data stay failed.
	var sJob []string
	var sPS, sW []int64
	var sSpeed []float64
	for i, j := range testbedJobs {
		var rows []datasets.Measurement
		for _, mm := range ms {
			if mm.Model == j.model && mm.PS <= profileMaxTasks && mm.Workers <= profileMaxTasks {
				rows = append(rows, mm)
			}
		}
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		picked := rows[:min(speedSamplesJob, len(rows))]
		slices.SortFunc(picked, func(a, b datasets.Measurement) int {
			if a.PS != b.PS {
				return a.PS - b.PS
			}
			return a.Workers - b.Workers
		})
		factor := states[i].speed.Speed(1, 1) / mustRef(ms, j.model).Speed(1, 1)
		for _, mm := range picked {
			v := mm.Speed * factor * math.Exp(speedNoise*rng.NormFloat64())
			sJob, sPS, sW, sSpeed = append(sJob, j.name), append(sPS, int64(mm.PS)), append(sW, int64(mm.Workers)), append(sSpeed, v)
		}
	}
	speed := table.New(schema.Speed, len(sJob))
	speed.SetStrings(col.Job, sJob, nil)
	speed.SetInt64s(col.PS, sPS, nil)
	speed.SetInt64s(col.Workers, sW, nil)
	speed.SetFloat64s(col.Speed, sSpeed, nil)
	speed.SetStrings(col.Mode, make([]string, len(sJob)), make([]bool, len(sJob)))
	speed.SetInt64s(col.GlobalBatch, make([]int64, len(sJob)), make([]bool, len(sJob)))

	truth := table.New(schema.Truth, n)
	tb0, tb1, tb2, noise, conv, total := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var thetas [5][]float64
	for k := range thetas {
		thetas[k] = make([]float64, n)
	}
	for i, st := range states {
		tb0[i], tb1[i], tb2[i] = st.truthCurve.B0, st.truthCurve.B1, st.truthCurve.B2
		noise[i], conv[i], total[i] = lossNoise, float64(st.converge), st.total
		for k := range thetas {
			thetas[k][i] = st.speed.Theta[k]
		}
	}
	truth.SetStrings(col.Job, names, nil)
	truth.SetFloat64s(col.LossB0, tb0, nil)
	truth.SetFloat64s(col.LossB1, tb1, nil)
	truth.SetFloat64s(col.LossB2, tb2, nil)
	truth.SetFloat64s(col.LossNoise, noise, nil)
	truth.SetFloat64s(col.ConvergeEpoch, conv, nil)
	truth.SetFloat64s(col.TotalSteps, total, nil)
	for k := range thetas {
		truth.SetFloat64s(fmt.Sprintf("speed_theta%d", k), thetas[k], nil)
	}
	return []Named{{"cluster", cluster}, {"jobs", jobs}, {"loss", loss}, {"speed", speed}, {"truth", truth}}, nil
}

func mustRef(ms []datasets.Measurement, model string) fit.SpeedModel {
	f, err := datasets.ReferenceSpeedModel(ms, model)
	if err != nil {
		panic(err)
	}
	return f.Model
}

func testbedCluster() *table.Table {
	var names []string
	var gpu, cpu, memGB, net []float64
	for _, g := range testbedNodes {
		for i := 1; i <= g.count; i++ {
			names = append(names, fmt.Sprintf("%s-%02d", g.prefix, i))
			gpu, cpu, memGB, net = append(gpu, g.gpu), append(cpu, g.cpu), append(memGB, g.memGB), append(net, g.netGb)
		}
	}
	t := table.New(schema.Cluster, len(names))
	t.SetStrings(col.Node, names, nil)
	t.SetFloat64s("gpu", gpu, nil)
	t.SetFloat64s("cpu", cpu, nil)
	t.SetFloat64s("memory_gb", memGB, nil)
	t.SetFloat64s("net_gbps", net, nil)
	return t
}
