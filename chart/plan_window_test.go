package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// A 1,009-job plan's grid holds every job (not the first MaxJobCharts),
// opens on its first planWindowJobs, and has a slider for each axis.
func TestPlanGridHoldsEveryJob(t *testing.T) {
	const jobs, nodes = 1009, 1100
	var b strings.Builder
	b.WriteString("job,role,index,node,kept,status,reason,job_ps,job_workers,job_servers,job_method,job_even,job_cross_traffic,gpu,cpu,memory_gb,net_gbps\n")
	for j := 0; j < jobs; j++ {
		for _, role := range []string{"ps", "worker"} {
			fmt.Fprintf(&b, "job-%04d,%s,0,node-%04d,false,running,,1,1,1,even,true,0.5,0.0,1.0,2.0,1.0\n", j, role, (j*7+len(role))%nodes)
		}
	}
	p := filepath.Join(t.TempDir(), "plan.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := table.ReadFile(p, schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	secs, err := planSections(plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	bc := secs[0].Charts[0].bc
	if got := len(bc.YAxisList[0].Data.([]string)); got != jobs {
		t.Fatalf("job axis has %d jobs, want %d", got, jobs)
	}
	seen := map[int]bool{}
	for _, d := range bc.MultiSeries[0].Data.([]opts.HeatMapData) {
		seen[d.Value.([]int)[1]] = true
	}
	if len(seen) != jobs {
		t.Errorf("cells for %d jobs, want %d", len(seen), jobs)
	}
	zoom, _ := secs[0].Charts[0].raw["dataZoom"].([]slider)
	if n := len(zoom); n != 2 {
		t.Fatalf("%d sliders, want 2", n)
	}
	if z := zoom[0]; z.StartValue != 0 || z.EndValue != 29 {
		t.Errorf("job slider opens on jobs %d-%d (indexes), want 0-29 (30 of %d jobs)", z.StartValue, z.EndValue, jobs)
	}
	if !strings.Contains(bc.Title.Subtitle, "jobs 1-30 of 1009 shown first") {
		t.Errorf("subtitle %q does not say which jobs show", bc.Title.Subtitle)
	}
}
