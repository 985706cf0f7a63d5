// Package testgc sets the garbage collector's target of a test binary
// whose tests make much short-lived garbage: collecting a quarter as often
// saved a fifth of such binaries' CPU (benchmarks/test-time-session6.md),
// for memory the machine has. A GOGC in the environment wins.
package testgc

import (
	"os"
	"runtime/debug"
)

// Percent is the collector's target Raise sets.
const Percent = 400

// Raise sets the collector's target to Percent unless GOGC is set. A
// TestMain calls it before m.Run.
func Raise() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
}
