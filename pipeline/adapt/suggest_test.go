package adapt_test

import (
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// Suggestions keep to a job's max_ps and max_workers, count a failed run
// as measured, come in the jobs table's order and then for the jobs only
// the speed table names, and give allreduce jobs their nodes.
func TestSuggest(t *testing.T) {
	jobs := readCSV(t, "jobs.csv", "job,model,mode,global_batch,epoch_steps,max_ps,max_workers\n"+
		"a,resnet-50,sync,128,100,2,3\nr,bert,allreduce,64,100,,8\n", schema.Jobs)
	speed := readCSV(t, "speed.csv", "job,ps,workers,speed\na,1,1,2.5\na,2,3,0\n", schema.Speed)
	opts := adapt.SuggestOptions{Samples: 5, MaxPS: 16, MaxWorkers: 16, WorkersPerNode: 4, MaxNodes: 4}
	out, considered, err := adapt.Suggest(jobs, speed, "jobs.csv", opts)
	if err != nil {
		t.Fatal(err)
	}
	if considered != 2 {
		t.Errorf("%d jobs considered, want 2", considered)
	}
	job, rank, ps, ws, nodes, nodesOK := out.Strings("job"), out.Int64s("rank"), out.Int64s("ps"), out.Int64s("workers"), out.Int64s("nodes"), out.Valid("nodes")
	var got []string
	for i := range job {
		got = append(got, job[i])
		switch job[i] {
		case "a":
			if ps[i] < 1 || ps[i] > 2 || ws[i] < 1 || ws[i] > 3 || nodesOK[i] || (ps[i] == 1 && ws[i] == 1) || (ps[i] == 2 && ws[i] == 3) {
				t.Errorf("a: suggested %d PS + %d workers (nodes %v): beyond max_ps 2, max_workers 3, or measured already", ps[i], ws[i], nodesOK[i])
			}
		case "r":
			if ps[i] != 0 || !nodesOK[i] || nodes[i] < 1 || nodes[i] > 4 || ws[i] > 8 {
				t.Errorf("r: suggested %d PS + %d workers on %d nodes", ps[i], ws[i], nodes[i])
			}
		}
		if i > 0 && job[i] == job[i-1] && rank[i] != rank[i-1]+1 {
			t.Errorf("row %d: rank %d after %d", i+1, rank[i], rank[i-1])
		}
	}
	if s := strings.Join(got, ""); s != "aaarrrrr" {
		t.Errorf("jobs %s, want 3 for a (5 less 2 measured) then 5 for r", s)
	}

	// Without a jobs table the jobs come from the speed table, bounded by
	// the options; one that has its samples gets none.
	speed = readCSV(t, "speed.csv", "job,ps,workers,speed,mode,global_batch\nb,1,1,2,sync,64\n", schema.Speed)
	out, _, err = adapt.Suggest(nil, speed, "", adapt.SuggestOptions{Samples: 3, MaxPS: 2, MaxWorkers: 2, WorkersPerNode: 4, MaxNodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	if out.NumRows() != 2 || out.Strings("job")[0] != "b" {
		t.Errorf("%d suggestions for b, want 2", out.NumRows())
	}
	out, considered, err = adapt.Suggest(nil, speed, "", adapt.SuggestOptions{Samples: 1, MaxPS: 2, MaxWorkers: 2, WorkersPerNode: 4, MaxNodes: 4})
	if err != nil || out.NumRows() != 0 || considered != 1 {
		t.Errorf("a measured job: %d suggestions of %d jobs (%v), want none of 1", out.NumRows(), considered, err)
	}
}
