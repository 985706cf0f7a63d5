package adapt_test

import (
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/adapt"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
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
