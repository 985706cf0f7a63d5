package simulatecmd_test

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// --compare gives, beside each policy's mean JCT, its p95 JCT and makespan,
// and the smallest and largest of the three over the seeds: the figures
// of sim_summary's runs, seed by seed; with one seed the spread is null.
func TestComparisonShowsP95MakespanAndSpread(t *testing.T) {
	args := []string{"simulate", "--seeds", "1-2", "--policies", "optimus,optimus-srtf,tiresias", "--intervals=false", "--format", "csv", "-q"}
	read := func(s *schema.Table, extra ...string) *table.Table {
		code, out, stderr := optimus.Run(t, nil, append(args, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		tab, err := table.Read(bytes.NewReader(out), "stdout", s)
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	// The runs' own sim_summary: --dir writes it beside the comparison
	// of the same runs.
	dir := t.TempDir()
	cmp := read(schema.SimComparison, "--compare", "--dir", dir)
	sum, err := table.ReadFile(filepath.Join(dir, "sim_summary.parquet"), schema.SimSummary)
	if err != nil {
		t.Fatal(err)
	}
	type spread struct{ sum, lo, hi float64 }
	want := map[string]map[string]*spread{}
	for i, pol := range sum.Strings("policy") {
		if want[pol] == nil {
			want[pol] = map[string]*spread{}
		}
		for _, c := range []string{"mean_jct_s", "p95_jct_s", "makespan_s"} {
			x := sum.Float64s(c)[i]
			s := want[pol][c]
			if s == nil {
				s = &spread{lo: x, hi: x}
				want[pol][c] = s
			}
			s.sum, s.lo, s.hi = s.sum+x, math.Min(s.lo, x), math.Max(s.hi, x)
		}
	}
	pols := cmp.Strings("policy")
	if len(pols) != 3 {
		t.Fatalf("%d rows, want 3 policies", len(pols))
	}
	for i, pol := range pols {
		for c, w := range want[pol] {
			mean, lo, hi := cmp.Float64s(c)[i], cmp.Float64s(c + "_min")[i], cmp.Float64s(c + "_max")[i]
			if math.Abs(mean-w.sum/2) > 1e-9*w.sum || lo != w.lo || hi != w.hi {
				t.Errorf("%s %s: %g (%g-%g), the runs give %g (%g-%g)", pol, c, mean, lo, hi, w.sum/2, w.lo, w.hi)
			}
			if !(lo < hi) {
				t.Errorf("%s %s: %g-%g over two seeds of different workloads", pol, c, lo, hi)
			}
		}
	}
	one := read(schema.SimComparison, "--compare", "--seeds", "1")
	for _, c := range []string{"mean_jct_s_min", "mean_jct_s_max", "p95_jct_s_min", "p95_jct_s_max", "makespan_s_min", "makespan_s_max"} {
		if n := one.NullCount(c); n != 3 {
			t.Errorf("one seed: %s has %d nulls of 3", c, n)
		}
	}
	if one.NullCount("p95_jct_s") != 0 {
		t.Errorf("one seed: p95_jct_s has nulls")
	}
}
