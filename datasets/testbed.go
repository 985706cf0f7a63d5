package datasets

import (
	"maps"

	"github.com/optimus-sched/optimus/fit"
)

// TestbedModel is what the testbed assumes of each model family.
type TestbedModel struct {
	Name string
	// EpochSteps makes an epoch last about five minutes at 1 PS + 1 worker
	// with the measured speeds, so that jobs run for hours as in the paper.
	EpochSteps int
	// Loss at the start and at convergence (cross-entropy over ImageNet's
	// 1000 classes starts at ln 1000 = 6.9; seq2seq over a 10k vocabulary at
	// 9.2; DSSM's logistic loss at ln 2).
	Loss0, LossEnd float64
	// Range of epochs to convergence under fit.DefaultRule.
	MinEpochs, MaxEpochs int
	// Per-task demands, after the authors' job repository (workers: 1 GPU,
	// 2 cores, 8-10 GB; PS: 3-4 cores, 9-10 GB); network from model size.
	Worker, PS Demand
	Script     string
}

// Demand is one task's demand of GPUs, cores, memory (GB) and network
// (Gbit/s), the resources of GeneratedResources in that order.
type Demand struct{ GPU, CPU, MemGB, NetGbps float64 }

var testbedModels = map[string]TestbedModel{
	"resnet-50": {"resnet-50", 5000, 6.9, 1.6, 40, 80, Demand{1, 2, 8, 1}, Demand{0, 3, 9, 2},
		"train_imagenet.py --network resnet --num-layers 50"},
	"vgg-16": {"vgg-16", 3000, 6.9, 1.9, 40, 80, Demand{1, 2, 10, 2}, Demand{0, 4, 10, 4},
		"train_imagenet.py --network vgg --num-layers 16"},
	"inception-bn": {"inception-bn", 50000, 6.9, 1.7, 30, 60, Demand{1, 2, 8, 1}, Demand{0, 3, 8, 1},
		"train_imagenet.py --network inception-bn"},
	"seq2seq": {"seq2seq", 80000, 9.2, 2.4, 15, 35, Demand{1, 2, 10, 1}, Demand{0, 3, 10, 2},
		"sockeye.train --encoder rnn --decoder rnn"},
	"dssm": {"dssm", 140000, 0.69, 0.25, 10, 25, Demand{1, 4, 6, 1}, Demand{0, 2, 6, 1},
		"train_dssm.py"},
}

// TestbedModels returns the model families the testbed and the generated
// workloads assume, by name (a copy: changing it changes nothing here).
func TestbedModels() map[string]TestbedModel {
	return maps.Clone(testbedModels)
}

// CurveConvergingAt returns the loss curve of the model that starts at
// Loss0, tends to LossEnd and, under fit.DefaultRule, converges at (or as
// near as whole epochs allow to) the target epoch, and that epoch.
func (m TestbedModel) CurveConvergingAt(target int) (fit.Curve, int) {
	c := fit.Curve{B1: 1 / (m.Loss0 - m.LossEnd), B2: m.LossEnd}
	epochOf := func(b0 float64) int {
		c.B0 = b0
		e, _ := fit.DefaultRule.ConvergenceEpoch(c, float64(m.EpochSteps), m.Loss0)
		return e
	}
	// A fast-falling curve (large b0) converges early; as b0 shrinks the
	// convergence epoch grows, until the curve is so flat that it counts as
	// converged at once. Walk down from large b0 on that first branch.
	b0, e := 1e3, 0
	for ; b0 > 1e-15; b0 /= 1.01 {
		if e = epochOf(b0); e >= target {
			break
		}
	}
	c.B0 = b0
	return c, e
}
