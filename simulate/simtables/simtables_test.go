package simtables_test

import (
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/table"
)

// The simulator's tables must not be mistaken for the pipeline's (nor the
// embedded measurements' layout) when a CSV's kind is recognised from its
// columns.
func TestRecognisedOnlyByTheirOwnColumns(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"job,model,mode,global_batch,epoch_steps,arrival_s", "jobs"},
		{"job,model,mode,global_batch,epoch_steps,arrival_s,epoch_budget,max_ps,max_workers", "jobs"},
		{"job,model,mode,global_batch,epoch_steps,arrival_s,speed_scale", "workload"},
		{"model,mode,global_batch,ps,workers,speed,worker_speed_min,worker_speed_max,ps_cpu,worker_cpu", ""},
		{"model,ps,workers,measured_speed", "profile_speeds"},
		{"model,speed_mode,speed_theta0,speed_theta1,speed_theta2,speed_theta3,loss_b0,loss_b1,loss_b2", "profiles"},
	} {
		got := ""
		if s := table.Recognise(strings.Split(c.header, ","), nil); s != nil {
			got = s.Name
		}
		if got != c.want {
			t.Errorf("%s: recognised as %q, want %q", c.header, got, c.want)
		}
	}
}
