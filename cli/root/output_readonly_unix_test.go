//go:build unix

package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// readOnlyDir is an empty directory this process cannot write in: mode
// 0555 for a user, a read-only tmpfs mounted on it for root (whom modes do
// not stop); skipped where root cannot mount.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_RDONLY, "size=64k"); err != nil {
		t.Skip("root, and no read-only mount here:", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, 0) })
	return dir
}

// An output in a directory that cannot be written in is refused before
// anything is read, computed or done, exit 2: before, solve and simulate
// did all their work and then failed (exit 1), and apply made every
// change and then could not write its actions table.
func TestOutputInAReadOnlyDirectoryExitsTwo(t *testing.T) {
	ro := readOnlyDir(t)
	dir := plannedTestbed.Copy(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	calls := p("calls.log")
	if err := os.WriteFile(p("launch"), []byte("#!/bin/sh\ncat >/dev/null\necho \"$1 $2\" >> "+shellQuote(calls)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"solve", []string{"solve", "--cluster", p("cluster.parquet"), "-i", p("predictions.parquet"), "-o", filepath.Join(ro, "a.parquet")}, "-o " + filepath.Join(ro, "a.parquet") + ": cannot write in " + ro},
		{"simulate --dir", []string{"simulate", "--dir", filepath.Join(ro, "sim", "deep"), "-o", p("s.csv")}, "--dir " + filepath.Join(ro, "sim", "deep") + ": cannot write in " + ro},
		{"export", []string{"datasets", "export", "testbed", "-o", ro}, "-o " + ro + ": cannot write in " + ro},
		{"apply", []string{"apply", "-i", p("plan.parquet"), "--jobs", p("jobs.parquet"), "--executor", "exec", "--program", p("launch"), "-o", filepath.Join(ro, "actions.parquet")},
			"cannot write in " + ro},
		{"apply --state", []string{"apply", "-i", p("plan.parquet"), "--jobs", p("jobs.parquet"), "--executor", "exec", "--program", p("launch"), "--state", filepath.Join(ro, "state.parquet"), "-o", p("actions.parquet")},
			"--state " + filepath.Join(ro, "state.parquet") + ": cannot write in " + ro},
	} {
		code, _, stderr := run(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", c.name, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(calls); err == nil {
		t.Error("apply called the program although it could not write its actions table or state")
	}
	if _, err := os.Stat(p("actions.parquet")); err == nil {
		t.Error("apply wrote its actions table although it could not record its state")
	}
	if _, err := os.Stat(p("s.csv")); err == nil {
		t.Error("simulate wrote -o although it could not write --dir")
	}
	// A device is written straight through: its directory need not be
	// writable.
	if code, _, stderr := run(t, nil, "convert", "-i", p("jobs.parquet"), "-o", os.DevNull); code != 0 {
		t.Errorf("-o %s: exit %d: %s", os.DevNull, code, stderr)
	}
}
