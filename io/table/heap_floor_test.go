package table

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// withoutGOGC runs the test with GOGC unset, no heap floor and a
// collector target of 100, and ends any heap floor afterwards, restoring
// both.
func withoutGOGC(t *testing.T) {
	t.Helper()
	if v, ok := os.LookupEnv("GOGC"); ok {
		os.Unsetenv("GOGC")
		t.Cleanup(func() { os.Setenv("GOGC", v) })
	}
	endHeapFloor(t)
	debug.SetGCPercent(100)
}

// endHeapFloor ends the heap floor a test starts (and any running now),
// and restores the collector's target when the test ends.
func endHeapFloor(t *testing.T) {
	stop := func() {
		heapWatch.mu.Lock()
		defer heapWatch.mu.Unlock()
		heapWatch.active = false
	}
	stop()
	old := debug.SetGCPercent(-1)
	debug.SetGCPercent(old)
	t.Cleanup(func() {
		stop()
		debug.SetGCPercent(old)
	})
}

func heapGoal() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// waitForTarget waits (a few seconds at most) for the watch's cleanup,
// which runs on its own goroutine after a collection, to set a target ok
// accepts. Every 100 ms without it, it collects again: on a loaded
// machine the cleanup that set the last target can run late, its new
// sentinel then outliving the collection the test ran (1 to 3 runs in
// 120 failed so under two spinning processes, at e2d314e and after).
func waitForTarget(t *testing.T, what string, ok func(int) bool) {
	t.Helper()
	start := time.Now()
	deadline, again := start.Add(5*time.Second), start.Add(100*time.Millisecond)
	for {
		heapWatch.mu.Lock()
		got := heapWatch.target
		heapWatch.mu.Unlock()
		if ok(got) {
			return
		}
		if now := time.Now(); now.After(deadline) {
			t.Fatalf("after a collection the target is %d, want %s", got, what)
		} else if now.After(again) {
			runtime.GC()
			again = now.Add(100 * time.Millisecond)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDeferCollectionPutsAFloorUnderTheGoal: with a small live heap the
// goal is the floor (not the runtime's 4 MiB or twice the live heap), and
// garbage well under the floor is made without a collection. (Without the
// floor the goal is a few MiB; how many collections the garbage then takes
// depends on how soon the collector gets a core, so it is not counted.)
// Once the live heap is over half the floor the command's own target is
// back, and when the live heap falls again the floor is too.
func TestDeferCollectionPutsAFloorUnderTheGoal(t *testing.T) {
	withoutGOGC(t)
	const floor = 64 << 20
	garbage := func() uint32 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		n := ms.NumGC
		var keep []byte
		for range 40 << 4 { // 40 MiB in 64 KiB pieces
			keep = make([]byte, 64<<10)
		}
		runtime.KeepAlive(keep)
		runtime.ReadMemStats(&ms)
		return ms.NumGC - n
	}

	runtime.GC()
	if g := heapGoal(); g >= 8<<20 {
		t.Fatalf("without a floor and with a small live heap the goal is %d bytes; the comparison needs it small", g)
	}
	deferCollection(floor)
	if g := heapGoal(); g < floor || g > floor+floor/16 {
		t.Errorf("with a floor of %d bytes and a small live heap the goal is %d", floor, g)
	}
	if g := garbage(); g > 1 {
		t.Errorf("with a floor of %d bytes, 40 MiB of garbage took %d collections", floor, g)
	}

	live := make([]byte, 40<<20) // over half the floor: GOGC=100's goal is above it
	runtime.GC()
	waitForTarget(t, "100", func(p int) bool { return p == 100 })
	if g := heapGoal(); g < 2*int64(len(live)) || g > 2*int64(len(live))+floor/16 {
		t.Errorf("with a live heap of %d bytes the goal is %d, want twice the live heap", len(live), g)
	}
	runtime.KeepAlive(live)
	live = nil
	runtime.GC()
	waitForTarget(t, "over 100 once the live heap fell", func(p int) bool { return p > 100 })
	if g := heapGoal(); g < floor || g > floor+floor/16 {
		t.Errorf("the live heap fell, and the goal is %d, not the floor %d", g, floor)
	}
}

// TestDeferCollectionLeavesGOGCAlone: a target the user set in the
// environment is theirs.
func TestDeferCollectionLeavesGOGCAlone(t *testing.T) {
	withoutGOGC(t)
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	deferCollection(64 << 20)
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("with GOGC=150 set the target became %d", p)
	}
	heapWatch.mu.Lock()
	active := heapWatch.active
	heapWatch.mu.Unlock()
	if active {
		t.Error("with GOGC set a floor was started")
	}
}
