package datatables

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// Synthetic workloads of any size, for `optimus datasets generate`, the
// solve and place benchmarks and tests: a cluster table and a predictions
// table (a jobs table with remaining steps and speed models) ready for
// `optimus solve`.

// WorkloadConfig sizes a generated workload.
type WorkloadConfig struct {
	Seed uint64
	// Tasks is the number of tasks (PS plus workers) the jobs ask for in
	// all: the sum of their max_ps and max_workers.
	Tasks int
	// Nodes is the number of nodes of the cluster.
	Nodes int
	// Running is the fraction of jobs (the earliest arrivals) that run now,
	// with an allocation of their own; the others have just arrived.
	Running float64
	// MaxJobWorkers bounds the workers one job asks for (0: 32).
	MaxJobWorkers int
	// AllReduce is the fraction of jobs that are all-reduce jobs (workers
	// only, one GPU each) of Pollux's applications at one of their
	// profiled batches, with the all-reduce model fitted to their profile
	// (PolluxTrueModel); 0 draws none, and leaves the tables as without
	// the field.
	AllReduce float64
}

// Node shapes of generated clusters: four in five nodes are GPU servers like
// a cloud 8-GPU instance (8 GPUs, 64 cores, 512 GB, 50 Gbit/s), the others
// CPU servers for parameter servers (96 cores, 384 GB, 50 Gbit/s).
var generatedNodeShapes = []struct {
	prefix string
	weight float64
	cap    [4]float64
}{
	{"gpu", 0.8, [4]float64{8, 64, 512, 50}},
	{"cpu", 0.2, [4]float64{0, 96, 384, 50}},
}

// Bounds of a generated workload, so that no flag sizes an allocation beyond
// reach (a 100,000-task workload takes about 100 MB).
const (
	MaxTasks = 10_000_000
	MaxNodes = 2_000_000
	// MaxGPUsPerNode bounds a Philly cluster's GPUs per node (nodes times
	// GPUs stays far from overflowing).
	MaxGPUsPerNode = 1024
)

