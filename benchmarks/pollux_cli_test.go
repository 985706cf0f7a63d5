package benchmarks

import (
	"path/filepath"
	"testing"

	"github.com/optimus-sched/optimus/cli/root"
)

// BenchmarkPolluxTiresiasCommand runs the command issue 21's speed bar times
// (workload-1, Tiresias, oracle knowledge) through root.Run, the entry point
// the CLI uses, so a CPU or alloc profile of it is one of a real run minus the
// process' start-up.
func BenchmarkPolluxTiresiasCommand(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out.csv")
	args := []string{"simulate", "--pollux", "workload-1", "--interval", "60", "--stop-cost", "0",
		"--restore-cost", "30", "--start-cost", "30", "-q", "--intervals=false", "--knowledge", "oracle",
		"--policies", "tiresias", "-o", out}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if code, _, stderr := root.Run(nil, args...); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr)
		}
	}
}
