package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// The committed package col is what the generator writes from today's
// declarations: a column added, renamed or removed in io/schema without
// go generate fails here.
func TestColumnsAreGenerated(t *testing.T) {
	want, err := Render(schema.All)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../col/columns_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("io/schema/col/columns_gen.go is stale: run go generate ./io/schema/col")
	}
}

func TestIdent(t *testing.T) {
	for name, want := range map[string]string{
		"job":             "Job",
		"alloc_ps":        "AllocPS",
		"mean_jct_s":      "MeanJCTS",
		"loss_cov_b0b1":   "LossCovB0B1",
		"speed_theta0":    "SpeedTheta0",
		"p90_rel_err":     "P90RelErr",
		"loss_first50_b0": "LossFirst50B0",
	} {
		if got := Ident(name); got != want {
			t.Errorf("Ident(%q) = %s, want %s", name, got, want)
		}
	}
}

// Two names that make one Go name are refused, not written twice.
func TestCollidingNamesAreAnError(t *testing.T) {
	tabs := []*schema.Table{{Name: "a", Columns: []schema.Column{{Name: "alloc_ps"}, {Name: "allocPS"}}}}
	if _, err := Render(tabs); err == nil {
		t.Fatal("no error for alloc_ps and allocPS")
	}
}
