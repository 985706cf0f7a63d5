package metrics

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Reading every job's whole history, as the cron job's first step does:
// event files, and the same points as JSON lines. The scale is
// $OPTIMUS_METRICS_BENCH (JOBSxPOINTS, default 100x10000; benchmarks/
// metrics.md has the 10000x10000 run). Each benchmark writes its files
// first (in a temporary directory, or under $OPTIMUS_METRICS_BENCH_DIR,
// where they are kept for the next run), then reads them through Discover,
// ReadJob, Resolve and Reduce on GOMAXPROCS goroutines, keeping every job's
// result as the command does, and times `cat FILES > /dev/null` on the same
// files in the same run.

func benchScale(b *testing.B) (jobs, points int) {
	jobs, points = 100, 10000
	if s := os.Getenv("OPTIMUS_METRICS_BENCH"); s != "" {
		j, p, ok := strings.Cut(s, "x")
		var err1, err2 error
		jobs, err1 = strconv.Atoi(j)
		points, err2 = strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil || jobs < 1 || points < 3 || jobs > 1e6 || points > 1e8 {
			b.Fatalf("OPTIMUS_METRICS_BENCH=%q: give JOBSxPOINTS", s)
		}
	}
	return jobs, points
}

// lossAt is a 1/k curve with a wobble, so values differ in every bit.
func lossAt(job, step int) float64 {
	return 1/(0.001*float64(step)+1) + 0.05 + 0.01*math.Sin(float64(step*7+job))
}

// benchFormat is one kind of input: where a job's file goes, how many
// bytes a point takes at most, and the file's bytes.
type benchFormat struct {
	name     string
	file     string // under job-NNNNN/ps2-w4/
	perPoint int    // an upper bound, for the disk check
	write    func(buf []byte, job, points int) []byte
}

var (
	benchEvents = benchFormat{"events", "events.out.tfevents.1700000000.bench", 48, appendBenchEvents}
	benchJSONL  = benchFormat{"jsonl", "metrics.jsonl", 64, appendBenchJSON}
)

// appendBenchEvents appends a job's event file: the file_version record,
// then one TF1 scalar "loss" per step, byte for byte what appendEvent and
// simpleValue write (TestBenchWriters), without their allocations.
func appendBenchEvents(buf []byte, job, points int) []byte {
	buf = fileVersion(buf, "brain.Event:2")
	for s := range points {
		buf = appendLossEvent(buf, 1.7e9+float64(s)*0.1, int64(s), float32(lossAt(job, s)))
	}
	return buf
}

func appendLossEvent(b []byte, wall float64, step int64, v float32) []byte {
	// Event{wall_time, step, summary: Summary{value: Value{tag: "loss",
	// simple_value}}}: the summary is 13 bytes, the value 11.
	n := 1 + 8 + 1 + protowire.SizeVarint(uint64(step)) + 2 + 13
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	b = binary.LittleEndian.AppendUint32(b, MaskedCRC(b[len(b)-8:]))
	at := len(b)
	b = append(b, 0x09)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(wall))
	b = append(b, 0x10)
	b = protowire.AppendVarint(b, uint64(step))
	b = append(b, 0x2a, 13, 0x0a, 11, 0x0a, 4, 'l', 'o', 's', 's', 0x15)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	return binary.LittleEndian.AppendUint32(b, MaskedCRC(b[at:]))
}

// appendBenchJSON appends the same points as JSON lines.
func appendBenchJSON(buf []byte, job, points int) []byte {
	for s := range points {
		buf = append(buf, `{"step": `...)
		buf = strconv.AppendInt(buf, int64(s), 10)
		buf = append(buf, `, "loss": `...)
		buf = strconv.AppendFloat(buf, float64(float32(lossAt(job, s))), 'g', -1, 32)
		buf = append(buf, `, "time": `...)
		buf = strconv.AppendFloat(buf, 1.7e9+float64(s)*0.1, 'f', 1, 64)
		buf = append(buf, "}\n"...)
	}
	return buf
}

