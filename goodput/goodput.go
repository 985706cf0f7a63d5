// Package goodput is the goodput model of Pollux (Qiao et al., "Pollux:
// Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning",
// OSDI 2021, section 3): a job's useful training progress per second is its
// throughput (examples per second) times its statistical efficiency (the
// progress one example makes at the job's batch size, relative to the
// smallest batch).
//
// # Throughput
//
// One optimizer step of a job on r replicas over n nodes, each replica
// running a micro-batch of m examples s times before the step (s - 1
// accumulation steps), takes (PerfParams)
//
//	T_grad(m) = α_c + β_c·m
//	T_sync(n, r) = α_n + β_n·max(r-2, 0)   when n > 1 (inter-node)
//	             = α_r + β_r·max(r-2, 0)   when n = 1, r > 1 (intra-node)
//	             = 0                        when r = 1
//	T_step = (s-1)·T_grad + (T_grad^γ + T_sync^γ)^(1/γ)
//
// and the throughput is r·m·s / T_step examples per second.
//
// # Statistical efficiency
//
// With the gradient's squared norm |g|² and variance σ² measured at the
// initial batch M0 (GradParams), the gradient noise scale φ = σ²/|g|²·M0
// gives the efficiency of a batch M as (φ + M0) / (φ + M), written as
// gain/scale with scale = M/M0 and gain = (σ² + |g|²) / (σ²/scale + |g|²):
// a step at batch M makes gain times the progress of a step at M0.
//
// The formulas, their clamps (1e-8 in place of a zero network time) and the
// batch-size search (Function.Optimize) follow Pollux's simulator
// (petuum/adaptdl, branch osdi21-artifact, simulator/goodput.py).
package goodput

import (
	"math"
)

// PerfParams are the step-time model's parameters (see the package
// documentation).
type PerfParams struct {
	AlphaC, BetaC float64 // compute time: α_c + β_c·m
	AlphaN, BetaN float64 // inter-node synchronisation
	AlphaR, BetaR float64 // intra-node synchronisation
	Gamma         float64 // overlap of compute and synchronisation, in [1, 10]
}

// GradParams are the gradient statistics at the initial batch: squared
// norm and variance.
type GradParams struct {
	Sqr, Var float64
}

// tiny stands in for a zero term, as Pollux's model has it.
const tiny = 1e-8

// GradTime is the compute time of one micro-batch of atomic examples.
func (p PerfParams) GradTime(atomic float64) float64 { return p.AlphaC + p.BetaC*atomic }

// SyncTime is the synchronisation time of one step on replicas over nodes.
func (p PerfParams) SyncTime(nodes, replicas int) float64 {
	retro := math.Max(float64(replicas-2), tiny)
	switch {
	case nodes > 1:
		return p.AlphaN + p.BetaN*retro
	case replicas > 1:
		return p.AlphaR + p.BetaR*retro
	}
	return tiny + tiny*retro
}

// StepTime is the time of one optimizer step with accum accumulation steps
// before it (accum = 0: none).
func (p PerfParams) StepTime(nodes, replicas int, atomic float64, accum int) float64 {
	grad := p.GradTime(atomic)
	return float64(accum)*grad + p.optimTime(grad, p.SyncTime(nodes, replicas))
}

func (p PerfParams) optimTime(grad, sync float64) float64 {
	g := p.Gamma
	return math.Pow(math.Pow(grad, g)+math.Pow(sync, g), 1/g)
}

// Efficiency is the statistical efficiency of a global batch against the
// initial batch init (1 at init, falling towards init/batch as the batch
// grows past the gradient noise scale).
func (g GradParams) Efficiency(batch, init float64) float64 {
	scale := batch / init
	return g.Gain(scale) / scale
}

// Gain is the progress of one step at scale times the initial batch, in
// steps of the initial batch: (σ² + |g|²) / (σ²/scale + |g|²), 1 when the
// statistics are all zero.
func (g GradParams) Gain(scale float64) float64 {
	d := g.Var/scale + g.Sqr
	if !(d > 0) {
		return 1
	}
	return (g.Var + g.Sqr) / d
}

// Limits bound the batch-size choice of Function.Optimize.
type Limits struct {
	// MaxBatch is the largest global batch (0: the initial batch).
	MaxBatch float64
	// MinAtomic and MaxAtomic bound the per-replica micro-batch (0: 1 and
	// MaxBatch).
	MinAtomic, MaxAtomic float64
	// Accumulation allows gradient accumulation: a per-replica batch above
	// MaxAtomic runs in several micro-batches, and a single replica runs
	// one above the initial batch in two at least (the gradient statistics
	// need two micro-batches to be estimated).
	Accumulation bool
}

