package table

import (
	"os"
)

// A one-shot command's heap is mostly the tables it reads and writes, each
// allocated once and touched once. On Linux every fresh 4 KiB page costs a
// page fault on first touch (in a virtual machine, an exit to the
// hypervisor), a large share of solve's and place's CPU (measured in
// benchmarks/tables.md, session 4 s4-splink).
// PrepareHeap lets those pages fault 2 MiB at a time instead, where the
// kernel's transparent huge pages are on request ("madvise", the common
// default): it allocates one region the size the command is expected to
// need, asks for huge pages on it (madvise MADV_HUGEPAGE), and frees it
// back to the Go heap, which then serves the tables from it. The region's
// pages are not touched (fresh memory is known to be zero), so a region
// the command does not use costs address space only.
//
// preparedHeapPerInputByte is the region's size per byte of the command's
// input files (solve's and place's heaps hold the input, the problem and
// the output: several tens of times their Parquet inputs); regions under
// minPreparedHeap are not worth a collection, and none is larger than
// maxPreparedHeap or a quarter of the memory budget.
const (
	preparedHeapPerInputByte = 64
	minPreparedHeap          = 16 << 20
	maxPreparedHeap          = 1 << 30
	// maxDeferredHeap is the highest floor PrepareHeap puts under the
	// collector's goal (deferCollection): a higher one costs more in
	// fresh pages than it saves in collections (benchmarks/tables-session12.md).
	maxDeferredHeap = 64 << 20
)

// PrepareHeapFor prepares the heap (PrepareHeap) for a command that reads
// the files at paths ("" or "-" for standard input, whose size is not
// known, counts nothing).
func PrepareHeapFor(paths ...string) {
	PrepareHeap(inputBytes(paths) * preparedHeapPerInputByte)
}

// inputBytes is the total size of the regular files among paths.
func inputBytes(paths []string) int64 {
	var n int64
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// PrepareHeap makes n bytes of the Go heap fault in huge pages where the
// system allows it (see above), and puts a floor of the lesser of n and
// maxDeferredHeap under the collector's goal (deferCollection); for n
// under minPreparedHeap it does nothing. Call it at a command's start,
// before the heap holds anything large.
func PrepareHeap(n int64) {
	n = min(n, maxPreparedHeap, MemoryBudget()/4)
	if n < minPreparedHeap {
		return
	}
	prepareHeap(int(n))
	deferCollection(min(n, maxDeferredHeap))
}
