package solve

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Round after round of random changes, TiresiasMemo's decisions and packing
// are Solve's, and it reuses a result only when the problem changed where
// Tiresias does not look (remaining work, attained service within a queue).
func TestTiresiasMemoAsSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	nodes := [][]float64{{4, 16}, {4, 16}, {2, 8}}
	jobs := make([]Job, 6)
	for i := range jobs {
		jobs[i] = ringJob(string(rune('a'+i)), float64(i), 10)
		jobs[i].RequestWorkers = 1 + rng.IntN(4)
	}
	var m TiresiasMemo
	reused, solved := 0, 0
	var last *Result
	for round := range 300 {
		p := &Problem{Resources: resources, Nodes: nodes, Jobs: slices.Clone(jobs)}
		opts := Options{Policy: Tiresias, TiresiasStarve: 1}
		got, err := m.Solve(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := mustSolve(t, p, opts)
		if got == last {
			reused++
		} else {
			solved++
		}
		last = got
		for j := range p.Jobs {
			g, w := got.Decisions[j], want.Decisions[j]
			if g.PS != w.PS || g.Workers != w.Workers || g.Status != w.Status || g.Reason != w.Reason {
				t.Fatalf("round %d, job %s: memo %+v, Solve %+v", round, p.Jobs[j].Name, g, w)
			}
		}
		if !slices.EqualFunc(got.Packing, want.Packing, slices.Equal) {
			t.Fatalf("round %d: memo packing %v, Solve %v", round, got.Packing, want.Packing)
		}
		// The next round: everyone trains a little (what the memo
		// ignores); now and then a job gains a queue, changes its
		// request, or waits long enough for the starvation guard.
		for i := range jobs {
			j := &jobs[i]
			j.Remaining = math.Max(1, j.Remaining-rng.Float64())
			j.Attained += rng.Float64() * 600
			j.Executed += rng.Float64() * 60
			j.CurWorkers = want.Decisions[i].Workers
			switch rng.IntN(40) {
			case 0:
				j.Attained += 16 * 3600
			case 1:
				j.RequestWorkers = 1 + rng.IntN(4)
			case 2:
				j.Waited = 100 * j.Executed
			case 3:
				j.Waited = 0
			}
		}
	}
	if reused < 50 || solved < 20 {
		t.Errorf("reused %d, solved %d of 300 rounds: the test does not exercise both", reused, solved)
	}
	// Another policy is solved every time.
	p := &Problem{Resources: resources, Nodes: nodes, Jobs: jobs}
	a, _ := m.Solve(p, Options{Policy: FIFO})
	b, _ := m.Solve(p, Options{Policy: FIFO})
	if a == b {
		t.Error("fifo: the memo reused a result")
	}
}
