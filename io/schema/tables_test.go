package schema

import (
	"reflect"
	"testing"
)

// Some tables repeat a group of another's columns (the tables are
// composite literals, so that no code builds them at start-up): each copy
// must stay the same declaration, documentation included.
func TestRepeatedColumnsAgree(t *testing.T) {
	group := func(tab *Table, names ...string) []Column {
		var cs []Column
		for _, n := range names {
			c, ok := tab.Column(n)
			if !ok {
				t.Fatalf("%s has no column %s", tab.Name, n)
			}
			cs = append(cs, c)
		}
		return cs
	}
	speed := []string{"speed_theta0", "speed_theta1", "speed_theta2", "speed_theta3", "speed_theta4"}
	want := group(Models, speed...)
	for _, tab := range []*Table{Predictions, Truth} {
		if got := group(tab, speed...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's speed model columns differ from models': %+v", tab.Name, got)
		}
	}
	run := []string{"policy", "knowledge", "seed"}
	want = group(SimJobs, run...)
	for _, tab := range []*Table{SimAllocations, SimUtilisation, SimSummary} {
		if got := group(tab, run...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's run columns differ from sim_jobs': %+v", tab.Name, got)
		}
		if !reflect.DeepEqual(tab.Columns[:3], want) {
			t.Errorf("%s does not start with the run columns", tab.Name)
		}
	}
	if got := group(SimComparison, "policy", "knowledge"); !reflect.DeepEqual(got, want[:2]) {
		t.Errorf("sim_comparison's policy and knowledge differ from sim_jobs': %+v", got)
	}
	// The loss curve coefficients of models follow one pattern per fit.
	for _, p := range []string{"loss", "loss_first50", "loss_first75", "loss_last50"} {
		cs := group(Models, p+"_b0", p+"_b1", p+"_b2")
		for i, c := range cs {
			if c.Type != Float64 || !c.Nullable || c.Min == nil || *c.Min != 0 || (i == 0) != (c.Unit == "1/steps") {
				t.Errorf("models.%s: %+v", c.Name, c)
			}
		}
	}
}
