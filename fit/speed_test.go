package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Samples of a known model give it back.
func TestFitSpeedRecoversModel(t *testing.T) {
	for _, truth := range []SpeedModel{
		{Mode: Sync, GlobalBatch: 64, Theta: [5]float64{1e-4, 0.01, 0.02, 0.001, 0.0005}},
		{Mode: Async, Theta: [5]float64{0.05, 0.02, 0.001, 0.002}},
	} {
		var samples []SpeedSample
		for _, c := range SuggestConfigs(nil, Grid(8, 8), 10) {
			samples = append(samples, SpeedSample{PS: c.PS, Workers: c.Workers, Speed: truth.Speed(c.PS, c.Workers)})
		}
		samples = append(samples, SpeedSample{PS: 3, Workers: 3, Speed: 0}, SpeedSample{PS: 2, Workers: 5, Speed: math.NaN()})
		f, err := FitSpeed(truth.Mode, truth.GlobalBatch, samples)
		if err != nil {
			t.Fatal(err)
		}
		if f.Used != 10 || f.Failed != 2 {
			t.Errorf("%s: used %d failed %d", truth.Mode, f.Used, f.Failed)
		}
		for _, c := range Grid(16, 16) {
			if got, want := f.Model.Speed(c.PS, c.Workers), truth.Speed(c.PS, c.Workers); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("%s: f(%d, %d) = %v, want %v", truth.Mode, c.PS, c.Workers, got, want)
			}
		}
	}
}

func TestSuggestAvoidsTheDiagonal(t *testing.T) {
	picks := SuggestConfigs(nil, Grid(12, 12), 10)
	if picks[0] != (Config{PS: 1, Workers: 1}) {
		t.Errorf("first pick %v, want 1 PS + 1 worker", picks[0])
	}
	diag := 0
	for _, c := range picks {
		if c.PS == c.Workers {
			diag++
		}
	}
	if diag > 3 {
		t.Errorf("%d of 10 picks on ps == workers: %v", diag, picks)
	}
	if !Identifiable(Sync, 32, picks) {
		t.Errorf("picks %v do not identify the sync model", picks)
	}
	// The authors' sampling, ps == workers, cannot separate the w/p term
	// from the constant.
	var diagonal []Config
	for i := 1; i <= 10; i++ {
		diagonal = append(diagonal, Config{PS: i, Workers: i})
	}
	if Identifiable(Sync, 32, diagonal) || Identifiable(Async, 0, diagonal) {
		t.Error("ps == workers samples called identifiable")
	}
	// Measured configurations are not suggested again.
	for _, c := range SuggestConfigs(picks[:5], Grid(12, 12), 5) {
		for _, m := range picks[:5] {
			if c == m {
				t.Errorf("suggested %v again", c)
			}
		}
	}
}

func TestQuantileMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 500; trial++ {
		xs := make([]float64, 1+rng.IntN(40))
		for i := range xs {
			xs[i] = float64(rng.IntN(10)) // ties on purpose
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		for _, q := range []float64{0, 0.1, 0.5, 0.9, 1} {
			h := q * float64(len(sorted)-1)
			lo := math.Floor(h)
			want := sorted[int(lo)]
			if int(lo)+1 < len(sorted) {
				want += (h - lo) * (sorted[int(lo)+1] - sorted[int(lo)])
			}
			if got := Quantile(xs, q); got != want {
				t.Fatalf("Quantile(%v, %v) = %v, want %v", xs, q, got, want)
			}
		}
	}
}
