package datasets

import (
	"math"
	"testing"
)

func TestPolluxProfilesRead(t *testing.T) {
	ps, err := PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	c := ps["cifar10"]
	// placements.csv: "1,32,0.0427886962890625,..." is one GPU at local batch 32.
	if got := c.StepTime([]int{1}, 32); math.Abs(got-0.0427886962890625) > 1e-12 {
		t.Errorf("cifar10 on 1 GPU at 32: %v", got)
	}
	// A rotation of a profiled placement is that placement.
	if a, b := c.StepTime([]int{2, 1, 0}, 96), c.StepTime([]int{1, 2}, 96); a != b {
		t.Errorf("placement 21 %v, 12 %v", a, b)
	}
	// Iterations per epoch at a profiled batch: validation-128.csv's first row.
	if it, err := c.Iterations(128, 1); err != nil || it != 390 {
		t.Errorf("cifar10 at 128, 1 epoch: %v %v", it, err)
	}
	if _, err := c.Iterations(64, 1); err == nil {
		t.Error("a batch below the profiled range was accepted")
	}
	for _, app := range PolluxApps {
		p := ps[app]
		for _, w := range []int{1, 2, 4, 8, 16, 32, 64} {
			var per []int
			for left := w; left > 0; left -= 4 {
				per = append(per, min(4, left))
			}
			st := p.StepTime(per, float64(p.Batches[len(p.Batches)-1]))
			if !(st > 0) || math.IsInf(st, 0) {
				t.Errorf("%s on %v: step time %v", app, per, st)
			}
		}
	}
}

// A job's steps as Pollux's simulator counts them (progress over the
// statistical gain), against figures computed from the same CSV files with
// its formulas in Python (get_progress, get_grad_stats, Job.step), and the
// iteration column they replace.
func TestPolluxSteps(t *testing.T) {
	ps, err := PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		app            string
		batch, epochs  int
		steps, iterCol float64
	}{
		{"cifar10", 2048, 100, 3343, 3178},
		{"ncf", 32768, 10, 1552, 1548},
		{"bert", 384, 2, 476, 480},
		{"yolov3", 64, 50, 15970, 14577},
		{"imagenet", 3200, 90, 42850, 42123},
	} {
		p := ps[c.app]
		got, err := p.Steps(float64(c.batch), c.epochs)
		if err != nil || math.Abs(got-c.steps) > 0.5 {
			t.Errorf("%s at %d, %d epochs: %v steps (%v), want %v", c.app, c.batch, c.epochs, got, err, c.steps)
		}
		it, err := p.Iterations(float64(c.batch), c.epochs)
		if err != nil || math.Abs(it-c.iterCol) > 0.5 {
			t.Errorf("%s at %d, %d epochs: iteration column %v (%v), want %v", c.app, c.batch, c.epochs, it, err, c.iterCol)
		}
	}
	// At the smallest profiled batch the gain is 1: an epoch is the least
	// progress any batch made in it.
	c := ps["cifar10"]
	least := math.Inf(1)
	for _, b := range c.Batches {
		least = math.Min(least, c.Stats[b][0].Progress)
	}
	if got, _ := c.Steps(128, 1); got != least {
		t.Errorf("cifar10 at 128, 1 epoch: %v steps, want %v", got, least)
	}
	if _, err := c.Steps(64, 1); err == nil {
		t.Error("a batch below the profiled range was accepted")
	}
}

// One GPU runs a batch above the smallest profiled one in two
// accumulation steps at least, as Pollux's simulator does; ncf's largest
// per-GPU batch is placements.csv's 32768, yolov3's Pollux's 8.
func TestPolluxAccumulation(t *testing.T) {
	ps, err := PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	n := ps["ncf"]
	if n.MaxLocal != 32768 || ps["yolov3"].MaxLocal != 8 {
		t.Errorf("largest per-GPU batch: ncf %v, yolov3 %v; want 32768, 8", n.MaxLocal, ps["yolov3"].MaxLocal)
	}
	half, sync := interpSteps(n.Placements["1"], 16384)
	if got, want := n.StepTime([]int{1}, 32768), half+(half-sync); math.Abs(got-want) > 1e-12 {
		t.Errorf("ncf on 1 GPU at 32768: %v, want two steps of 16384: %v", got, want)
	}
	// Two GPUs split the batch without accumulation.
	if two, _ := interpSteps(n.Placements["2"], 16384); n.StepTime([]int{2}, 32768) != two {
		t.Errorf("ncf on 2 GPUs at 32768: %v, want one step of 16384: %v", n.StepTime([]int{2}, 32768), two)
	}
	n.Departures.NoSingleGPUAccumulation = true
	// placements.csv: "1,32768,0.02131553226047092,..."
	if got := n.StepTime([]int{1}, 32768); math.Abs(got-0.02131553226047092) > 1e-12 {
		t.Errorf("ncf on 1 GPU at 32768 in one step: %v", got)
	}
	n.Departures.MaxLocalFromScalability = true
	if got := n.StepTime([]int{1}, 32768); !(got > 0.04) {
		t.Errorf("ncf on 1 GPU at 32768 split at scalability.csv's largest 5803: %v, want 6 accumulation steps", got)
	}
}

// What Pollux's Optimus+Oracle is told of a job's remaining work: the
// iteration column from the epoch it is in to the completion epoch, by
// whole epochs, and 1 in the last epoch.
func TestPolluxOptimusRemaining(t *testing.T) {
	ps, err := PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	c := ps["cifar10"]
	rem := c.OptimusRemaining(2048, 100)
	it := func(e int) float64 { v, _ := c.Iterations(2048, e); return v }
	end1, _ := c.Steps(2048, 1)
	end99, _ := c.Steps(2048, 99)
	for _, tc := range []struct {
		name     string
		progress float64
		want     float64
	}{
		{"at the start", 0, it(100) - it(1)},
		{"just before the first epoch ends", end1 - 1, it(100) - it(1)},
		{"at the first epoch's end", end1, it(100) - it(2)},
		{"in the last epoch", end99 + 1, 1},
	} {
		if got := rem(tc.progress); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s (%v steps): %v, want %v", tc.name, tc.progress, got, tc.want)
		}
	}
	if it(100)-it(1) >= 3343 {
		t.Errorf("at the start it is told %v steps, not fewer than the 3343 the job trains", it(100)-it(1))
	}
}