// Workload generates a cluster of cfg.Nodes nodes and a predictions table
// of jobs that ask for cfg.Tasks tasks in all.
//
// Each job draws a model family (datasets.JobModels), a speed factor of its own (its
// speed model's coefficients divided by a factor in [0.9, 1.1]), a wanted
// size (workers log-uniform in [1, MaxJobWorkers], PS a quarter to all of
// that) and a remaining length (1 to 60 epochs, with p10/p90 at 0.8x and
// 1.3x the median). Its max_workers and max_ps are then where the optimus
// greedy would take it on its own, within the wanted size: the walk from 1
// PS + 1 worker that adds the task of larger marginal gain while one has a
// positive gain. So with enough capacity `optimus solve` allocates exactly
// cfg.Tasks tasks, which is what the scale benchmark needs. The last job is
// cut to make the total exact.
//
// The first cfg.Running of the jobs (by arrival) run now with a random
// allocation within their limits, have trained some epochs, and carry
// speed_now and eta_s. The same seed gives the same tables.
func Workload(cfg WorkloadConfig) (cluster, predictions *table.Table, err error) {
	if cfg.Tasks < 2 {
		return nil, nil, fmt.Errorf("tasks %d: a job needs at least 2 (1 PS + 1 worker)", cfg.Tasks)
	}
	if cfg.Nodes < 1 {
		return nil, nil, fmt.Errorf("nodes %d: need at least 1", cfg.Nodes)
	}
	if !(cfg.Running >= 0 && cfg.Running <= 1) {
		return nil, nil, fmt.Errorf("running fraction %v: must be in [0, 1]", cfg.Running)
	}
	if !(cfg.AllReduce >= 0 && cfg.AllReduce <= 1) {
		return nil, nil, fmt.Errorf("all-reduce fraction %v: must be in [0, 1]", cfg.AllReduce)
	}
	if cfg.Tasks > MaxTasks || cfg.Nodes > MaxNodes || cfg.MaxJobWorkers > MaxTasks {
		return nil, nil, fmt.Errorf("tasks %d, nodes %d, most workers per job %d: at most %d tasks and %d nodes",
			cfg.Tasks, cfg.Nodes, cfg.MaxJobWorkers, MaxTasks, MaxNodes)
	}
	maxW := cfg.MaxJobWorkers
	if maxW <= 0 {
		maxW = 32
	}
	models, err := datasets.JobModels()
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6e6e7261746f72))
	var ar *allReduceModels
	if cfg.AllReduce > 0 {
		if ar, err = newAllReduceModels(); err != nil {
			return nil, nil, err
		}
	}

	// The cluster.
	width := len(fmt.Sprint(cfg.Nodes))
	nodeNames := make([]string, cfg.Nodes)
	caps := make([][]float64, len(datasets.GeneratedResources))
	for r := range caps {
		caps[r] = make([]float64, cfg.Nodes)
	}
	var capacity [4]float64
	for i := range cfg.Nodes {
		shape := generatedNodeShapes[len(generatedNodeShapes)-1]
		u := rng.Float64()
		for _, s := range generatedNodeShapes {
			if u < s.weight {
				shape = s
				break
			}
			u -= s.weight
		}
		nodeNames[i] = numbered(shape.prefix, width, i+1)
		for r := range datasets.GeneratedResources {
			caps[r][i] = shape.cap[r]
			capacity[r] += shape.cap[r]
		}
	}
	cluster = table.New(schema.Cluster, cfg.Nodes)
	cluster.SetStrings(col.Node, nodeNames, nil)
	for r, name := range datasets.GeneratedResources {
		cluster.SetFloat64s(name, caps[r], nil)
	}

	// The jobs.
	type genJob struct {
		model       *datasets.JobModel
		speed       fit.SpeedModel
		maxPS, maxW int
		remaining   float64
		doneEpochs  float64
	}
	var jobs []genJob
	left := cfg.Tasks
	for left > 0 {
		var j genJob
		if ar != nil && rng.Float64() < cfg.AllReduce {
			m, sm := ar.draw(rng)
			wantW := int(math.Round(math.Exp(rng.Float64() * math.Log(float64(maxW)))))
			w := allReduceWalk(sm, min(wantW, m.maxWorkers, left))
			remaining := float64(1+rng.IntN(60)) * float64(m.EpochSteps) * (0.5 + rng.Float64())
			jobs = append(jobs, genJob{model: &m.JobModel, speed: sm, maxW: w, remaining: math.Round(remaining),
				doneEpochs: math.Floor(rng.Float64() * 30)})
			left -= w
			continue
		}
		for try := 0; ; try++ {
			m := &models[rng.IntN(len(models))]
			factor := 0.9 + 0.2*rng.Float64()
			sm := m.Speed
			for k := range sm.Theta {
				sm.Theta[k] /= factor
			}
			wantW := int(math.Round(math.Exp(rng.Float64() * math.Log(float64(maxW)))))
			wantP := max(1, int(math.Round(float64(wantW)*(0.25+0.75*rng.Float64()))))
			budget := left
			p, w := greedyWalk(sm, m, capacity, wantP, wantW, budget)
			if left-(p+w) == 1 {
				// One task would be left over: take one fewer, or draw again.
				if p+w > 2 {
					p, w = greedyWalk(sm, m, capacity, wantP, wantW, p+w-1)
				} else if try < 100 {
					continue
				}
			}
			remaining := float64(1+rng.IntN(60)) * float64(m.EpochSteps) * (0.5 + rng.Float64())
			j = genJob{model: m, speed: sm, maxPS: p, maxW: w, remaining: math.Round(remaining),
				doneEpochs: math.Floor(rng.Float64() * 30)}
			break
		}
		jobs = append(jobs, j)
		left -= j.maxPS + j.maxW
		if left == 1 { // only when draws kept failing: give the last job one more
			jobs[len(jobs)-1].maxW++
			left = 0
		}
	}

	n := len(jobs)
	running := int(math.Round(cfg.Running * float64(n)))
	jw := len(fmt.Sprint(n))
	var (
		names, modelNames, modes, images, commands, sources, lq, sq []string
		batch, epochSteps, progress, curPS, curW, maxPS, maxWk      []int64
		arrivals, weights, p10, p50, p90, totalEpochs               []float64
		speedNow, eta                                               []float64
		nowOK, budgetOK, maxPSOK                                    []bool
		thetas                                                      [5][]float64
		demands                                                     [2][4][]float64
	)
	for _, col := range []*[]string{&names, &modelNames, &modes, &images, &commands, &sources, &lq, &sq} {
		*col = make([]string, 0, n)
	}
	for _, col := range []*[]int64{&batch, &epochSteps, &progress, &curPS, &curW, &maxPS, &maxWk} {
		*col = make([]int64, 0, n)
	}
	for _, col := range []*[]float64{&arrivals, &weights, &p10, &p50, &p90, &totalEpochs, &speedNow, &eta,
		&thetas[0], &thetas[1], &thetas[2], &thetas[3], &thetas[4]} {
		*col = make([]float64, 0, n)
	}
	for _, col := range []*[]bool{&nowOK, &budgetOK, &maxPSOK} {
		*col = make([]bool, 0, n)
	}
	for k := range demands {
		for r := range demands[k] {
			demands[k][r] = make([]float64, 0, n)
		}
	}
	arrival := 0.0
	for i, j := range jobs {
		arrival += math.Round(rng.ExpFloat64() * 60)
		names = append(names, numbered("job", jw, i+1))
		modelNames = append(modelNames, j.model.Name)
		modes = append(modes, j.speed.Mode)
		batch = append(batch, int64(j.speed.GlobalBatch))
		es := int64(j.model.EpochSteps)
		epochSteps = append(epochSteps, es)
		arrivals = append(arrivals, arrival)
		weights = append(weights, 1)
		budgetOK = append(budgetOK, false)
		maxPS, maxWk = append(maxPS, int64(j.maxPS)), append(maxWk, int64(j.maxW))
		maxPSOK = append(maxPSOK, j.maxPS > 0) // an all-reduce job has none
		var cp, cw int64
		var done float64
		if i < running {
			if j.maxPS > 0 {
				cp = int64(1 + rng.IntN(j.maxPS))
			}
			cw = int64(1 + rng.IntN(j.maxW))
			done = j.doneEpochs * float64(es)
		}
		curPS, curW = append(curPS, cp), append(curW, cw)
		progress = append(progress, int64(done))
		p10, p50, p90 = append(p10, math.Round(0.8*j.remaining)), append(p50, j.remaining), append(p90, math.Round(1.3*j.remaining))
		totalEpochs = append(totalEpochs, (done+j.remaining)/float64(es))
		sources = append(sources, "fit")
		lq, sq = append(lq, "good"), append(sq, "good")
		for k := range thetas {
			thetas[k] = append(thetas[k], j.speed.Theta[k])
		}
		if cw > 0 {
			f := j.speed.Speed(int(cp), int(cw))
			speedNow, eta, nowOK = append(speedNow, f), append(eta, j.remaining/f), append(nowOK, true)
		} else {
			speedNow, eta, nowOK = append(speedNow, 0), append(eta, 0), append(nowOK, false)
		}
		images = append(images, j.model.Image)
		commands = append(commands, j.model.Command)
		for r := range 4 {
			demands[0][r] = append(demands[0][r], j.model.Worker[r])
			demands[1][r] = append(demands[1][r], j.model.PS[r])
		}
	}
	t := table.New(schema.Predictions, n)
	t.SetStrings(col.Job, names, nil)
	t.SetStrings(col.Model, modelNames, nil)
	t.SetStrings(col.Mode, modes, nil)
	t.SetInt64s(col.GlobalBatch, batch, nil)
	t.SetInt64s(col.EpochSteps, epochSteps, nil)
	t.SetFloat64s(col.ArrivalS, arrivals, nil)
	t.SetFloat64s(col.Weight, weights, nil)
	t.SetFloat64s(col.EpochBudget, make([]float64, n), budgetOK)
	t.SetInt64s(col.ProgressSteps, progress, nil)
	t.SetInt64s(col.PS, curPS, nil)
	t.SetInt64s(col.Workers, curW, nil)
	t.SetInt64s(col.MaxPS, maxPS, maxPSOK)
	t.SetInt64s(col.MaxWorkers, maxWk, nil)
	t.SetStrings(col.Image, images, nil)
	t.SetStrings(col.Command, commands, nil)
	t.SetFloat64s(col.RemainingStepsP10, p10, nil)
	t.SetFloat64s(col.RemainingStepsP50, p50, nil)
	t.SetFloat64s(col.RemainingStepsP90, p90, nil)
	t.SetFloat64s(col.TotalEpochsP50, totalEpochs, nil)
	t.SetStrings(col.RemainingSource, sources, nil)
	for k := range thetas {
		t.SetFloat64s(fmt.Sprintf("speed_theta%d", k), thetas[k], nil)
	}
	t.SetStrings(col.LossQuality, lq, nil)
	t.SetStrings(col.SpeedQuality, sq, nil)
	t.SetFloat64s(col.SpeedNow, speedNow, nowOK)
	t.SetFloat64s(col.EtaS, eta, nowOK)
	for r, name := range datasets.GeneratedResources {
		t.SetFloat64s("worker_"+name, demands[0][r], nil)
	}
	for r, name := range datasets.GeneratedResources {
		t.SetFloat64s("ps_"+name, demands[1][r], nil)
	}
	if cluster, err = table.Conform(cluster); err != nil {
		return nil, nil, err
	}
	if predictions, err = table.Conform(t); err != nil {
		return nil, nil, err
	}
	return cluster, predictions, nil
}

