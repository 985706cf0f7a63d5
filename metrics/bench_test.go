package metrics

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Reading every job's whole history, as the cron job's first step does:
// event files, and the same points as JSON lines. The scale is
// $OPTIMUS_METRICS_BENCH (JOBSxPOINTS, default 100x10000; benchmarks/
// metrics.md has the 10000x10000 run). Each benchmark writes its files in a
// temporary directory first, then reads them through Discover, ReadJob,
// Resolve and Reduce on GOMAXPROCS goroutines, keeping every job's result
// as the command does, and times `cat FILES > /dev/null` on the same files
// in the same run.

func benchScale(b *testing.B) (jobs, points int) {
	jobs, points = 100, 10000
	if s := os.Getenv("OPTIMUS_METRICS_BENCH"); s != "" {
		j, p, ok := strings.Cut(s, "x")
		var err1, err2 error
		jobs, err1 = strconv.Atoi(j)
		points, err2 = strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil || jobs < 1 || points < 3 {
			b.Fatalf("OPTIMUS_METRICS_BENCH=%q: give JOBSxPOINTS", s)
		}
	}
	return jobs, points
}

// lossAt is a 1/k curve with a wobble, so values differ in every bit.
func lossAt(job, step int) float64 {
	return 1/(0.001*float64(step)+1) + 0.05 + 0.01*math.Sin(float64(step*7+job))
}

func writeBenchEvents(b *testing.B, dir string, jobs, points int) int64 {
	var total int64
	for j := range jobs {
		p := filepath.Join(dir, fmt.Sprintf("job-%05d", j), "ps2-w4", "events.out.tfevents.1700000000.bench")
		os.MkdirAll(filepath.Dir(p), 0o755)
		buf := fileVersion(make([]byte, 0, 48*points), "brain.Event:2")
		for s := range points {
			buf = appendEvent(buf, 1.7e9+float64(s)*0.1, int64(s), simpleValue("loss", float32(lossAt(j, s))))
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(buf))
	}
	return total
}

func writeBenchJSON(b *testing.B, dir string, jobs, points int) int64 {
	var total int64
	for j := range jobs {
		p := filepath.Join(dir, fmt.Sprintf("job-%05d", j), "ps2-w4", "metrics.jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		buf := make([]byte, 0, 64*points)
		for s := range points {
			buf = fmt.Appendf(buf, `{"step": %d, "loss": %s, "time": %s}`+"\n", s,
				strconv.FormatFloat(float64(float32(lossAt(j, s))), 'g', -1, 32), strconv.FormatFloat(1.7e9+float64(s)*0.1, 'f', 1, 64))
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(buf))
	}
	return total
}

func BenchmarkReadEvents(b *testing.B) { benchRead(b, writeBenchEvents) }
func BenchmarkReadJSONL(b *testing.B)  { benchRead(b, writeBenchJSON) }

func benchRead(b *testing.B, write func(*testing.B, string, int, int) int64) {
	jobs, points := benchScale(b)
	dir := b.TempDir()
	size := write(b, dir, jobs, points)
	readers, err := NewReaders(nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	catTime, catCPU := catAll(b, dir) // also warms the page cache
	if t, c := catAll(b, dir); t < catTime {
		catTime, catCPU = t, c
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	var rows int64
	for range b.N {
		rows = 0
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
			if len(r.Loss) != points || len(r.Speed) != 1 {
				b.Fatalf("%s: %d points, %d speed samples", r.Job, len(r.Loss), len(r.Speed))
			}
			rows += int64(len(r.Loss))
		}
		runtime.KeepAlive(results)
	}
	b.StopTimer()
	cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
	per := b.Elapsed().Seconds() / float64(b.N)
	// The machine is shared: CPU time says what the reading costs
	// whatever else runs, wall time what it took.
	b.ReportMetric(float64(size)/cpu/1e9, "GB/cpu-s")
	b.ReportMetric(float64(size)/catCPU.Seconds()/1e9, "cat-GB/cpu-s")
	b.ReportMetric(float64(size)/per/1e9, "GB/s")
	b.ReportMetric(float64(size)/1e9, "GB")
	b.ReportMetric(float64(size)/catTime.Seconds()/1e9, "cat-GB/s")
	b.ReportMetric(catTime.Seconds()/per, "of-cat")
	b.ReportMetric(float64(rows), "rows")
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(float64(hwm)/1e6, "peak-RSS-MB")
		b.ReportMetric(float64(hwm)/float64(rows), "peak-RSS-B/row")
	}
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

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
