package kubelogs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestartsFileIsReadBounded: a restarts file that is not one the source
// wrote is an error naming the file, whatever its size, and one it wrote
// reads back.
func TestRestartsFileIsReadBounded(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, ".p.c.restarts")
	if err := writeRestarts(good, "uid-1", restartState{count: 3, ended: true}); err != nil {
		t.Fatal(err)
	}
	if st, err := readRestarts(good, "uid-1"); err != nil || st != (restartState{count: 3, ended: true}) {
		t.Fatalf("read back %+v, %v", st, err)
	}
	for name, body := range map[string]string{
		"huge":    "uid-1 3 ended\n" + strings.Repeat("x", 10<<20),
		"garbage": "uid-1 three ended\n",
		"no-end":  "uid-1 3 ended",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readRestarts(p, "uid-1"); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v, want an error naming %s", name, err, p)
		}
	}
}
