package adapt_test

import (
	"math"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

func readCSV(t *testing.T, name, csv string, s *schema.Table) *table.Table {
	t.Helper()
	tb, err := table.Read(strings.NewReader(csv), name, s)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// Loss points group by job in order of first appearance, whatever the
// interleaving; the error named is the first bad row of the table, in
// whichever job it lies.
func TestGroupLoss(t *testing.T) {
	known := map[string]bool{"a": true, "b": true}
	good := readCSV(t, "loss.csv", "job,step,value\nb,1,3\na,1,2\nb,2,2.5\na,2,\na,3,1\n", schema.Loss)
	got, err := adapt.GroupLoss(good, known, "jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Job != "b" || len(got[0].Points) != 2 || got[1].Job != "a" || len(got[1].Points) != 3 || got[1].Points[1].Value == got[1].Points[1].Value {
		t.Errorf("grouped %+v; want b (2 points), a (3 points, the second NaN)", got)
	}
	for _, tc := range []struct{ csv, want string }{
		{"job,step,value\na,1,1\nb,5,1\nb,4,1\nghost,1,1\na,1,1\n",
			`loss.csv: column "step", row 3 (line 4): step 4 of job "b" does not follow its previous step 5`},
		{"job,step,value\na,1,1\na,2,1\nghost,1,1\nb,5,1\nb,4,1\na,1,1\n",
			`loss.csv: column "job", row 3 (line 4): unknown job "ghost" (not in jobs.csv)`},
		{"job,step,value,higher_is_better\na,1,1,false\nb,1,1,true\nb,2,1,true\na,2,1,true\nb,1,1,true\n",
			`loss.csv: column "higher_is_better", row 4 (line 5): job "a" changes its higher_is_better flag`},
	} {
		_, err := adapt.GroupLoss(readCSV(t, "loss.csv", tc.csv, schema.Loss), known, "jobs.csv")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant %s", tc.csv, err, tc.want)
		}
	}
}

// Speed samples group by job in order of first appearance, whatever the
// interleaving, with null speeds as failed runs (NaN); the error named is
// the first bad row of the table, in whichever job it lies, and each
// message names the column to fix.
func TestGroupSpeed(t *testing.T) {
	jobs := map[string]pipeline.JobInfo{"a": {Mode: fit.Sync, GlobalBatch: 64}, "b": {Mode: fit.Async}}
	good := readCSV(t, "speed.csv", "job,ps,workers,speed\nb,1,1,3\na,1,1,2\nb,2,2,\na,2,2,4\na,1,4,5\n", schema.Speed)
	got, err := adapt.GroupSpeed(good, jobs, "jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Job != "b" || got[0].Mode != fit.Async || len(got[0].Samples) != 2 || !math.IsNaN(got[0].Samples[1].Speed) ||
		got[1].Job != "a" || got[1].GlobalBatch != 64 || len(got[1].Samples) != 3 || got[1].Samples[2] != (fit.SpeedSample{PS: 1, Workers: 4, Speed: 5}) {
		t.Errorf("grouped %+v; want b (async, 2 samples, the second NaN), a (sync, batch 64, 3 samples)", got)
	}
	for _, tc := range []struct{ csv, want string }{
		{"job,ps,workers,speed\na,1,1,1\nb,1,1,1\nb,0,1,1\nghost,1,1,1\na,0,1,1\n",
			`speed.csv: column "ps", row 3 (line 4): job "b" is async: ps must be at least 1, not 0`},
		{"job,ps,workers,speed\na,1,1,1\na,1,2,1\nghost,1,1,1\nb,0,1,1\n",
			`speed.csv: column "job", row 3 (line 4): unknown job "ghost" (not in jobs.csv)`},
		{"job,ps,workers,speed,mode\nb,1,1,1,\na,1,1,1,\nb,1,2,1,\na,1,2,1,async\nb,0,1,1,\n",
			`speed.csv: column "mode", row 4 (line 5): job "a" is async here but sync in jobs.csv`},
		{"job,ps,workers,speed,global_batch\nb,1,1,1,\na,1,1,1,\nb,1,2,1,32\na,1,2,1,\n",
			`speed.csv: row 3 (line 4): job "b" changes its mode or global batch between rows`},
	} {
		_, err := adapt.GroupSpeed(readCSV(t, "speed.csv", tc.csv, schema.Speed), jobs, "jobs.csv")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant %s", tc.csv, err, tc.want)
		}
	}
}
