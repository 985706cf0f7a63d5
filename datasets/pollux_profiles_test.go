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
