package applycmd_test

import (
	"strings"
	"testing"
	"time"

	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// An API server that accepts the connection and never answers: apply gives
// up within --timeout on its first request (looking up the namespace before
// validating the plan), exit 1, writing nothing; snapshot too.
func TestKubernetesSilentServerTimesOut(t *testing.T) {
	dir := testbedPlan(t)
	addr, kubeconfig := ktest.SilentServer(t)
	out := t.TempDir() + "/actions.csv"
	for _, args := range [][]string{
		{"apply", "-i", dir + "/plan.parquet", "--jobs", dir + "/testbed/jobs.parquet", "--executor", "kubernetes", "--kubeconfig", kubeconfig, "--timeout", "500ms", "-o", out},
		{"snapshot", "kubernetes", "--kubeconfig", kubeconfig, "--timeout", "500ms", "-o", t.TempDir() + "/snap"},
	} {
		start := time.Now()
		code, _, stderr := optimus.Run(t, nil, args...)
		took := time.Since(start)
		want := "optimus: kubernetes: the API server http://" + addr + " did not answer in time (--timeout; raise it if the server is only slow): "
		if code != 1 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "(get namespaces (cluster-wide) in namespace training)") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", args[0], code, stderr, want)
		}
		if took > 15*time.Second {
			t.Errorf("%s: gave up after %s; --timeout is 500ms", args[0], took)
		}
	}
}
