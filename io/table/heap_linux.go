//go:build linux

package table

import (
	"runtime"
	"syscall"
)

// prepareHeap allocates n bytes, advises huge pages on them and frees them:
// the collection returns the region to the heap's free pages, which keep
// the advice (the runtime maps heap memory once and reuses it), and the
// heap's goal starts from the small live heap again.
func prepareHeap(n int) {
	b := make([]byte, n)
	// An error (no transparent huge pages in this kernel) leaves the
	// region as it was: ordinary pages.
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(b)
	runtime.GC()
}
