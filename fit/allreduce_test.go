package fit

import (
	"math"
	"testing"
)

// ringModel is an all-reduce model of a job of global batch 512: 2 ms per
// example, 10 ms a step, 20 ms to all-reduce within a node, 60 ms more
// across nodes and 5 ms more per worker beyond 2 across nodes.
var ringModel = SpeedModel{Mode: AllReduce, GlobalBatch: 512, Theta: [5]float64{0.002, 0.01, 0.02, 0.06, 0.005}, WorkersPerNode: 4}

func TestAllReduceSpeedSeesNodes(t *testing.T) {
	for _, c := range []struct {
		w, nodes int
		want     float64 // step time, s
	}{
		{1, 1, 0.002*512 + 0.01},
		{4, 1, 0.002*128 + 0.01 + 0.02},
		{4, 2, 0.002*128 + 0.01 + 0.02 + 0.06 + 0.005*2},
		{8, 2, 0.002*64 + 0.01 + 0.02 + 0.06 + 0.005*6},
	} {
		if got := 1 / ringModel.SpeedOn(c.w, c.nodes, 512/float64(c.w)); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("w=%d on %d nodes: step time %v, want %v", c.w, c.nodes, got, c.want)
		}
	}
	if ringModel.Speed(1, 4) != 0 {
		t.Error("an all-reduce job with a PS has a speed")
	}
	// Speed(0, w) assumes the fewest nodes: 4 workers on one node, 5 on two.
	if got, want := ringModel.Speed(0, 4), ringModel.SpeedOn(4, 1, 128); got != want {
		t.Errorf("Speed(0, 4) = %v, want one node's %v", got, want)
	}
	if got, want := ringModel.Speed(0, 5), ringModel.SpeedOn(5, 2, 512/5.0); got != want {
		t.Errorf("Speed(0, 5) = %v, want two nodes' %v", got, want)
	}
	// Fewer nodes are never slower, whatever θ >= 0.
	for w := 2; w <= 16; w++ {
		for n := 2; n <= w; n++ {
			if ringModel.SpeedOn(w, n-1, 32) < ringModel.SpeedOn(w, n, 32) {
				t.Errorf("%d workers: %d nodes slower than %d", w, n-1, n)
			}
		}
	}
}

func TestFitAllReduceRecoversTheModel(t *testing.T) {
	var samples []SpeedSample
	var configs []Config
	for _, c := range AllReduceGrid(16, 4, 8) {
		s := SpeedSample{Workers: c.Workers, Nodes: c.Nodes, Speed: ringModel.SpeedOn(c.Workers, c.Nodes, 512/float64(c.Workers))}
		samples = append(samples, s)
		configs = append(configs, SampleConfig(s))
	}
	samples = append(samples, SpeedSample{PS: 1, Workers: 2, Speed: 3}) // a PS sample: not all-reduce
	f, err := FitSpeed(AllReduce, 512, samples)
	if err != nil {
		t.Fatal(err)
	}
	if f.Failed != 1 || f.Used != len(samples)-1 {
		t.Errorf("used %d, failed %d", f.Used, f.Failed)
	}
	for k, want := range ringModel.Theta {
		if math.Abs(f.Model.Theta[k]-want) > 1e-6*math.Max(want, 1e-3) {
			t.Errorf("θ%d = %v, want %v", k, f.Model.Theta[k], want)
		}
	}
	if f.MaxRelErr > 1e-6 || f.Verdict(Identifiable(AllReduce, 512, configs)) != QualityGood {
		t.Errorf("max error %v, verdict %s", f.MaxRelErr, f.Verdict(Identifiable(AllReduce, 512, configs)))
	}
	// On one node only, the network terms cannot be told apart.
	var oneNode []Config
	for w := 1; w <= 4; w++ {
		oneNode = append(oneNode, Config{Workers: w, Nodes: 1})
	}
	if Identifiable(AllReduce, 512, oneNode) {
		t.Error("single-node samples identify the across-node terms")
	}
	picks := SuggestConfigs(nil, AllReduceGrid(16, 4, 16), 6)
	if !Identifiable(AllReduce, 512, picks) {
		t.Errorf("6 suggested configurations %v do not identify the model", picks)
	}
}
