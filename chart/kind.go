// Package chart draws optimus' tables as self-contained HTML pages with
// go-echarts: convergence fits (loss), speed models (speed), allocations
// (allocation), placements (plan), simulations (simulation), and the report
// of a pipeline run.
//
// It is pure: it takes tables already read (package io/table) and returns a
// Page, whose Render writes the same bytes for the same tables. echarts'
// JavaScript is embedded (see assets.go), so pages work offline.
//
// Each kind of chart is one file that registers a Kind: its name, the tables
// it reads and a Build function. The chart command makes one subcommand per
// registered kind, so adding a kind is adding one file (two for the
// simulation kind, split by size).
package chart

import (
	"fmt"
	"sort"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

// Main is the name of a kind's main input, the table given with -i.
const Main = "input"

// Input is one table a kind reads.
type Input struct {
	// Flag is Main for the main input (-i), or the name of the flag that
	// gives this side input (--models).
	Flag     string
	Schema   *schema.Table
	Required bool
	// Many inputs may be given more than once (allocations of several
	// policies, side by side).
	Many bool
	Doc  string
}

// Kind is one kind of chart.
type Kind struct {
	Name    string
	Short   string // one line, for the command's help
	Long    string // what the page shows
	Example string
	Inputs  []Input // Inputs[0] is the main input
	// PerJob kinds draw one chart per job of the main table (see
	// SelectJobs).
	PerJob bool
	// Seeded kinds draw optimus simulate's runs, whose tables have a seed
	// column (see SelectSeeds).
	Seeded bool
	Build  func(Tables) (*Page, error)
}

// MaxJobCharts is the most per-job charts a page draws; the page says when
// it leaves jobs out (pick them with SelectJobs).
const MaxJobCharts = 60

// SelectJobs keeps the rows of t whose job is one of jobs, and says which
// of jobs t lacks.
func SelectJobs(t *table.Table, jobs []string) (*table.Table, error) {
	want := map[string]bool{}
	for _, j := range jobs {
		want[j] = true
	}
	var rows []int
	found := map[string]bool{}
	for i, j := range t.Strings(col.Job) {
		if want[j] {
			rows = append(rows, i)
			found[j] = true
		}
	}
	for _, j := range jobs {
		if !found[j] {
			return nil, table.Errorf(t.Source, "no job %q in the %s table", j, t.Name)
		}
	}
	return t.Take(rows), nil
}

// SelectSeeds keeps the rows of seeds in the main table (a seeded kind
// draws its side tables for the main table's seeds), and says which of
// seeds it lacks.
func SelectSeeds(in Tables, seeds []int64) error {
	want := map[int64]bool{}
	for _, s := range seeds {
		want[s] = true
	}
	for n, t := range in[Main] {
		var rows []int
		found := map[int64]bool{}
		for i, s := range t.Int64s(col.Seed) {
			found[s] = true
			if want[s] {
				rows = append(rows, i)
			}
		}
		for _, s := range seeds {
			if !found[s] {
				return table.Errorf(t.Source, "no seed %d in the %s table", s, t.Name)
			}
		}
		in[Main][n] = t.Take(rows)
	}
	return nil
}

// Tables are a kind's inputs by flag (Main for -i); an input not given is
// absent.
type Tables map[string][]*table.Table

// One is the (first) table given for flag, or nil.
func (t Tables) One(flag string) *table.Table {
	if ts := t[flag]; len(ts) > 0 {
		return ts[0]
	}
	return nil
}

var kinds = map[string]*Kind{}

// register adds a kind; each kind's file calls it from init.
func register(k *Kind) {
	if _, dup := kinds[k.Name]; dup {
		panic("chart: kind " + k.Name + " registered twice")
	}
	if len(k.Inputs) == 0 || k.Inputs[0].Flag != Main {
		panic("chart: kind " + k.Name + " has no main input")
	}
	kinds[k.Name] = k
}

// Kinds lists the registered kinds by name.
func Kinds() []*Kind {
	out := make([]*Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the kind called name, or nil.
func Lookup(name string) *Kind { return kinds[name] }

// Build checks that the inputs a kind requires are there and builds its page.
func (k *Kind) BuildPage(in Tables) (*Page, error) {
	for _, i := range k.Inputs {
		if i.Required && len(in[i.Flag]) == 0 {
			return nil, fmt.Errorf("the %s chart needs the %s table", k.Name, i.Schema.Name)
		}
	}
	return k.Build(in)
}