// numbered is prefix-n with n zero-padded to width digits, as
// fmt.Sprintf("%s-%0*d") makes it, for n >= 0.
func numbered(prefix string, width, n int) string {
	b := make([]byte, 0, len(prefix)+1+max(width, 20))
	b = append(b, prefix...)
	b = append(b, '-')
	digits := strconv.AppendInt(nil, int64(n), 10)
	for range width - len(digits) {
		b = append(b, '0')
	}
	return string(append(b, digits...))
}

// greedyWalk follows the optimus greedy for one job alone on a cluster of
// the given total capacity: from 1 PS + 1 worker, add the task (PS or
// worker) of larger marginal gain, (T(p,w) - T(p',w')) / dominant share,
// while it is positive, the job's wanted size allows it, and p + w stays
// within budget. The gains of the solver are these times the job's weight
// and remaining steps, which changes neither their sign nor their order.
func greedyWalk(sm fit.SpeedModel, m *datasets.JobModel, capacity [4]float64, wantP, wantW, budget int) (p, w int) {
	share := func(d [4]float64) float64 {
		s := 0.0
		for r, x := range d {
			if capacity[r] > 0 {
				s = math.Max(s, x/capacity[r])
			}
		}
		return s
	}
	sw, sp := share(m.Worker), share(m.PS)
	inv := func(p, w int) float64 { return 1 / sm.Speed(p, w) }
	// here is inv(p, w); a step's two neighbours are computed once, and the
	// one taken is the next step's here.
	p, w = 1, 1
	here := inv(p, w)
	for p+w < budget {
		gw, gp := math.Inf(-1), math.Inf(-1)
		var moreW, moreP float64
		if w < wantW && sw > 0 {
			moreW = inv(p, w+1)
			gw = (here - moreW) / sw
		}
		if p < wantP && sp > 0 {
			moreP = inv(p+1, w)
			gp = (here - moreP) / sp
		}
		switch {
		case gw <= 0 && gp <= 0:
			return p, w
		case gw >= gp:
			w, here = w+1, moreW
		default:
			p, here = p+1, moreP
		}
	}
	return p, w
}
