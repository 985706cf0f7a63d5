//go:build linux

package table

import (
	"runtime"
	"runtime/debug"
	"syscall"
)

// prepareHeap allocates n bytes, advises huge pages on them and frees them:
// the collection returns the region to the heap's free pages, which keep
// the advice (the runtime maps heap memory once and reuses it), and the
// heap's goal starts from the small live heap again. The collector is off
// while the region is allocated: an allocation past the goal would start a
// collection of its own, which runtime.GC then waits for before running
// the one that frees the region (two collections at every solve and place
// start instead of one: benchmarks/tables-session20.md).
func prepareHeap(n int) {
	target := debug.SetGCPercent(-1)
	b := make([]byte, n)
	// An error (no transparent huge pages in this kernel) leaves the
	// region as it was: ordinary pages.
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(b)
	debug.SetGCPercent(target)
	runtime.GC()
}
