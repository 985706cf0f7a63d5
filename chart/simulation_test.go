package chart

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart/charttest"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

func csvTable(t *testing.T, s *schema.Table, source, text string) *table.Table {
	t.Helper()
	tb, err := table.Decode([]byte(text), table.CSV, source, s)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

const simJobsHeader = "policy,knowledge,seed,job,model,status,reason,arrival_s,ready_s,start_s,finish_s,jct_s,ideal_s,restarts,restart_lost_s,profiling_s,total_steps,progress_steps,pred_err,pred_rounds\n"

// Two runs of optimus (fitted, seeds 1 and 2) and one of fifo (seed 1):
// fifo leaves job c unfinished.
const simJobsCSV = simJobsHeader +
	"optimus,fitted,1,a,m,finished,,0,10,600,1100,1100,900,1,240,10,100,100,0.1,2\n" +
	"optimus,fitted,1,b,m,finished,,0,10,600,900,900,800,0,0,10,100,100,0.1,2\n" +
	"optimus,fitted,1,c,m,finished,,100,110,600,1500,1400,900,0,0,10,100,100,0.1,2\n" +
	"optimus,fitted,2,a,m,finished,,0,10,600,1300,1300,900,2,480,10,100,100,0.1,2\n" +
	"optimus,fitted,2,b,m,finished,,0,10,600,900,900,800,0,0,10,100,100,0.1,2\n" +
	"optimus,fitted,2,c,m,finished,,100,110,600,1500,1400,900,0,0,10,100,100,0.1,2\n" +
	"fifo,fitted,1,a,m,finished,,0,10,600,1800,1800,900,0,0,10,100,100,0.1,2\n" +
	"fifo,fitted,1,b,m,finished,,0,10,600,2400,2400,800,0,0,10,100,100,0.1,2\n" +
	"fifo,fitted,1,c,m,unfinished,horizon,100,110,1800,,,900,0,0,10,100,50,,0\n"

const simAllocCSV = "policy,knowledge,seed,time_s,job,ps,workers,nodes,restarted,status,reason,pred_remaining_s,true_remaining_s,pred_remaining_steps,true_remaining_steps\n" +
	"optimus,fitted,1,600,a,1,2,1,false,running,,500,500,50,50\n" +
	"optimus,fitted,1,600,b,2,2,1,false,running,,300,300,50,50\n" +
	"optimus,fitted,1,1200,a,1,3,1,true,running,,200,200,20,20\n" +
	"optimus,fitted,1,1200,c,1,1,1,false,running,,300,300,30,30\n" +
	"fifo,fitted,1,600,a,1,1,1,false,running,,500,500,50,50\n"

const simUtilCSV = "policy,knowledge,seed,time_s,running,waiting,util_gpu,util_cpu\n" +
	"optimus,fitted,1,600,2,0,0.5,0.25\n" +
	"optimus,fitted,1,1200,2,0,0.75,0.5\n" +
	"fifo,fitted,1,600,1,1,0.25,0.125\n"

func seriesOf(t *testing.T, p *Page, id string) []SeriesCount {
	t.Helper()
	for _, c := range p.Charts() {
		if c.ID == id {
			return c.Series
		}
	}
	t.Fatalf("no chart %s", id)
	return nil
}

// lineValues are the [x, y, ...] points of a series as the page holds them.
func lineValues(t *testing.T, p *Page, id, series string) [][]float64 {
	t.Helper()
	var html bytes.Buffer
	if err := p.Render(&html); err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Charts() {
		if c.ID != id {
			continue
		}
		var block struct {
			Option struct {
				Series []struct {
					Name string            `json:"name"`
					Data []json.RawMessage `json:"data"`
				} `json:"series"`
			} `json:"option"`
		}
		js, err := c.options()
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(js, &block); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for _, s := range block.Option.Series {
			if s.Name == series {
				var out [][]float64
				// A point is [x, y, ...] or {"value": [x, y, ...]}.
				for _, d := range s.Data {
					var v []float64
					if err := json.Unmarshal(d, &v); err != nil {
						var item struct {
							Value []float64 `json:"value"`
						}
						if err := json.Unmarshal(d, &item); err != nil {
							t.Fatalf("%s: %s: point %s: %v", id, series, d, err)
						}
						v = item.Value
					}
					out = append(out, v)
				}
				return out
			}
		}
	}
	t.Fatalf("no series %s in %s", series, id)
	return nil
}

func simPage(t *testing.T, in Tables) *Page {
	t.Helper()
	p, err := Lookup("simulation").BuildPage(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimulationCDF(t *testing.T) {
	charttest.NeedAssets(t, CheckAssets())
	jobs := csvTable(t, schema.SimJobs, "sim_jobs.csv", simJobsCSV)
	p := simPage(t, Tables{Main: {jobs}})
	// optimus pools its 6 jobs of both seeds: JCTs 900, 900, 1100, 1300,
	// 1400, 1400; fifo has 2 of 3 finished.
	want := map[string][][]float64{
		"optimus": {{900, 0}, {900, 0.16667}, {900, 0.33333}, {1100, 0.5}, {1300, 0.66667}, {1400, 0.83333}, {1400, 1}},
		"fifo":    {{1800, 0}, {1800, 0.33333}, {2400, 0.66667}},
	}
	for name, w := range want {
		if got := lineValues(t, p, "jct_1", name); !equalPoints(got, w) {
			t.Errorf("%s: CDF %v, want %v", name, got, w)
		}
	}
	g := p.Sections[0].Grid
	if len(g.Rows) != 2 || strings.Join(g.Rows[1], "|") != "fifo|fitted|1|3|2 (1 not)|35 min|35 min|40 min|≥ 40 min|1.80|-|-|0" {
		t.Errorf("summary rows %q", g.Rows)
	}
	if strings.Join(g.Rows[0], "|") != "optimus|fitted|2|6|6|19 min (19 min–20 min)|20 min|23 min|25 min|1.00|-|-|1.5" {
		t.Errorf("optimus row %q", g.Rows[0])
	}
}

func equalPoints(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) < 2 || a[i][0] != b[i][0] || a[i][1] != b[i][1] {
			return false
		}
	}
	return true
}

// A job frees its tasks when it finishes, not at the next round; the bands
// are stacked in workload order.
func TestSimulationAllocationOverTime(t *testing.T) {
	charttest.NeedAssets(t, CheckAssets())
	jobs := csvTable(t, schema.SimJobs, "sim_jobs.csv", simJobsCSV)
	alloc := csvTable(t, schema.SimAllocations, "sim_allocations.csv", simAllocCSV)
	p := simPage(t, Tables{Main: {jobs}, "allocations": {alloc}})
	// optimus, seed 1: rounds 600 and 1200; b finishes at 900, a at 1100,
	// c at 1500. Points: [time, top of band, PS, workers].
	a := lineValues(t, p, "simallocation_1", "a")
	b := lineValues(t, p, "simallocation_1", "b")
	c := lineValues(t, p, "simallocation_1", "c")
	wantA := [][]float64{{600, 3, 1, 2}, {900, 3, 1, 2}, {1100, 0, 0, 0}, {1200, 0, 0, 0}, {1500, 0, 0, 0}}
	wantB := [][]float64{{600, 7, 2, 2}, {900, 3, 0, 0}, {1100, 0, 0, 0}, {1200, 0, 0, 0}, {1500, 0, 0, 0}}
	wantC := [][]float64{{600, 7, 0, 0}, {900, 3, 0, 0}, {1100, 0, 0, 0}, {1200, 2, 1, 1}, {1500, 0, 0, 0}}
	for _, c := range []struct {
		name      string
		got, want [][]float64
	}{{"a", a, wantA}, {"b", b, wantB}, {"c", c, wantC}} {
		if len(c.got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
			continue
		}
		for i := range c.got {
			for k := range c.want[i] {
				if c.got[i][k] != c.want[i][k] {
					t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
					break
				}
			}
		}
	}
	// Drawn top band first.
	if s := seriesOf(t, p, "simallocation_1"); s[0].Name != "c" || s[2].Name != "a" {
		t.Errorf("bands %v, want c, b, a (top first)", s)
	}
	if got := len(p.Charts()); got != 5 {
		t.Errorf("%d charts, want the CDF, one allocation chart per policy and two of the predictions' accuracy", got)
	}
}

func TestSimulationUtilisation(t *testing.T) {
	charttest.NeedAssets(t, CheckAssets())
	jobs := csvTable(t, schema.SimJobs, "sim_jobs.csv", simJobsCSV)
	util := csvTable(t, schema.SimUtilisation, "sim_utilisation.csv", simUtilCSV)
	p := simPage(t, Tables{Main: {jobs}, "utilisation": {util}})
	// gpu, cpu and jobs waiting; optimus' run ends when c finishes at 1500,
	// fifo's has an unfinished job, so its last share is the last round's.
	var ids []string
	for _, c := range p.Charts() {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "jct_1,simutilisation_1,simutilisation_2,simwaiting_1" {
		t.Errorf("charts %v", ids)
	}
	if got := lineValues(t, p, "simutilisation_1", "optimus"); !equalPoints(got, [][]float64{{600, 0.5}, {1200, 0.75}, {1500, 0}}) {
		t.Errorf("optimus gpu %v", got)
	}
	if got := lineValues(t, p, "simwaiting_1", "fifo"); !equalPoints(got, [][]float64{{600, 1}}) {
		t.Errorf("fifo waiting %v", got)
	}
}

func TestSimulationSeedsAndBadInput(t *testing.T) {
	jobs := func() *table.Table { return csvTable(t, schema.SimJobs, "sim_jobs.csv", simJobsCSV) }
	in := Tables{Main: {jobs()}, "utilisation": {csvTable(t, schema.SimUtilisation, "u.csv", simUtilCSV)}}
	if err := SelectSeeds(in, []int64{2}); err != nil {
		t.Fatal(err)
	}
	if n := in.One(Main).NumRows(); n != 3 {
		t.Errorf("seed 2: %d jobs, want optimus' 3", n)
	}
	p := simPage(t, in)
	if got := p.Sections[1].Empty; !strings.Contains(got, "has no rows for seed 2") {
		t.Errorf("utilisation of a seed it lacks: %q", got)
	}
	if err := SelectSeeds(Tables{Main: {jobs()}}, []int64{7}); err == nil || !strings.Contains(err.Error(), "no seed 7 in the sim_jobs table") {
		t.Errorf("seed 7: %v", err)
	}

	noUtil := csvTable(t, schema.SimUtilisation, "u.csv", "policy,knowledge,seed,time_s,running,waiting\noptimus,fitted,1,600,2,0\n")
	_, err := Lookup("simulation").BuildPage(Tables{Main: {jobs()}, "utilisation": {noUtil}})
	if err == nil || !strings.Contains(err.Error(), "needs util_<resource> columns") {
		t.Errorf("no util_ columns: %v", err)
	}

	empty := csvTable(t, schema.SimAllocations, "a.csv", strings.SplitN(simAllocCSV, "\n", 2)[0]+"\n")
	p = simPage(t, Tables{Main: {jobs()}, "allocations": {empty}})
	if got := p.Sections[1].Empty; !strings.Contains(got, "is empty (0 rows)") || !strings.Contains(got, "--intervals=false") {
		t.Errorf("empty allocations: %q", got)
	}
	p = simPage(t, Tables{Main: {csvTable(t, schema.SimJobs, "sim_jobs.csv", simJobsHeader)}})
	if len(p.Charts()) != 0 || !strings.Contains(p.Sections[0].Empty, "The sim_jobs table sim_jobs.csv is empty (0 rows)") {
		t.Errorf("empty sim_jobs: %+v", p.Sections[0])
	}
}
