package datatables

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// ProfilesTable is the profiles table of ps, of kind measured: the true
// speed is the embedded measurements of the model (ProfileSpeedsTable),
// the speed_theta columns the model fitted to them.
func ProfilesTable(ps []datasets.SimProfile) *table.Table {
	n := len(ps)
	t := table.New(schema.Profiles, n)
	model, kind, mode := make([]string, n), make([]string, n), make([]string, n)
	var theta [5][]float64
	for k := range theta {
		theta[k] = make([]float64, n)
	}
	b0, b1, b2, ln, sn := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range ps {
		model[i], kind[i], mode[i] = p.Model, "measured", p.Speed.Mode
		for k := range theta {
			theta[k][i] = p.Speed.Theta[k]
		}
		b0[i], b1[i], b2[i], ln[i], sn[i] = p.Loss.B0, p.Loss.B1, p.Loss.B2, lossNoise, speedNoise
	}
	t.SetStrings(col.Model, model, nil)
	t.SetStrings(col.Kind, kind, nil)
	t.SetStrings(col.SpeedMode, mode, nil)
	for k := range theta {
		t.SetFloat64s(fmt.Sprintf("speed_theta%d", k), theta[k], nil)
	}
	t.SetFloat64s(col.LossB0, b0, nil)
	t.SetFloat64s(col.LossB1, b1, nil)
	t.SetFloat64s(col.LossB2, b2, nil)
	t.SetFloat64s(col.LossNoise, ln, nil)
	t.SetFloat64s(col.SpeedNoise, sn, nil)
	return t
}

// ProfileSpeedsTable is the profile_speeds table of the embedded
// measurements of the models of ps (failed runs kept, as speed 0).
func ProfileSpeedsTable(ps []datasets.SimProfile) (*table.Table, error) {
	ms, err := datasets.Measured()
	if err != nil {
		return nil, err
	}
	var model []string
	var p, w []int64
	var speed []float64
	for _, prof := range ps {
		for _, m := range ms {
			if m.Model == prof.Model {
				model, p, w, speed = append(model, m.Model), append(p, int64(m.PS)), append(w, int64(m.Workers)), append(speed, m.Speed)
			}
		}
	}
	t := table.New(schema.ProfileSpeeds, len(model))
	t.SetStrings(col.Model, model, nil)
	t.SetInt64s(col.PS, p, nil)
	t.SetInt64s(col.Workers, w, nil)
	t.SetFloat64s(col.MeasuredSpeed, speed, nil)
	return t, nil
}

// simTables is a workload's tables with the profiles of the measured models.
func simTables(cluster *table.Table, jobs []SimJob, profs []datasets.SimProfile) ([]Named, error) {
	speeds, err := ProfileSpeedsTable(profs)
	if err != nil {
		return nil, err
	}
	return []Named{{"cluster", cluster}, {"workload", WorkloadTable(jobs)}, {"profiles", ProfilesTable(profs)}, {"profile_speeds", speeds}}, nil
}

// SimJob is one generated workload job.
type SimJob struct {
	Name, Model                  string
	Arrival                      float64
	Profile                      *datasets.SimProfile
	EpochBudget                  float64 // 0: none
	SpeedScale, ConvergenceScale float64
	MaxPS, MaxWorkers            int // 0: no limit
}

// WorkloadTable is the workload table of jobs (in arrival order).
func WorkloadTable(jobs []SimJob) *table.Table {
	n := len(jobs)
	t := table.New(schema.Workload, n)
	name, model, mode := make([]string, n), make([]string, n), make([]string, n)
	batch, steps, maxPS, maxW := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	arrival, weight, budget, ss, cs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	budgetOK, maxPSOK, maxWOK := make([]bool, n), make([]bool, n), make([]bool, n)
	var dem [8][]float64
	for k := range dem {
		dem[k] = make([]float64, n)
	}
	for i, j := range jobs {
		p := j.Profile
		name[i], model[i], mode[i] = j.Name, p.Model, p.Speed.Mode
		batch[i], steps[i] = int64(p.Speed.GlobalBatch), int64(p.EpochSteps)
		arrival[i], weight[i], budget[i], budgetOK[i] = j.Arrival, 1, j.EpochBudget, j.EpochBudget > 0
		ss[i], cs[i] = j.SpeedScale, j.ConvergenceScale
		maxPS[i], maxPSOK[i], maxW[i], maxWOK[i] = int64(j.MaxPS), j.MaxPS > 0, int64(j.MaxWorkers), j.MaxWorkers > 0
		for k, d := range []datasets.Demand{p.Worker, p.PS} {
			dem[4*k][i], dem[4*k+1][i], dem[4*k+2][i], dem[4*k+3][i] = d.GPU, d.CPU, d.MemGB, d.NetGbps
		}
	}
	t.SetStrings(col.Job, name, nil)
	t.SetStrings(col.Model, model, nil)
	t.SetStrings(col.Mode, mode, nil)
	t.SetInt64s(col.GlobalBatch, batch, nil)
	t.SetInt64s(col.EpochSteps, steps, nil)
	t.SetFloat64s(col.ArrivalS, arrival, nil)
	t.SetFloat64s(col.Weight, weight, nil)
	t.SetFloat64s(col.EpochBudget, budget, budgetOK)
	t.SetFloat64s(col.SpeedScale, ss, nil)
	t.SetFloat64s(col.ConvergenceScale, cs, nil)
	t.SetInt64s(col.MaxPS, maxPS, maxPSOK)
	t.SetInt64s(col.MaxWorkers, maxW, maxWOK)
	for k, role := range []string{"worker_", "ps_"} {
		for r, res := range datasets.GeneratedResources {
			t.SetFloat64s(role+res, dem[4*k+r], nil)
		}
	}
	return t
}

