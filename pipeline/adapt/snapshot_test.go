package adapt_test

import (
	"errors"
	"math"
	"testing"

	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// The plan snapshot writes from the testbed plan's tasks (what apply put
// on the cluster) has the per-job figures optimus place computed.
// What snapshot says of the tasks that run (servers, evenness, cross-server
// traffic) is what place said of them: the testbed's parameter-server plan
// and the all-reduce plan of 8 jobs of Pollux's workload-1.
func TestSnapshotPlanMatchesPlace(t *testing.T) {
	for _, f := range []string{"../../apply/testdata/plan.csv", "../../apply/testdata/allreduce/plan.csv"} {
		t.Run(f, func(t *testing.T) { snapshotPlanMatchesPlace(t, f) })
	}
}

func snapshotPlanMatchesPlace(t *testing.T, file string) {
	placed, err := table.ReadFile(file, schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	p, err := adapt.ReadPlan(placed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := adapt.SnapshotPlan(p.Tasks, []string{"gpu", "cpu", "memory_gb", "net_gbps"})
	if err != nil {
		t.Fatal(err)
	}
	if got.NumRows() != len(p.Tasks) {
		t.Fatalf("%d rows, want %d", got.NumRows(), len(p.Tasks))
	}
	want := map[string][3]float64{} // job -> servers, even, cross
	for i, job := range placed.Strings("job") {
		even := 0.0
		if placed.Bools("job_even")[i] {
			even = 1
		}
		want[job] = [3]float64{float64(placed.Int64s("job_servers")[i]), even, placed.Float64s("job_cross_traffic")[i]}
	}
	for i, job := range got.Strings("job") {
		even := 0.0
		if got.Bools("job_even")[i] {
			even = 1
		}
		g := [3]float64{float64(got.Int64s("job_servers")[i]), even, got.Float64s("job_cross_traffic")[i]}
		w := want[job]
		if g[0] != w[0] || g[1] != w[1] || math.Abs(g[2]-w[2]) > 1e-12 {
			t.Errorf("job %s: servers, even, cross %v, place said %v", job, g, w)
		}
	}
}

func TestSnapshotClusterLeavesOutUnusableNodes(t *testing.T) {
	var left []string
	c, resources, err := adapt.SnapshotCluster([]executor.Node{
		{Name: "a", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64, "net_gbps": 10}},
		{Name: "b", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64}, Unusable: "cordoned"},
		{Name: "c", Capacity: map[string]float64{"gpu": 0, "cpu": 32, "memory_gb": 128}},
	}, func(name, why string) { left = append(left, name+": "+why) })
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "b: cordoned" {
		t.Errorf("left out %v", left)
	}
	if got := c.Strings("node"); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Errorf("nodes %v", got)
	}
	if want := []string{"gpu", "cpu", "memory_gb", "net_gbps"}; len(resources) != 4 || resources[3] != want[3] {
		t.Errorf("resources %v", resources)
	}
	if net := c.Float64s("net_gbps"); net[0] != 10 || net[1] != 0 {
		t.Errorf("net_gbps %v", net)
	}
}

// Whatever a source hands on, the snapshot tables are valid or the
// snapshot is refused naming the node or task (an input error, never an
// internal one).
func TestSnapshotRefusesBrokenSources(t *testing.T) {
	ok := executor.Node{Name: "gpu-01", Capacity: map[string]float64{"gpu": 4, "cpu": 16}}
	none := func(string, string) {}
	for _, tt := range []struct {
		nodes []executor.Node
		want  string
	}{
		{[]executor.Node{ok, ok}, `snapshot: node "gpu-01" is listed twice`},
		{[]executor.Node{{Name: "gpu-02", Capacity: map[string]float64{"net_gbps": -10}}}, `snapshot: node "gpu-02": capacity: net_gbps -10: amounts must be finite and not negative`},
		{[]executor.Node{{Name: "gpu-03", Capacity: map[string]float64{"cpu": math.Inf(1)}}}, `snapshot: node "gpu-03": capacity: cpu +Inf: amounts must be finite and not negative`},
	} {
		_, _, err := adapt.SnapshotCluster(tt.nodes, none)
		if err == nil || err.Error() != tt.want || !errors.Is(err, table.ErrInvalidInput) {
			t.Errorf("nodes %v: error %v, want the input error %q", tt.nodes, err, tt.want)
		}
	}
	task := executor.Task{Job: "a", Role: executor.RolePS, Node: "gpu-01", Resources: map[string]float64{"cpu": 2}}
	negative := task
	negative.Index, negative.Resources = 1, map[string]float64{"cpu": -2}
	for _, tt := range []struct {
		tasks []executor.Task
		want  string
	}{
		{[]executor.Task{task, task}, "snapshot: task a-ps-0 is listed twice"},
		{[]executor.Task{task, negative}, "snapshot: task a-ps-1: resources: cpu -2: amounts must be finite and not negative"},
	} {
		_, err := adapt.SnapshotPlan(tt.tasks, []string{"gpu", "cpu"})
		if err == nil || err.Error() != tt.want || !errors.Is(err, table.ErrInvalidInput) {
			t.Errorf("tasks %v: error %v, want the input error %q", tt.tasks, err, tt.want)
		}
	}
}
