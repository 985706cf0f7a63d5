package solve

import (
	"strings"
	"testing"
)

func TestTiresiasLeastAttainedFirstAndGang(t *testing.T) {
	nodes := [][]float64{{4, 16}, {4, 16}}
	mk := func(name string, arrival float64, gpus int, attainedGPUh float64) Job {
		j := ringJob(name, arrival, 10)
		j.RequestWorkers, j.Attained, j.Executed = gpus, attainedGPUh*3600, attainedGPUh*3600/float64(gpus)
		return j
	}
	for _, c := range []struct {
		name   string
		jobs   []Job
		starve float64
		want   []int // workers per job; 0 waits
	}{
		// Below the 16 GPU-hour threshold all share queue 0: by arrival.
		{"fifo within a queue", []Job{mk("a", 0, 6, 1), mk("b", 1, 4, 0), mk("c", 2, 2, 0)}, 0, []int{6, 0, 2}},
		// a has attained 20 GPU-hours: queue 1, after b and c.
		{"demoted", []Job{mk("a", 0, 6, 20), mk("b", 1, 4, 0), mk("c", 2, 2, 0)}, 0, []int{0, 4, 2}},
		// The guard: a waited 6 h after 20/6 h of running (more than 1x): back in queue 0.
		{"starvation guard", []Job{func() Job { j := mk("a", 0, 6, 20); j.Waited = 6 * 3600; return j }(), mk("b", 1, 4, 0), mk("c", 2, 2, 0)}, 1, []int{6, 0, 2}},
	} {
		p := &Problem{Resources: resources, Nodes: nodes, Jobs: c.jobs}
		res := mustSolve(t, p, Options{Policy: Tiresias, TiresiasStarve: c.starve})
		for j, want := range c.want {
			d := res.Decisions[j]
			if d.Workers != want || d.PS != 0 || (want == 0) != (d.Status == Waiting) {
				t.Errorf("%s: job %s got %d workers (%s: %s), want %d", c.name, c.jobs[j].Name, d.Workers, d.Status, d.Reason, want)
			}
		}
	}
	if _, err := Solve(&Problem{Resources: resources, Nodes: nodes}, Options{Policy: Tiresias, TiresiasThresholds: []float64{10, 5}}); err == nil || !strings.Contains(err.Error(), "ascending") {
		t.Errorf("descending thresholds: %v", err)
	}
}
