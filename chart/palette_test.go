package chart

import (
	"slices"
	"testing"
)

// A listed policy has its palette colour whatever policies it is drawn
// with; unlisted ones get distinct colours, the same in any order; a job's
// colour is a function of its name alone.
func TestPolicyColours(t *testing.T) {
	seen := map[string]string{}
	for p, c := range thePalette().Policies {
		if other, dup := seen[c]; dup {
			t.Errorf("palette.json: %s and %s share %s", p, other, c)
		}
		seen[c] = p
		if slices.Contains(thePalette().UnknownPolicies, c) {
			t.Errorf("palette.json: %s's colour %s is also one for unlisted policies", p, c)
		}
	}
	sets := [][]string{
		{"optimus", "drf", "tetris", "fifo", "tiresias", "mine", "theirs", "allocation-x"},
		{"allocation-x", "theirs", "tiresias", "fifo", "mine", "tetris", "drf", "optimus"},
	}
	a, b := policyColours(sets[0]), policyColours(sets[1])
	byColour := map[string]string{}
	for _, p := range sets[0] {
		if a[p] != b[p] {
			t.Errorf("%s is %s in one order and %s in another", p, a[p], b[p])
		}
		if other, dup := byColour[a[p]]; dup {
			t.Errorf("%s and %s share %s", p, other, a[p])
		}
		byColour[a[p]] = p
	}
	if got := policyColours([]string{"fifo"})["fifo"]; got != a["fifo"] || got != thePalette().Policies["fifo"] {
		t.Errorf("fifo alone is %s, with others %s", got, a["fifo"])
	}
	if jobColour("resnet50-a") != thePalette().Jobs[4284220463%uint32(len(thePalette().Jobs))] {
		t.Error("a job's colour is not FNV-1a of its name into palette.json's jobs")
	}
	if lineType("oracle") != "dashed" || lineType("fitted") != "solid" {
		t.Error("oracle knowledge is not dashed")
	}
}