// benchTree returns the directory holding the format's files at the scale,
// and their total size. Under $OPTIMUS_METRICS_BENCH_DIR a tree written
// whole before (its marker file holds its size) is reused; otherwise the
// files are written, on GOMAXPROCS goroutines, after checking the disk has
// room for them.
func benchTree(b *testing.B, f benchFormat, jobs, points int) (string, int64) {
	base := os.Getenv("OPTIMUS_METRICS_BENCH_DIR")
	if base == "" {
		base = b.TempDir()
	}
	dir := filepath.Join(base, fmt.Sprintf("%s-%dx%d", f.name, jobs, points))
	marker := dir + ".complete"
	if data, err := os.ReadFile(marker); err == nil {
		if size, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
			b.Logf("reusing %s (%d bytes)", dir, size)
			return dir, size
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	need := int64(jobs) * int64(points) * int64(f.perPoint)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil {
		if free := int64(st.Bavail) * st.Bsize; free < need+1<<30 {
			b.Fatalf("%s: %d bytes free, the %dx%d %s files need up to %d and 1 GiB to spare", dir, free, jobs, points, f.name, need)
		}
	}
	start := time.Now()
	var total atomic.Int64
	next := make(chan int, 64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			for j := range next {
				p := filepath.Join(dir, fmt.Sprintf("job-%05d", j), "ps2-w4", f.file)
				buf = f.write(buf[:0], j, points)
				err := os.MkdirAll(filepath.Dir(p), 0o755)
				if err == nil {
					err = os.WriteFile(p, buf, 0o644)
				}
				if err != nil {
					b.Error(err)
				}
				total.Add(int64(len(buf)))
			}
		})
	}
	for j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	size := total.Load()
	if err := os.WriteFile(marker, []byte(strconv.FormatInt(size, 10)+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %s: %d bytes in %v", dir, size, time.Since(start).Round(time.Millisecond))
	return dir, size
}

// TestBenchWriters checks that the benchmark's direct writers write what
// the field-by-field writers do (and the JSON lines what fmt does).
func TestBenchWriters(t *testing.T) {
	const job, points = 3, 20000 // steps past one, two and three varint bytes
	want := fileVersion(nil, "brain.Event:2")
	var json []byte
	for s := range points {
		want = appendEvent(want, 1.7e9+float64(s)*0.1, int64(s), simpleValue("loss", float32(lossAt(job, s))))
		json = fmt.Appendf(json, `{"step": %d, "loss": %s, "time": %s}`+"\n", s,
			strconv.FormatFloat(float64(float32(lossAt(job, s))), 'g', -1, 32), strconv.FormatFloat(1.7e9+float64(s)*0.1, 'f', 1, 64))
	}
	if got := appendBenchEvents(nil, job, points); !bytes.Equal(got, want) {
		t.Errorf("appendBenchEvents: %d bytes differ from appendEvent's %d", len(got), len(want))
	}
	if got := appendBenchJSON(nil, job, points); !bytes.Equal(got, json) {
		t.Errorf("appendBenchJSON: %d bytes differ from fmt's %d", len(got), len(json))
	}
}

func BenchmarkReadEvents(b *testing.B) { benchRead(b, benchEvents) }
func BenchmarkReadJSONL(b *testing.B)  { benchRead(b, benchJSONL) }

func benchRead(b *testing.B, f benchFormat) {
	jobs, points := benchScale(b)
	dir, size := benchTree(b, f, jobs, points)
	// The writing's garbage and the other benchmark's peak are not this
	// reading's: the peak resident set is reset (clear_refs 5) once the
	// heap is returned.
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	readers, err := NewReaders(nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	catTime, catCPU := catAll(b, dir) // also warms the page cache
	if t, c := catAll(b, dir); t < catTime {
		catTime, catCPU = t, c
	}
	user0, sys0 := cpuTimes()
	b.ResetTimer()
	var rows, rowBytes int64
	for range b.N {
		rows, rowBytes = 0, 0
		found, err := Discover(dir, readers, func(string, string) {})
		if err != nil {
			b.Fatal(err)
		}
		results := make([]*Result, len(found))
		next := make(chan int, 64)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range next {
					jr, err := ReadJob(found[i], readers, func(e *Error) { b.Error(e) })
					if err == nil {
						err = jr.Resolve(0)
					}
					if err == nil {
						results[i], err = Reduce(jr, Options{})
						jr.Release()
					}
					if err != nil {
						b.Error(err)
					}
				}
			})
		}
		for i := range found {
			next <- i
		}
		close(next)
		wg.Wait()
		for _, r := range results {
			if r.Loss.Len() != points || len(r.Speed) != 1 {
				b.Fatalf("%s: %d points, %d speed samples", r.Job, r.Loss.Len(), len(r.Speed))
			}
			rows += int64(r.Loss.Len())
			rowBytes += r.Loss.Bytes()
		}
		runtime.KeepAlive(results)
	}
	b.StopTimer()
	user1, sys1 := cpuTimes()
	user, sys := (user1-user0).Seconds()/float64(b.N), (sys1-sys0).Seconds()/float64(b.N)
	cpu := user + sys
	per := b.Elapsed().Seconds() / float64(b.N)
	// The machine is shared: CPU time says what the reading costs
	// whatever else runs, wall time what it took.
	b.ReportMetric(float64(size)/cpu/1e9, "GB/cpu-s")
	b.ReportMetric(float64(size)/catCPU.Seconds()/1e9, "cat-GB/cpu-s")
	b.ReportMetric(float64(size)/per/1e9, "GB/s")
	b.ReportMetric(float64(size)/1e9, "GB")
	b.ReportMetric(float64(size)/catTime.Seconds()/1e9, "cat-GB/s")
	b.ReportMetric(catTime.Seconds()/per, "of-cat")
	b.ReportMetric(user, "user-s")
	b.ReportMetric(sys, "sys-s")
	b.ReportMetric(float64(rows), "rows")
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(float64(hwm)/1e6, "peak-RSS-MB")
		b.ReportMetric(float64(hwm)/float64(rows), "peak-RSS-B/row")
	}
	// What the rows kept cost on this machine now by themselves: the CPU
	// time to fault in as many fresh bytes as they take (row-B each).
	b.ReportMetric(float64(rowBytes)/float64(rows), "row-B")
	b.ReportMetric(freshMemory(rowBytes).Seconds(), "rows-fault-cpu-s")
}

// catAll times `cat FILES > /dev/null` over every file under dir: its
// wall time and its CPU time (with find's and xargs').
func catAll(b *testing.B, dir string) (time.Duration, time.Duration) {
	start := time.Now()
	cmd := exec.Command("sh", "-c", `find "$1" -type f -print0 | xargs -0 cat > /dev/null`, "sh", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("cat: %v: %s", err, out)
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// cpuTimes are the process's user and system CPU time so far.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// freshMemory is the CPU time (user and system, of the thread) to touch
// every page of n bytes of memory fresh from the kernel (measured on at
// most 1 GiB, and scaled).
func freshMemory(n int64) time.Duration {
	m := min(n, 1<<30)
	if m < 1<<20 {
		return 0
	}
	mem, err := syscall.Mmap(-1, 0, int(m), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0
	}
	defer syscall.Munmap(mem)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	threadCPU := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(1, &ru) // RUSAGE_THREAD
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	page := os.Getpagesize()
	start := threadCPU()
	for i := 0; i < len(mem); i += page {
		mem[i] = 1
	}
	return time.Duration(float64(threadCPU()-start) * float64(n) / float64(m))
}

// peakRSS is the process's peak resident set (VmHWM), in bytes, or 0.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