// SimTestbed generates a workload like the paper's testbed experiment
// (section 6.1): 9 jobs over the measured model families (each family at
// least once) arriving over about an hour and a half on the testbed's 13
// servers. Each job has a speed of its own (0.9 to 1.1 of its family's)
// and converges at 0.7 to 1.4 times its family's epoch; one has an epoch
// budget. The profiles are of kind measured: jobs train at the embedded
// measurements' speeds. Tables: cluster, workload, profiles,
// profile_speeds.
func SimTestbed(seed uint64) ([]Named, error) {
	profs, err := datasets.SimProfiles()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5131))
	const n = 9
	order := make([]int, 0, n)
	for len(order) < n {
		order = append(order, rng.Perm(len(profs))...)
	}
	order = order[:n]
	jobs := make([]SimJob, n)
	arrival := 0.0
	count := map[string]int{}
	for i, k := range order {
		p := &profs[k]
		count[p.Model]++
		jobs[i] = SimJob{Name: fmt.Sprintf("%s-%d", p.Model, count[p.Model]), Model: p.Model, Arrival: math.Round(arrival), Profile: p,
			SpeedScale: 0.9 + 0.2*rng.Float64(), ConvergenceScale: 0.7 + 0.7*rng.Float64()}
		arrival += 1200 * rng.Float64()
	}
	jobs[rng.IntN(n)].EpochBudget = float64(20 + rng.IntN(21))
	return simTables(testbedCluster(), jobs, profs)
}

// PhillyConfig says what to sample from the trace.
type PhillyConfig struct {
	Jobs, Nodes, GPUsPerNode int
	// MaxDuration caps a job's trace duration, in seconds (0: no cap).
	MaxDuration float64
	Seed        uint64
}

// PhillyWorkload samples a workload of cfg.Jobs consecutive submissions
// of the trace from a random start, on a cluster of cfg.Nodes servers
// with cfg.GPUsPerNode GPUs each (and 8 cores, 32 GB per GPU, 10 Gbit/s
// per 4 GPUs). Each job keeps its arrival (relative to the first), gets a
// measured model family at random, asks for its trace's GPU count as
// max_workers and half of it as max_ps, and has an epoch budget such that
// at that request it trains for its trace duration (at the speed of the
// fitted model; the measured profiles' true speed differs from it by the
// model's error). Tables: cluster, workload, profiles, profile_speeds.
func PhillyWorkload(trace []datasets.PhillyJob, cfg PhillyConfig) ([]Named, error) {
	switch {
	case cfg.Jobs < 1 || cfg.Jobs > len(trace):
		return nil, fmt.Errorf("philly workload of %d jobs: give 1 to %d (the trace's jobs)", cfg.Jobs, len(trace))
	case cfg.Nodes < 1 || cfg.Nodes > MaxNodes:
		return nil, fmt.Errorf("philly workload on %d nodes: give 1 to %d", cfg.Nodes, MaxNodes)
	case cfg.GPUsPerNode < 1 || cfg.GPUsPerNode > MaxGPUsPerNode:
		return nil, fmt.Errorf("philly workload with %d GPUs per node: give 1 to %d", cfg.GPUsPerNode, MaxGPUsPerNode)
	}
	profs, err := datasets.SimProfiles()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9411))
	first := rng.IntN(len(trace) - cfg.Jobs + 1)
	sample := trace[first : first+cfg.Jobs]
	jobs := make([]SimJob, cfg.Jobs)
	for i, tj := range sample {
		p := &profs[rng.IntN(len(profs))]
		w := min(tj.GPUs, cfg.Nodes*cfg.GPUsPerNode)
		ps := max(1, w/2)
		d := tj.Duration
		if cfg.MaxDuration > 0 {
			d = math.Min(d, cfg.MaxDuration)
		}
		scale := 0.9 + 0.2*rng.Float64()
		speed := p.Speed
		for k := range speed.Theta {
			speed.Theta[k] /= scale
		}
		epochs := math.Max(0.01, d*speed.Speed(ps, w)/float64(p.EpochSteps))
		jobs[i] = SimJob{Name: fmt.Sprintf("philly-%05d", i+1), Model: p.Model, Arrival: tj.Submit.Sub(sample[0].Submit).Seconds(),
			Profile: p, EpochBudget: epochs, SpeedScale: scale, ConvergenceScale: 1, MaxPS: ps, MaxWorkers: w}
	}
	g := float64(cfg.GPUsPerNode)
	names := make([]string, cfg.Nodes)
	gpu, cpu, mem, net := make([]float64, cfg.Nodes), make([]float64, cfg.Nodes), make([]float64, cfg.Nodes), make([]float64, cfg.Nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%04d", i+1)
		gpu[i], cpu[i], mem[i], net[i] = g, 8*g, 32*g, 10*math.Ceil(g/4)
	}
	cluster := table.New(schema.Cluster, cfg.Nodes)
	cluster.SetStrings(col.Node, names, nil)
	cluster.SetFloat64s("gpu", gpu, nil)
	cluster.SetFloat64s("cpu", cpu, nil)
	cluster.SetFloat64s("memory_gb", mem, nil)
	cluster.SetFloat64s("net_gbps", net, nil)
	return simTables(cluster, jobs, profs)
}
