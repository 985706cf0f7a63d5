package datatables

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/fit"
)

// allReduceModel is a generated all-reduce job's family: a Pollux
// application at one profiled batch, its all-reduce model and the most
// workers it may take (batch / the smallest profiled per-GPU batch).
type allReduceModel struct {
	datasets.JobModel
	maxWorkers int
}

// allReduceModels are the all-reduce families generated jobs draw from, in
// a fixed order: every Pollux application at each profiled batch that
// splits over enough GPUs to fit its all-reduce model.
type allReduceModels struct{ models []allReduceModel }

// generatedGPUsPerNode is the GPUs of a generated GPU node.
const generatedGPUsPerNode = 8

func newAllReduceModels() (*allReduceModels, error) {
	profiles, err := datasets.PolluxProfiles()
	if err != nil {
		return nil, err
	}
	out := &allReduceModels{}
	for _, app := range datasets.PolluxApps {
		p := profiles[app]
		for _, b := range p.Batches {
			maxW := datasets.PolluxMaxReplicas(p, b, 64)
			if c, ok := datasets.PolluxReplicaCap[app]; ok {
				maxW = min(maxW, c)
			}
			if maxW < 2 {
				continue
			}
			f, err := datasets.PolluxTrueModel(p, b, maxW, generatedGPUsPerNode, 64/generatedGPUsPerNode)
			if err != nil {
				continue // too few configurations for the model's coefficients
			}
			steps, err := p.Steps(float64(b), 1)
			if err != nil {
				return nil, err
			}
			out.models = append(out.models, allReduceModel{maxWorkers: maxW, JobModel: datasets.JobModel{
				Name: app, Speed: f.Model, EpochSteps: max(1, int(steps+0.5)),
				// One GPU a worker, and a share of an 8-GPU node's cores,
				// memory and network.
				Worker:  [4]float64{1, 8, 64, 6},
				Image:   "example.com/optimus/pytorch-ddp:2.4",
				Command: fmt.Sprintf("torchrun train.py --model %s --batch-size %d", app, b),
			}})
		}
	}
	if len(out.models) == 0 {
		return nil, fmt.Errorf("no Pollux application splits over 2 GPUs")
	}
	slices.SortStableFunc(out.models, func(a, b allReduceModel) int {
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		return int(a.Speed.GlobalBatch - b.Speed.GlobalBatch)
	})
	return out, nil
}

// draw picks a family and scales its speed by a factor in [0.9, 1.1], as
// for parameter-server jobs.
func (a *allReduceModels) draw(rng *rand.Rand) (*allReduceModel, fit.SpeedModel) {
	m := &a.models[rng.IntN(len(a.models))]
	factor := 0.9 + 0.2*rng.Float64()
	sm := m.Speed
	for k := range sm.Theta {
		sm.Theta[k] /= factor
	}
	return m, sm
}

// allReduceWalk is greedyWalk for an all-reduce job: from 1 worker, add
// one while it shortens the step and fewer than most workers it may have.
func allReduceWalk(sm fit.SpeedModel, most int) int {
	w := 1
	for w < most && 1/sm.Speed(0, w+1) < 1/sm.Speed(0, w) {
		w++
	}
	return w
}
