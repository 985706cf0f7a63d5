package table

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestInputBytes: the regular files' sizes count; standard input, a
// directory and a missing file count nothing.
func TestInputBytes(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if err := os.WriteFile(a, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, make([]byte, 234), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := inputBytes([]string{a, "-", "", dir, filepath.Join(dir, "missing"), b}); got != 1234 {
		t.Errorf("inputBytes = %d, want 1234", got)
	}
}

// TestPrepareHeapFreesItsRegion: the prepared region goes back to the heap
// (it is not held live), and the heap serves an allocation of its size.
func TestPrepareHeapFreesItsRegion(t *testing.T) {
	const n = 64 << 20
	endHeapFloor(t)
	PrepareHeap(n)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc >= n {
		t.Fatalf("after PrepareHeap(%d) the live heap is %d bytes: the region is still held", n, ms.HeapAlloc)
	}
	buf := make([]byte, n/2)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	if buf[len(buf)-4096] != 1 || buf[1] != 0 {
		t.Fatal("the heap's memory does not hold what was written")
	}
}

// TestPrepareHeapCollectsOnce: preparing runs the one collection that
// frees the region (the region's allocation, far past the goal, does not
// start one of its own), and leaves the collector's target as it was.
func TestPrepareHeapCollectsOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the region is prepared on Linux only")
	}
	endHeapFloor(t)
	target := debug.SetGCPercent(150)
	defer debug.SetGCPercent(target)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	prepareHeap(64 << 20)
	runtime.ReadMemStats(&after)
	if got := after.NumGC - before.NumGC; got != 1 {
		t.Errorf("prepareHeap ran %d collections, want 1", got)
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("after prepareHeap the collector's target is %d, want 150", got)
	}
}
