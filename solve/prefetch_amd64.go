package solve

import "unsafe"

// prefetch asks the processor to bring the cache line at p into its
// caches, without waiting for it (PREFETCHT0): a load would hold up the
// instructions after it once the reorder buffer fills.
//
//go:noescape
func prefetch(p unsafe.Pointer)