// Function is one job's goodput: throughput times statistical efficiency.
type Function struct {
	Perf      PerfParams
	Grad      GradParams
	InitBatch float64
}

// Throughput is examples per second on replicas over nodes at a
// micro-batch of atomic examples and accum accumulation steps.
func (f *Function) Throughput(nodes, replicas int, atomic float64, accum int) float64 {
	batch := float64(replicas) * atomic * float64(accum+1)
	return batch / f.Perf.StepTime(nodes, replicas, atomic, accum)
}

// Evaluate is the goodput of a configuration: Throughput times the
// efficiency of its global batch.
func (f *Function) Evaluate(nodes, replicas int, atomic float64, accum int) float64 {
	batch := float64(replicas) * atomic * float64(accum+1)
	return f.Throughput(nodes, replicas, atomic, accum) * f.Grad.Efficiency(batch, f.InitBatch)
}

// Choice is a configuration Optimize picked: its goodput, micro-batch and
// accumulation steps.
type Choice struct {
	Goodput float64
	Atomic  float64
	Accum   int
}

// Batch is the global batch of the choice on replicas.
func (c Choice) Batch(replicas int) float64 { return float64(replicas) * c.Atomic * float64(c.Accum+1) }

// candidates is how many global batches Optimize tries between the
// smallest and the largest, spaced geometrically (Pollux's 50).
const candidates = 50

// Optimize picks the global batch, micro-batch and accumulation steps of
// the highest goodput on replicas over nodes within lim: 50 batches
// spaced geometrically from max(InitBatch, MinAtomic·replicas) to
// MaxBatch, each split into whole micro-batches (see Limits). A batch whose
// micro-batch falls outside [MinAtomic, MaxAtomic] has goodput 0; the
// first best candidate wins a tie.
func (f *Function) Optimize(nodes, replicas int, lim Limits) Choice {
	maxBatch := lim.MaxBatch
	if !(maxBatch > 0) {
		maxBatch = f.InitBatch
	}
	minAtomic, maxAtomic := lim.MinAtomic, lim.MaxAtomic
	if !(minAtomic > 0) {
		minAtomic = 1
	}
	if !(maxAtomic > 0) {
		maxAtomic = maxBatch
	}
	r := float64(replicas)
	lo := math.Max(f.InitBatch, minAtomic*r)
	best := Choice{Goodput: math.Inf(-1)}
	// The terms that do not depend on the candidate, computed once: the
	// same operations as Evaluate and as numpy's geomspace (lo and hi exactly
	// at the ends), so the same bits.
	ev := f.evaluator(nodes, replicas)
	logLo := math.Log(lo)
	logSpan := math.Log(maxBatch) - logLo
	lastAtomic, lastAccum := math.NaN(), -1
	for i := range candidates {
		batch := lo
		switch i {
		case 0:
		case candidates - 1:
			batch = maxBatch
		default:
			batch = math.Exp(logLo + logSpan*float64(i)/float64(candidates-1))
		}
		local := batch / r
		accum := 0
		if lim.Accumulation {
			accum = int(math.Ceil(local/maxAtomic-1e-8)) - 1
			if replicas == 1 && local > f.InitBatch+1e-8 {
				accum = max(accum, 1)
			}
		}
		atomic := math.Ceil(local/float64(accum+1) - 1e-8)
		if atomic == lastAtomic && accum == lastAccum {
			continue // the same goodput as the previous one: not better
		}
		lastAtomic, lastAccum = atomic, accum
		g := 0.0
		if minAtomic <= atomic && atomic <= maxAtomic {
			g = ev.evaluate(atomic, accum)
		}
		if g > best.Goodput {
			best = Choice{Goodput: g, Atomic: atomic, Accum: accum}
		}
	}
	return best
}

// evaluator is Evaluate on fixed (nodes, replicas), with the powers that
// do not depend on the batch computed once.
type evaluator struct {
	f        *Function
	replicas float64
	syncPow  float64 // T_sync^γ
	invGamma float64 // 1/γ
}

func (f *Function) evaluator(nodes, replicas int) evaluator {
	g := f.Perf.Gamma
	return evaluator{f: f, replicas: float64(replicas),
		syncPow: math.Pow(f.Perf.SyncTime(nodes, replicas), g), invGamma: 1 / g}
}

// evaluate is f.Evaluate(nodes, replicas, atomic, accum), operation for
// operation.
func (e *evaluator) evaluate(atomic float64, accum int) float64 {
	p := &e.f.Perf
	batch := e.replicas * atomic * float64(accum+1)
	grad := p.GradTime(atomic)
	step := float64(accum)*grad + math.Pow(math.Pow(grad, p.Gamma)+e.syncPow, e.invGamma)
	return batch / step * e.f.Grad.Efficiency(batch, e.f.InitBatch)
}
