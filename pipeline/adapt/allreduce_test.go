package adapt_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/fit"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

// A speed table of schema version 1 (before allreduce: no nodes or
// local_batch columns) still reads, as parameter-server samples.
func TestSpeedVersion1StillReads(t *testing.T) {
	v2 := readCSV(t, "speed.csv", "job,ps,workers,speed,mode,global_batch\na,1,2,0.5,sync,64\na,2,2,0.7,sync,64\n", schema.Speed)
	v2.Drop("nodes", "local_batch")
	v2.Version = 1
	var buf bytes.Buffer
	if err := table.WriteStream(&buf, v2); err != nil {
		t.Fatal(err)
	}
	v1, err := table.Read(&buf, "old-speed.arrow", schema.Speed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := adapt.GroupSpeed(v1, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Samples) != 2 || got[0].Samples[1] != (fit.SpeedSample{PS: 2, Workers: 2, Speed: 0.7}) {
		t.Errorf("grouped %+v", got)
	}
}

func TestGroupSpeedAllReduce(t *testing.T) {
	good := readCSV(t, "speed.csv", "job,ps,workers,speed,mode,global_batch,nodes,local_batch\n"+
		"r,0,1,2,allreduce,256,,\nr,0,8,5,allreduce,256,2,64\n", schema.Speed)
	got, err := adapt.GroupSpeed(good, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []fit.SpeedSample{{Workers: 1, Speed: 2}, {Workers: 8, Speed: 5, Nodes: 2, LocalBatch: 64}}
	if len(got) != 1 || got[0].Mode != fit.AllReduce || len(got[0].Samples) != 2 || got[0].Samples[0] != want[0] || got[0].Samples[1] != want[1] {
		t.Errorf("grouped %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ csv, want string }{
		{"job,ps,workers,speed,mode,global_batch\nr,0,1,2,allreduce,256\nr,1,2,2,allreduce,256\n",
			`speed.csv: column "ps", row 2 (line 3): job "r" is allreduce, which has no parameter servers: ps must be 0, not 1`},
		{"job,ps,workers,speed,mode,global_batch\na,0,1,2,sync,256\n",
			`speed.csv: column "ps", row 1 (line 2): job "a" is sync: ps must be at least 1, not 0`},
		{"job,ps,workers,speed,mode,global_batch,nodes\nr,0,2,2,allreduce,256,3\n",
			`speed.csv: column "nodes", row 1 (line 2): job "r": 2 workers cannot span 3 nodes`},
		{"job,ps,workers,speed,mode,global_batch,nodes\na,1,2,2,sync,256,2\n",
			`speed.csv: column "nodes", row 1 (line 2): job "a" is sync: nodes and local_batch are for allreduce jobs only`},
	} {
		_, err := adapt.GroupSpeed(readCSV(t, "speed.csv", tc.csv, schema.Speed), nil, "")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant %s", tc.csv, err, tc.want)
		}
	}
}

// A jobs table of version 1 (sync and async only) still reads.
func TestJobsVersion1StillReads(t *testing.T) {
	v2 := readCSV(t, "jobs.csv", "job,model,mode,global_batch,epoch_steps\na,resnet-50,sync,64,100\n", schema.Jobs)
	var cur, buf bytes.Buffer
	if err := table.WriteStream(&cur, v2); err != nil {
		t.Fatal(err)
	}
	v2.Version = 1
	if err := table.WriteStream(&buf, v2); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(cur.Bytes(), buf.Bytes()) {
		t.Fatal("the version is not in the file's metadata")
	}
	v1, err := table.Read(&buf, "old-jobs.arrow", schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	infos, order := adapt.JobInfos(v1)
	if len(order) != 1 || infos["a"].Mode != fit.Sync {
		t.Errorf("read %v %+v", order, infos)
	}
}
