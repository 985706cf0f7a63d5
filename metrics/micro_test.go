package metrics

import (
	"bytes"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkMicroDecode(b *testing.B) {
	buf := fileVersion(nil, "brain.Event:2")
	for s := range 10000 {
		buf = appendEvent(buf, 1.7e9+float64(s)*0.1, int64(s), simpleValue("loss", float32(lossAt(0, s))))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n := 0
	c0 := threadCPU()
	for b.Loop() {
		eventReader{}.ReadFile("x", bytes.NewReader(buf), int64(len(buf)), func(tag string, p Point) { n++ }, func(*Error) {})
	}
	cpu := threadCPU() - c0
	b.ReportMetric(float64(len(buf))*float64(b.N)/cpu.Seconds()/1e6, "MB/thread-cpu-s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/record")
}
