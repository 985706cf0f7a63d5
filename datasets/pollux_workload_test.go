package datasets

import (
	"math"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/fit"
)

func TestPolluxWorkload1(t *testing.T) {
	jobs, _, err := PolluxWorkload1()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 160 {
		t.Fatalf("%d jobs, want 160", len(jobs))
	}
	// cifar10-0,107,cifar10,6,2048: 100 epochs; ncf's replicas are capped at 1.
	for _, j := range jobs {
		switch j.Name {
		case "cifar10-0":
			if j.Arrival != 107 || j.Replicas != 6 || j.Batch != 2048 || j.Epochs != 100 || j.MaxReplicas != 64 {
				t.Errorf("cifar10-0: %+v", j)
			}
		case "ncf-2":
			if j.Replicas != 1 || j.MaxReplicas != 1 || j.Epochs != 10 {
				t.Errorf("ncf-2: %+v", j)
			}
		}
		if !(j.TotalSteps > 0) || j.EpochSteps < 1 {
			t.Errorf("%s: %v steps, %d a epoch", j.Name, j.TotalSteps, j.EpochSteps)
		}
	}
}

func TestPolluxWorkloadBadInput(t *testing.T) {
	profiles, err := PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	head := "name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\n"
	for _, tc := range []struct{ row, want string }{
		{"gpt-1,200,gpt,4,512\n", `w.csv: column "application", row 2 (line 3): job "gpt-1": application "gpt" has no profile (profiled: bert, cifar10, deepspeech2, imagenet, ncf, yolov3)`},
		{"cifar10-1,200,cifar10,4,64\n", `w.csv: column "batch_size", row 2 (line 3): job "cifar10-1": batch size 64 is outside the profiled range 128-4096 of cifar10`},
		{"cifar10-1,200,cifar10,65,4096\n", `w.csv: column "num_replicas", row 2 (line 3): job "cifar10-1" asks for 65 GPUs, more than the cluster's 64`},
		{"cifar10-1,soon,cifar10,4,4096\n", `w.csv: column "time", row 2 (line 3): "soon" is not a time >= 0 in seconds`},
	} {
		_, err := ReadPolluxWorkload(strings.NewReader(head+tc.row), "w.csv", profiles, 64)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v\nwant %s", tc.row, err, tc.want)
		}
	}
}

// The bar: fitted to an application's placements.csv, the all-reduce
// model never predicts a job on fewer nodes slower than the same GPUs at
// the same per-GPU batch spread wider where the profile measured the
// fewer nodes faster, and it fits the profile's step times.
func TestAllReduceModelOnPolluxPlacements(t *testing.T) {
	profiles, err := PolluxProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, app := range PolluxApps {
		p := profiles[app]
		samples := PolluxSpeedSamples(p)
		f, err := fit.FitSpeed(fit.AllReduce, 0, samples)
		if err != nil {
			t.Fatalf("%s: %v", app, err)
		}
		type key struct {
			w     int
			local float64
		}
		byKey := map[key][]fit.SpeedSample{}
		for _, s := range samples {
			byKey[key{s.Workers, s.LocalBatch}] = append(byKey[key{s.Workers, s.LocalBatch}], s)
		}
		pairs := 0
		for _, ss := range byKey {
			for _, a := range ss {
				for _, b := range ss {
					if a.Nodes < b.Nodes && a.Speed >= b.Speed {
						pairs++
						if pa, pb := f.Model.SampleSpeed(a), f.Model.SampleSpeed(b); pa < pb {
							t.Errorf("%s: %d GPUs at %g: %d nodes predicted %v, slower than %d nodes' %v", app, a.Workers, a.LocalBatch, a.Nodes, pa, b.Nodes, pb)
						}
					}
				}
			}
		}
		if pairs == 0 {
			t.Errorf("%s: no pair of placements to compare", app)
		}
		if f.MedianRelErr > 0.12 || math.IsNaN(f.MedianRelErr) {
			t.Errorf("%s: median relative error %.3f over %d placements", app, f.MedianRelErr, f.Used)
		}
		t.Logf("%s: %d samples, %d pairs, median error %.3f, max %.3f, θ %.4g", app, f.Used, pairs, f.MedianRelErr, f.MaxRelErr, f.Model.Theta)
	}
}

// The most GPUs Optimus may give a job is its batch over the smallest
// profiled per-GPU batch, from the profiles, for every application of
// workload-1 (at most the cluster's 64); ncf's 1 is Pollux's simulator's
// own cap by hand: the profiles alone allow it 64.
func TestPolluxMaxReplicasFromProfiles(t *testing.T) {
	jobs, profiles, err := PolluxWorkload1()
	if err != nil {
		t.Fatal(err)
	}
	// Smallest local_bsz of each placements.csv, and workload-1's batches.
	want := map[string]map[int]int{
		"bert":        {384: 64},            // 384 / 4 = 96
		"cifar10":     {2048: 64, 4096: 64}, // / 32
		"deepspeech2": {320: 32, 640: 64},   // / 10
		"imagenet":    {3200: 64, 6400: 64}, // / 20
		"ncf":         {32768: 64},          // / 32 = 1024
		"yolov3":      {64: 16},             // / 4
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		w, ok := want[j.App][j.Batch]
		if !ok {
			t.Fatalf("%s: batch %d not in the table", j.Name, j.Batch)
		}
		if got := PolluxMaxReplicas(profiles[j.App], j.Batch, 64); got != w {
			t.Errorf("%s: batch %d: %d GPUs at most, want %d", j.Name, j.Batch, got, w)
		}
		cap := w
		if j.App == "ncf" {
			cap = 1
		}
		if j.MaxReplicas != cap {
			t.Errorf("%s: MaxReplicas %d, want %d", j.Name, j.MaxReplicas, cap)
		}
		seen[j.App] = true
	}
	if len(seen) != len(PolluxApps) {
		t.Errorf("applications seen: %v", seen)
	}
	// Without Pollux's cap by hand, ncf gets what its profile allows.
	profiles["ncf"].Departures.NoNCFCap = true
	f, err := polluxFS.Open("data/pollux/workloads/workload-1.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	free, err := ReadPolluxWorkload(f, "workload-1.csv", profiles, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range free {
		if j.App == "ncf" && j.MaxReplicas != 64 {
			t.Errorf("%s without the cap: %d GPUs at most, want 64", j.Name, j.MaxReplicas)
		}
	}
}
