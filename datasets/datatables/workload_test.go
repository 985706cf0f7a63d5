package datatables

import (
	"fmt"
	"testing"

	"github.com/optimus-sched/optimus/io/table"
)

func TestWorkloadIsDeterministicAndSizedByTasks(t *testing.T) {
	for _, tasks := range []int{2, 3, 5, 17, 100, 1001, 20000} {
		cfg := WorkloadConfig{Seed: 7, Tasks: tasks, Nodes: 1 + tasks/6, Running: 0.3}
		c1, p1, err := Workload(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c2, p2, err := Workload(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := table.Diff(c1, c2); d != "" {
			t.Errorf("%d tasks: clusters differ: %s", tasks, d)
		}
		if d := table.Diff(p1, p2); d != "" {
			t.Errorf("%d tasks: predictions differ: %s", tasks, d)
		}
		if c1.NumRows() != cfg.Nodes {
			t.Errorf("%d nodes asked, %d generated", cfg.Nodes, c1.NumRows())
		}
		sum, running := int64(0), 0
		ps, w, cp, cw := p1.Int64s("max_ps"), p1.Int64s("max_workers"), p1.Int64s("ps"), p1.Int64s("workers")
		for i := range ps {
			sum += ps[i] + w[i]
			if ps[i] < 1 || w[i] < 1 || cp[i] > ps[i] || cw[i] > w[i] {
				t.Errorf("job %d: limits %d+%d, running %d+%d", i, ps[i], w[i], cp[i], cw[i])
			}
			if cp[i] > 0 {
				running++
			}
		}
		if sum != int64(tasks) {
			t.Errorf("%d tasks asked, the limits sum to %d", tasks, sum)
		}
		if want := int(0.3*float64(p1.NumRows()) + 0.5); running != want {
			t.Errorf("%d tasks: %d jobs running, want %d of %d", tasks, running, want, p1.NumRows())
		}
	}
	_, a, _ := Workload(WorkloadConfig{Seed: 1, Tasks: 500, Nodes: 100})
	_, b, _ := Workload(WorkloadConfig{Seed: 2, Tasks: 500, Nodes: 100})
	if table.Diff(a, b) == "" {
		t.Error("seeds 1 and 2 gave the same workload")
	}
	for _, bad := range []WorkloadConfig{{Tasks: 1, Nodes: 1}, {Tasks: 10}, {Tasks: 10, Nodes: 1, Running: 2}} {
		if _, _, err := Workload(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestNumberedPadsAsSprintf(t *testing.T) {
	for _, c := range []struct {
		prefix   string
		width, n int
	}{{"job", 5, 1}, {"job", 5, 14366}, {"gpu8", 5, 16000}, {"n", 1, 7}, {"n", 2, 123}, {"x", 0, 0}, {"", 3, 4}} {
		want := fmt.Sprintf("%s-%0*d", c.prefix, c.width, c.n)
		if got := numbered(c.prefix, c.width, c.n); got != want {
			t.Errorf("numbered(%q, %d, %d) = %q, want %q", c.prefix, c.width, c.n, got, want)
		}
	}
}
