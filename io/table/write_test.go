package table

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeText(text string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
}

// TestAtomicWriteErrorsNameTheUsersPath: whatever fails, the message names
// the path given, not the hidden temporary file, and nothing is left.
func TestAtomicWriteErrorsNameTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		name string
		path string
		fill func(io.Writer) error
		want string
	}{
		{"no such directory", filepath.Join(dir, "nodir", "out.parquet"), writeText("x"), "nodir/out.parquet: no such file or directory"},
		{"a file as directory", filepath.Join(file, "out.parquet"), writeText("x"), "file/out.parquet: not a directory"},
		{"a directory at the path", dir, writeText("x"), ""},
		{"fill fails", filepath.Join(dir, "out.csv"), func(io.Writer) error { return errors.New("boom") }, "boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := AtomicWrite(c.path, c.fill)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), ".tmp-") || c.want != "" && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to say %q and not name the temporary file", err, c.want)
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestAtomicWriteModeAndLinks: the file gets 0666 less the umask, and a
// symbolic link at the path (to a file, or dangling) is written through.
func TestAtomicWriteModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	plain := filepath.Join(dir, "plain.csv")
	if err := AtomicWrite(plain, writeText("a\n")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(plain); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v under umask 027, want -rw-r-----", info.Mode().Perm())
	}
	target := filepath.Join(dir, "target.csv")
	os.WriteFile(target, []byte("old\n"), 0o600)
	for _, c := range []struct{ link, dest, target string }{
		{"link.csv", "target.csv", target},
		{"dangling.csv", "sub/new.csv", filepath.Join(dir, "sub", "new.csv")},
	} {
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		link := filepath.Join(dir, c.link)
		if err := os.Symlink(c.dest, link); err != nil {
			t.Fatal(err)
		}
		if err := AtomicWrite(link, writeText("new\n")); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced by a file", c.link)
		}
		if data, _ := os.ReadFile(c.target); string(data) != "new\n" {
			t.Errorf("%s: target holds %q", c.link, data)
		}
	}
}

// TestAtomicWriteToADirectory: a path that is a directory is refused
// before anything is written, as invalid input (exit 2), naming the path.
func TestAtomicWriteToADirectory(t *testing.T) {
	dir := t.TempDir()
	called := false
	err := AtomicWrite(dir, func(io.Writer) error { called = true; return nil })
	if !errors.Is(err, ErrInvalidInput) || err.Error() != dir+": is a directory: name a file in it" || called {
		t.Errorf("AtomicWrite(a directory): %v (fill called: %v)", err, called)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// CommitAll renames a set in order; when one rename fails the files after
// it are removed, the ones before stay, and no temporary file or record of
// one is left.
func TestCommitAll(t *testing.T) {
	dir := t.TempDir()
	var ps []*Pending
	for _, name := range []string{"a.csv", "b.csv", "c.csv"} {
		p, err := Prepare(filepath.Join(dir, name), func(w io.Writer) error { _, err := io.WriteString(w, name); return err })
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	// b.csv becomes a directory with a file in it: its rename fails.
	if err := os.MkdirAll(filepath.Join(dir, "b.csv", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := CommitAll(ps)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "b.csv")) || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("CommitAll: %v; want the rename's error naming b.csv", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "a.csv")); err != nil || string(data) != "a.csv" {
		t.Errorf("a.csv: %q, %v; want it in place", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.csv")); err == nil {
		t.Error("c.csv was renamed into place after b.csv failed")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	temps.Lock()
	n := len(temps.files)
	temps.Unlock()
	if n != 0 {
		t.Errorf("%d temporary files still recorded", n)
	}
}

// TestInterruptedWriteLeavesNothing: SIGTERM or SIGINT while a file is
// being written removes the temporary file and exits 128+signal.
func TestInterruptedWriteLeavesNothing(t *testing.T) {
	if dir := os.Getenv("OPTIMUS_TEST_SLOW_WRITE"); dir != "" {
		AtomicWrite(filepath.Join(dir, "out.parquet"), func(w io.Writer) error {
			w.Write(make([]byte, 1<<21)) // past the buffer: the file exists
			os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
			time.Sleep(time.Minute)
			return nil
		})
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		cmd := startSlowWriter(t, dir, exec.Command(os.Args[0], "-test.run", "^TestInterruptedWriteLeavesNothing$"))
		if left, _ := filepath.Glob(filepath.Join(dir, ".out.parquet.tmp-*")); len(left) != 1 {
			t.Fatalf("%v: no temporary file while writing: %v", sig, left)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: exit %v, want %d", sig, err, 128+int(sig))
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
			t.Errorf("%v: left behind: %v", sig, left)
		}
	}
}

// startSlowWriter starts cmd, a run of TestInterruptedWriteLeavesNothing's
// writer into dir, and waits until it is writing.
func startSlowWriter(t *testing.T, dir string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	cmd.Env = append(os.Environ(), "OPTIMUS_TEST_SLOW_WRITE="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd
}

// TestIgnoredInterruptStaysIgnored: a writer started with SIGINT ignored
// (a script's background job) is not ended by one, and a SIGTERM still
// ends it with nothing left behind.
func TestIgnoredInterruptStaysIgnored(t *testing.T) {
	dir := t.TempDir()
	cmd := startSlowWriter(t, dir, exec.Command("sh", "-c", `trap '' INT; exec "$0" -test.run '^TestInterruptedWriteLeavesNothing$'`, os.Args[0]))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		t.Fatalf("SIGINT, ignored at start, ended the writer: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".out.parquet.tmp-*")); len(left) != 1 {
		t.Fatalf("after an ignored SIGINT the temporary file is %v, want it still there", left)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := <-exited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("SIGTERM: exit %v, want %d", err, 128+int(syscall.SIGTERM))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestStaleTemporaryFilesAreRemoved: temporary files a killed writer left
// (its process gone) are removed by the next write of the same path; those
// of live processes, and of other paths, stay.
func TestStaleTemporaryFilesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.parquet")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	deadPID := dead.Process.Pid
	names := map[string]bool{ // name -> should survive
		".plan.parquet.tmp-" + itoa(deadPID) + "-123":     false,
		".plan.parquet.tmp-" + itoa(os.Getpid()) + "-456": true,
		".plan.parquet.tmp-1-789":                         true, // init: alive
		".other.parquet.tmp-" + itoa(deadPID) + "-1":      true,
		".plan.parquet.tmp-junk":                          true,
	}
	for n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	if err := AtomicWrite(path, writeText("new")); err != nil {
		t.Fatal(err)
	}
	for n, survive := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if survive != (err == nil) {
			t.Errorf("%s: exists %v, want %v", n, err == nil, survive)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
