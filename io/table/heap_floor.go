package table

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// A one-shot command's heap starts near empty, and the collector's goal is
// twice the live heap (GOGC=100) with a floor of 4 MiB, so a command that
// reads tables of tens of megabytes runs a collection every few megabytes
// while its heap grows, each marking the tables read so far, before much
// garbage exists. A target kept higher for the whole run (GOGC=200) saves
// those, but at a million tasks it grows the heap by a third, in fresh
// pages, for no gain (benchmarks/tables-session11.md).
//
// deferCollection instead puts a floor under the collector's goal: while
// the command's own target (GOGC, usually 100) would give a goal under
// floor bytes, the target is raised to give floor; once the live heap is
// large enough, the command's target is restored. The target is set again
// from the live heap after each collection (seen by a cleanup on a
// sentinel), so the heap never grows beyond the greater of floor and the
// goal the command's own target gives. A GOGC set in the environment, or
// a collector that is off, is left alone. Calling it again moves the
// floor. The floor lasts as long as the process: PrepareHeap is for a
// command's start.
func deferCollection(floor int64) {
	if _, set := os.LookupEnv("GOGC"); set || floor <= 0 {
		return
	}
	w := &heapWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.active {
		base := debug.SetGCPercent(-1)
		debug.SetGCPercent(base)
		if base < 0 {
			return
		}
		w.active, w.base = true, base
	}
	w.floor = floor
	w.retargetLocked()
}

// heapFloor is deferCollection's watch.
type heapFloor struct {
	mu     sync.Mutex
	active bool // the target is deferCollection's
	armed  bool // a cleanup will run after the next collection
	floor  int64
	base   int // the command's own target
	target int // the target set last
}

// heapWatch is the process's watch: there is one collector target.
var heapWatch heapFloor

// runtimeHeapMinimum is the Go runtime's least heap goal at GOGC=100; the
// runtime scales it with the target (the goal is at least this times
// GOGC/100), so a target that puts the goal at the floor keeps that term
// under the floor too.
const runtimeHeapMinimum = 4 << 20

// retargetLocked sets the target from the live heap: base where base
// already gives a goal of at least floor, else the target whose goal is
// floor; and arms a look after the next collection.
func (w *heapFloor) retargetLocked() {
	live, target := w.liveHeap(), int64(w.base)
	if live*(100+target)/100 < w.floor {
		target = max(target, min(100*(w.floor-live)/live, 100*w.floor/runtimeHeapMinimum))
	}
	w.target = int(target)
	debug.SetGCPercent(w.target)
	if !w.armed {
		w.armed = true
		// Larger than the tiny allocator's blocks, whose cleanups may
		// not run; unreachable at once, so cleaned up after the next
		// collection.
		sentinel := new([64]byte)
		runtime.AddCleanup(sentinel, (*heapFloor).afterCollection, w)
	}
}

// afterCollection is the cleanup that runs after a collection.
func (w *heapFloor) afterCollection() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	if w.active {
		w.retargetLocked()
	}
}

// liveHeap is the heap in use, at least 1: read just after a collection
// (the cleanup runs then), the heap it marked live, with what was
// allocated since. (runtime/metrics has the marked heap alone, but its
// initialisation would cost every command's start.)
func (w *heapFloor) liveHeap() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(max(min(ms.HeapAlloc, 1<<62), 1))
}
