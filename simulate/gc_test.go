package simulate_test

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the garbage collector's target at 400%
// instead of 100% (unless GOGC is set): they make a lot of short-lived
// garbage, and collecting it was a fifth of their CPU
// (benchmarks/test-time.md, "Session 6, library tests"). No test here
// depends on when the collector runs.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
