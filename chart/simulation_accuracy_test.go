package chart

import (
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart/charttest"
	"github.com/optimus-sched/optimus/io/schema"
)

// optimus and drf, seed 1, jobs a and b (100 steps each); drf's c never
// finishes. optimus' mean JCT 550 s and makespan 600 s, drf's 1100 s and
// 1100 s: 2.00x and 1.83x shorter.
const accJobsCSV = simJobsHeader +
	"optimus,fitted,1,a,m,finished,,0,0,0,500,500,400,0,0,0,100,100,0.35,2\n" +
	"optimus,fitted,1,b,m,finished,,0,0,300,600,600,400,0,0,0,100,100,0.1,1\n" +
	"drf,fitted,1,a,m,finished,,0,0,0,1100,1100,400,0,0,0,100,100,0.5,1\n" +
	"drf,fitted,1,b,m,finished,,0,0,0,1100,1100,400,0,0,0,100,100,,0\n" +
	"drf,fitted,1,c,m,unfinished,horizon,0,0,0,,,400,0,0,0,100,10,,0\n"

// optimus: a at 0 predicts 600 s for a true 500 (error 0.2, 0% trained),
// at 300 predicts 100 for 200 (0.5, 60% trained); b waits at 0 (not
// scored), at 300 predicts 330 for 300 (0.1, 15% trained). drf: a at 0
// predicts 250 for 500 (0.5); c has no true remaining time.
const accAllocCSV = "policy,knowledge,seed,time_s,job,ps,workers,nodes,restarted,status,reason,pred_remaining_s,true_remaining_s,pred_remaining_steps,true_remaining_steps\n" +
	"optimus,fitted,1,0,a,1,1,1,false,running,,600,500,100,100\n" +
	"optimus,fitted,1,0,b,0,0,0,false,waiting,,100,300,100,100\n" +
	"optimus,fitted,1,300,a,1,2,1,true,running,,100,200,40,40\n" +
	"optimus,fitted,1,300,b,1,1,1,false,running,,330,300,85,85\n" +
	"drf,fitted,1,0,a,1,1,1,false,running,,250,500,100,100\n" +
	"drf,fitted,1,0,c,1,1,1,false,running,,900,,100,100\n"

func TestSimulationAccuracy(t *testing.T) {
	charttest.NeedAssets(t, CheckAssets())
	jobs := csvTable(t, schema.SimJobs, "sim_jobs.csv", accJobsCSV)
	alloc := csvTable(t, schema.SimAllocations, "sim_allocations.csv", accAllocCSV)
	p := simPage(t, Tables{Main: {jobs}, "allocations": {alloc}})
	var acc *Section
	for _, s := range p.Sections {
		if s.ID == "accuracy" {
			acc = s
		}
	}
	if acc == nil {
		t.Fatal("no accuracy section")
	}
	// Errors 0.2, 0.5, 0.1: median 20%, p90 44% (type 7), 2 of 3 too long;
	// pred_err's median over a and b 22.5%.
	want := [][]string{
		{"optimus", "fitted", "3", "20.0%", "44.0%", "67%", "22.5%"},
		{"drf", "fitted", "1", "50.0%", "50.0%", "0%", "50.0%"},
	}
	for k, w := range want {
		if got := strings.Join(acc.Grid.Rows[k], "|"); got != strings.Join(w, "|") {
			t.Errorf("row %d: %s, want %s", k, got, strings.Join(w, "|"))
		}
	}
	// The scatter, in minutes (the longest time is 600 s): [true, predicted,
	// progress %].
	got := lineValues(t, p, "accuracy_1", "optimus")
	wantPts := [][]float64{{8.333, 10, 0}, {3.333, 1.667, 60}, {5, 5.5, 15}}
	if !equalPoints(got, wantPts) || got[1][2] != 60 || got[2][2] != 15 {
		t.Errorf("scatter %v, want %v", got, wantPts)
	}
	// The error by tenth of training: 20% at 0-10%, 10% at 10-20%, 50% at
	// 60-70%, gaps elsewhere.
	var html strings.Builder
	if err := p.Render(&html); err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Charts() {
		if c.ID != "accuracy_2" {
			continue
		}
		js, _ := c.options()
		if !strings.Contains(string(js), `"name":"optimus","type":"line"`) || !strings.Contains(string(js), `[{"value":20},{"value":10},{"value":"-"},{"value":"-"},{"value":"-"},{"value":"-"},{"value":50},{"value":"-"},{"value":"-"},{"value":"-"}]`) {
			t.Errorf("error by progress: %s", js)
		}
	}
	// The JCT table and the headline: drf's over optimus', beside the paper's.
	g := p.Sections[0].Grid
	if r := strings.Join(g.Rows[0], "|"); !strings.HasSuffix(r, "|1.00|2.00|1.83|0") {
		t.Errorf("optimus row %s, want ratios to drf 2.00 and 1.83", r)
	}
	h := map[string]Figure{}
	for _, f := range p.Headline {
		h[f.Label] = f
	}
	if f := h["mean JCT, × shorter than drf"]; f.Value != "2.00" || !strings.Contains(f.Note, "paper 2.39×") {
		t.Errorf("headline %+v", p.Headline)
	}
	if f := h["makespan, × shorter than drf"]; f.Value != "1.83" || !strings.Contains(f.Note, "paper 1.63×") {
		t.Errorf("headline %+v", p.Headline)
	}
	if f := h["optimus mean JCT (fitted)"]; f.Value != "9 min" || f.Note != "2 of 2 jobs finished" {
		t.Errorf("headline %+v", f)
	}
}
