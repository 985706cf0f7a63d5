package clitest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/internal/testgc"
)

// A Fixture is a folder of tables made once per test binary, on first use,
// and shared by the tests that need it: an exported dataset, the outputs
// of a pipeline. Tests that only read it use Dir; tests that change or add
// files use Copy. Give TestMain to clitest.Main to remove it at the end.
type Fixture struct {
	name string
	make func(dir string) error

	once sync.Once
	dir  string
	err  error
}

var fixtures struct {
	sync.Mutex
	made []*Fixture
}

// NewFixture returns a fixture named name (the folder's base name) that
// make fills on first use.
func NewFixture(name string, make func(dir string) error) *Fixture {
	return &Fixture{name: name, make: make}
}

// Dir returns the shared folder, made on first use; tests must not change
// it. A fixture that failed to be made fails every test that asks for it.
func (f *Fixture) Dir(t testing.TB) string {
	t.Helper()
	f.once.Do(func() {
		root, err := os.MkdirTemp("", "optimus-fixture-")
		if err != nil {
			f.err = err
			return
		}
		fixtures.Lock()
		fixtures.made = append(fixtures.made, f)
		fixtures.Unlock()
		f.dir = filepath.Join(root, f.name)
		if err := os.Mkdir(f.dir, 0o755); err != nil {
			f.err = err
			return
		}
		if err := f.make(f.dir); err != nil {
			f.err = fmt.Errorf("fixture %s: %w", f.name, err)
		}
	})
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f.dir
}

// Copy returns a copy of the fixture, in the test's own temporary folder
// and with the fixture's base name, for a test to change.
func (f *Fixture) Copy(t testing.TB) string {
	t.Helper()
	src := f.Dir(t)
	dst := filepath.Join(t.TempDir(), f.name)
	if err := copyDir(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// Main runs the tests and removes the fixtures they made: a test
// package's TestMain is
//
//	func TestMain(m *testing.M) { clitest.Main(m) }
//
// and after run once the tests are done (ktest.StopShared, say).
//
// Unless GOGC is set, the tests run with the collector at 400%
// (testgc.Raise): a test binary runs many short commands whose heaps are
// small and die with the command, so collecting a quarter as often saves
// CPU (benchmarks/test-time-session6.md) for memory the machine has.
func Main(m *testing.M, after ...func()) {
	testgc.Raise()
	code := m.Run()
	for _, f := range after {
		f()
	}
	fixtures.Lock()
	for _, f := range fixtures.made {
		if f.dir != "" {
			os.RemoveAll(filepath.Dir(f.dir))
		}
	}
	fixtures.Unlock()
	os.Exit(code)
}

// RunAll runs command lines one after the other, standard input empty, and
// returns an error naming the first that fails, with its standard error:
// what a fixture's make function runs.
func (c Command) RunAll(lines [][]string) error {
	for _, args := range lines {
		code, _, stderr, line := c.run(nil, args)
		if code != 0 {
			return fmt.Errorf("%s: exit %d: %s", line, code, strings.TrimSpace(stderr))
		}
	}
	return nil
}
