package place

import (
	"testing"
)

func allReduceJob(name string, w int) Job {
	return Job{Name: name, Workers: w, Status: Running, WorkerDemand: []float64{1, 2}, PSDemand: []float64{0, 4}}
}

func TestAllReducePacksTheFewestNodes(t *testing.T) {
	names, caps := uniformNodes(4, 4, 16)
	// n1 has 3 GPUs free, n2 1, n0 and n3 all 4.
	caps[1][0], caps[2][0] = 3, 1
	for _, c := range []struct {
		w         int
		wantNodes int
		cross     float64
	}{
		{1, 1, 0}, // best fit: n2, the tightest that holds it
		{3, 1, 0}, // n1
		{4, 1, 0}, // n0
		{6, 2, 1 - float64(4*3+2*1)/30},
		{12, 4, -1}, // every GPU: 4 + 4 + 3 + 1
	} {
		p := &Problem{Resources: res2, Nodes: names, Capacity: caps, Jobs: []Job{allReduceJob("a", c.w)}}
		res := mustPlace(t, p, Options{})
		jp := res.Jobs[0]
		if jp.Status != Running || jp.Workers != c.w || jp.PS != 0 || jp.Servers != c.wantNodes {
			t.Errorf("%d workers: %+v, want %d nodes", c.w, jp, c.wantNodes)
		}
		if c.cross >= 0 && (jp.CrossTraffic-c.cross > 1e-12 || c.cross-jp.CrossTraffic > 1e-12) {
			t.Errorf("%d workers: cross traffic %v, want %v", c.w, jp.CrossTraffic, c.cross)
		}
	}
	// Best fit for one worker: the node with 1 GPU free.
	p := &Problem{Resources: res2, Nodes: names, Capacity: caps, Jobs: []Job{allReduceJob("a", 1)}}
	if n := mustPlace(t, p, Options{}).Tasks[0].Node; n != 2 {
		t.Errorf("1 worker on node %d, want 2 (the tightest)", n)
	}
	// More than the cluster: reduced to what fits.
	p = &Problem{Resources: res2, Nodes: names, Capacity: caps, Jobs: []Job{allReduceJob("a", 13)}}
	if jp := mustPlace(t, p, Options{}).Jobs[0]; jp.Workers != 12 || jp.Status != Running {
		t.Errorf("13 workers on 12 GPUs: %+v", jp)
	}
}

func TestAllReduceJobsSmallestFirstKeepNodesWhole(t *testing.T) {
	names, caps := uniformNodes(4, 4, 16)
	p := &Problem{Resources: res2, Nodes: names, Capacity: caps,
		Jobs: []Job{allReduceJob("big", 8), allReduceJob("s1", 2), allReduceJob("s2", 2), allReduceJob("s3", 4)}}
	res := mustPlace(t, p, Options{})
	for j, want := range []int{2, 1, 1, 1} {
		if got := res.Jobs[j].Servers; got != want || res.Jobs[j].Workers != p.Jobs[j].Workers {
			t.Errorf("job %s: %d workers on %d nodes, want on %d", p.Jobs[j].Name, res.Jobs[j].Workers, got, want)
		}
	}
}
