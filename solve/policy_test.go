package solve

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// Every schema column that names allocation policies takes its values from
// the registry: the ones that refer to schema.AllocPolicies hold exactly
// the registered policies, in the registry's order, and no other column
// lists policy names of its own (a closed list would miss the next policy).
func TestSchemaEnumsAreTheRegistry(t *testing.T) {
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	if got := schema.AllocPolicies.Values(); !slices.Equal(got, names) {
		t.Errorf("schema.AllocPolicies = %v, the registry %v", got, names)
	}
	var bound []string
	for _, tab := range schema.All {
		for _, c := range tab.AllColumns() {
			named := 0
			for _, v := range c.Enum {
				if LookupPolicy(Policy(v)) != nil {
					named++
				}
			}
			switch {
			case c.Values == schema.AllocPolicies:
				bound = append(bound, tab.Name+"."+c.Name)
				if !slices.Equal(c.Enum, names) {
					t.Errorf("%s.%s: enum %v, the registry %v", tab.Name, c.Name, c.Enum, names)
				}
			case named > 1:
				t.Errorf("%s.%s: a closed enum %v names policies: refer to schema.AllocPolicies", tab.Name, c.Name, c.Enum)
			}
		}
	}
	for _, want := range []string{"allocation.alloc_policy", "sim_summary.policy", "sim_jobs.policy"} {
		if !slices.Contains(bound, want) {
			t.Errorf("%s does not take its values from the registry (columns that do: %v)", want, bound)
		}
	}
}

// The registry lists the default first, every entry complete, and every
// policy plans a problem within the cluster and the jobs' limits.
func TestRegistry(t *testing.T) {
	if Policies[0] != Optimus || DefaultOptions().Policy != Optimus {
		t.Errorf("Policies = %v: the default (optimus) is not first", Policies)
	}
	want := []Policy{Optimus, DRF, Tetris, FIFO, Tiresias}
	if !slices.Equal(Policies[:len(want)], want) {
		t.Errorf("Policies = %v, want the built-in ones first in the order %v", Policies, want)
	}
	flags := map[string]bool{}
	for _, k := range Knobs() {
		if flags[k.Flag] {
			t.Errorf("two knobs called --%s", k.Flag)
		}
		flags[k.Flag] = true
		if k.Usage == "" || k.Value == nil || k.Check == nil {
			t.Errorf("--%s: incomplete knob", k.Flag)
		}
	}
	for _, f := range []string{"restart-cost", "tetris-srtf", "baseline-cap", "tiresias-thresholds", "tiresias-starve"} {
		if !flags[f] {
			t.Errorf("no knob --%s", f)
		}
	}
	if got := KnobUsage(baselineCapKnob); !strings.HasPrefix(got, "drf, tetris: ") {
		t.Errorf("--baseline-cap's help %q does not name the policies that read it", got)
	}
	if _, err := ParsePolicy("sjf"); err == nil || !strings.Contains(err.Error(), "optimus, drf, tetris, fifo, tiresias") {
		t.Errorf("ParsePolicy(sjf): %v", err)
	}
	p := &Problem{Resources: resources, Nodes: [][]float64{{4, 16}, {4, 16}},
		Jobs: []Job{simpleJob(t, "a", 0, 2), simpleJob(t, "b", 1, 5), simpleJob(t, "c", 2, 1)}}
	for _, e := range PolicyEntries() {
		res := mustSolve(t, p, Options{Policy: e.Name})
		checkInvariants(t, p, res)
		// These are parameter-server jobs: pollux plans all-reduce jobs
		// only (TestPolluxPlansAllReduceJobs), so it runs none of them.
		if res.Policy != e.Name || (res.Running == 0) != (e.Name == Pollux) {
			t.Errorf("%s: policy %s, %d running", e.Name, res.Policy, res.Running)
		}
	}
}

// Validate rejects every value no flag should take, naming the flag and the
// value; the defaults pass.
func TestValidate(t *testing.T) {
	if err := DefaultOptions().Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for _, tc := range []struct {
		set  func(*Options)
		want string
	}{
		{func(o *Options) { o.Policy = "sjf" }, `--policy: no policy "sjf"`},
		{func(o *Options) { o.Capacity = "racks" }, `--capacity: no capacity check "racks"`},
		{func(o *Options) { o.RestartCost = math.NaN() }, "--restart-cost NaN: give a number of seconds >= 0"},
		{func(o *Options) { o.RestartCost = math.Inf(1) }, "--restart-cost +Inf"},
		{func(o *Options) { o.RestartCost = -5 }, "--restart-cost -5"},
		{func(o *Options) { o.TetrisSRTFWeight = math.NaN() }, "--tetris-srtf NaN: give a weight in [0, 1]"},
		{func(o *Options) { o.TetrisSRTFWeight = 1.5 }, "--tetris-srtf 1.5"},
		{func(o *Options) { o.BaselineCap = 0 }, "--baseline-cap 0: give at least 1"},
		{func(o *Options) { o.TiresiasThresholds = []float64{7200, 3600} }, "--tiresias-thresholds [2,1]: give ascending"},
		{func(o *Options) { o.TiresiasThresholds = []float64{math.NaN()} }, "--tiresias-thresholds [NaN]"},
		{func(o *Options) { o.TiresiasThresholds = []float64{math.Inf(1)} }, "--tiresias-thresholds [+Inf]"},
		{func(o *Options) { o.TiresiasStarve = math.Inf(1) }, "--tiresias-starve +Inf"},
		{func(o *Options) { o.TiresiasStarve = -1 }, "--tiresias-starve -1"},
	} {
		o := DefaultOptions()
		tc.set(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}

// A knob's flag value parses and prints in the flag's unit.
func TestKnobValues(t *testing.T) {
	o := DefaultOptions()
	th := tiresiasThresholdsKnob.Value(&o)
	if th.String() != "[16]" {
		t.Errorf("default thresholds print as %s", th.String())
	}
	if err := th.Set("1,2.5"); err != nil {
		t.Fatal(err)
	}
	if err := th.Set("4"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.TiresiasThresholds, []float64{3600, 9000, 14400}) || th.String() != "[1,2.5,4]" {
		t.Errorf("thresholds %v (%s)", o.TiresiasThresholds, th)
	}
	if th.Set("x") == nil || baselineCapKnob.Value(&o).Set("1.5") == nil || restartCostKnob.Value(&o).Set("") == nil {
		t.Error("a value that is not a number was accepted")
	}
	if err := baselineCapKnob.Value(&o).Set("8"); err != nil || o.BaselineCap != 8 {
		t.Errorf("--baseline-cap 8: %d, %v", o.BaselineCap, err)
	}
}
