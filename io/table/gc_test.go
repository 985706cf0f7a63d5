package table

import (
	"os"
	"testing"

	"github.com/optimus-sched/optimus/internal/testgc"
)

// TestMain runs the tests with the garbage collector's target raised
// (testgc.Raise: 400% unless GOGC is set): they make a lot of short-lived
// garbage, and collecting it was a fifth of their CPU
// (benchmarks/test-time-session6.md, "Session 6, library tests"). The tests that
// look at memory count bytes allocated, or collect (runtime.GC) before
// reading the heap.
func TestMain(m *testing.M) {
	testgc.Raise()
	os.Exit(m.Run())
}
