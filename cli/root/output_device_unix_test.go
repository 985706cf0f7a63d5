//go:build unix

package root

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// -o may name a device or a pipe (/dev/null, a FIFO, a shell's >(...)):
// the table is written straight through, as to standard output, in
// --format's format (an Arrow IPC stream by default); a regular file still
// takes its format from its extension, and --format with it is refused.
func TestOutputToADeviceOrAPipe(t *testing.T) {
	dir := exportTestbed(t)
	jobs := filepath.Join(dir, "jobs.parquet")
	if code, _, stderr := run(t, nil, "convert", "-i", jobs, "-o", os.DevNull); code != 0 {
		t.Fatalf("-o %s: exit %d: %s", os.DevNull, code, stderr)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, tc := range []struct {
		format string
		want   string // the start of what the reader gets
	}{
		{"csv", "job,model,mode,"},
		{"", "\xff\xff\xff\xff"}, // an Arrow IPC stream's continuation marker
		{"text", "job "},
	} {
		got := make(chan []byte, 1)
		go func() {
			b, _ := os.ReadFile(fifo) // opens when the writer does, reads to its close
			got <- b
		}()
		args := []string{"convert", "-i", jobs, "-o", fifo}
		if tc.format != "" {
			args = append(args, "--format", tc.format)
		}
		if code, _, stderr := run(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if b := <-got; !bytes.HasPrefix(b, []byte(tc.want)) {
			t.Errorf("--format %q through a FIFO: got %q..., want it to start %q", tc.format, b[:min(len(b), 20)], tc.want)
		}
	}
	if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	code, _, stderr := run(t, nil, "convert", "-i", jobs, "-o", filepath.Join(t.TempDir(), "x.csv"), "--format", "csv")
	if code != 2 || !strings.Contains(stderr, "with -o FILE the file's extension names the format") {
		t.Errorf("--format with a regular file: exit %d: %s", code, stderr)
	}
}

// An export stopped by SIGTERM while it writes leaves none of its
// temporary files behind (it wrote them through a copy of WriteFiles that
// no signal cleaned up), and its new directory holds all of the dataset's
// tables or is gone (it stayed, empty).
func TestInterruptedExportLeavesNoTemporaryFiles(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 0; attempt < 5; attempt++ {
		dir := filepath.Join(t.TempDir(), "export")
		cmd := exec.Command(self, "datasets", "export", "pollux-workload-1", "-o", dir, "-q")
		cmd.Env = append(os.Environ(), "OPTIMUS_TEST_MAIN=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		temps := func() []string {
			m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
			return m
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(temps()) == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if len(temps()) == 0 {
			cmd.Wait()
			continue // it ended before a temporary file was seen: again
		}
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		if left := temps(); len(left) > 0 {
			t.Fatalf("after SIGTERM (%v): %v left", err, left)
		}
		if files, derr := os.ReadDir(dir); derr == nil && len(files) != 4 {
			t.Fatalf("after SIGTERM (%v): the export directory holds %d files, want the 4 tables or no directory", err, len(files))
		}
		if err == nil {
			continue // it had finished: the files were renamed into place
		}
		return
	}
	t.Skip("the export never stopped while writing in 5 attempts")
}
