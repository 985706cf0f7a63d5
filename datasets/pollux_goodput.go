package datasets

import (
	"math"
	"slices"
)

// What an adaptive job (one whose batch size changes with its allocation,
// as Pollux's jobs do) needs of a profile: its progress by epoch, and the
// gradient statistics at a batch and epoch.

// InitBatch is the smallest profiled global batch: a step at it makes one
// unit of progress (validation-<batch>.csv's progress column).
func (p *PolluxProfile) InitBatch() float64 { return float64(p.Batches[0]) }

// MaxBatch is the largest profiled global batch, the largest a job may
// choose.
func (p *PolluxProfile) MaxBatch() float64 { return float64(p.Batches[len(p.Batches)-1]) }

// epochRows is how many epochs every profiled batch has a row of.
func (p *PolluxProfile) epochRows() int {
	rows := math.MaxInt
	for _, b := range p.Batches {
		rows = min(rows, len(p.Stats[b]))
	}
	return rows
}

// Progress is the progress at which a job completes its first epochs
// epochs, as Pollux's simulator has it (get_progress): the least progress
// any profiled batch had made after them; 0 for none. Epochs beyond the
// profiled ones repeat the last one's.
func (p *PolluxProfile) Progress(epochs int) float64 {
	if epochs <= 0 {
		return 0
	}
	rows := p.epochRows()
	at := func(k int) float64 {
		v := math.Inf(1)
		for _, b := range p.Batches {
			v = math.Min(v, p.Stats[b][k].Progress)
		}
		return v
	}
	if epochs <= rows {
		return at(epochs - 1)
	}
	last := at(rows - 1)
	prev := 0.0
	if rows > 1 {
		prev = at(rows - 2)
	}
	return last + float64(epochs-rows)*(last-prev)
}

// GradStats are the gradient's squared norm and variance during epoch
// (from 0) at a global batch, interpolated linearly between the two
// nearest profiled batches (Pollux's get_grad_stats); the batch is clamped
// to the profiled range and the epoch to the profiled epochs.
func (p *PolluxProfile) GradStats(batch float64, epoch int) (sqr, variance float64) {
	k := min(max(epoch, 0), p.epochRows()-1)
	batch = math.Min(math.Max(batch, p.InitBatch()), p.MaxBatch())
	i, found := slices.BinarySearch(p.Batches, int(math.Ceil(batch)))
	if found && float64(p.Batches[i]) == batch || i == 0 {
		s := p.Stats[p.Batches[i]][k]
		return s.GradSqr, s.GradVar
	}
	a, b := p.Batches[i-1], p.Batches[i]
	f := (batch - float64(a)) / float64(b-a)
	sa, sb := p.Stats[a][k], p.Stats[b][k]
	return sa.GradSqr + f*(sb.GradSqr-sa.GradSqr), sa.GradVar + f*(sb.GradVar-sa.GradVar)
}
