package table

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the garbage collector's target at 400%
// instead of 100% (unless GOGC is set): they make a lot of short-lived
// garbage, and collecting it was a fifth of their CPU
// (benchmarks/test-time.md, "Session 6, library tests"). The tests that
// look at memory count bytes allocated, or collect (runtime.GC) before
// reading the heap.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
