package table

import (
	"os"
	"path/filepath"
	"testing"
)

// MakeDirs undoes only what it made, and only what is still empty.
func TestMakeDirsRemovesWhatItMadeOnFailure(t *testing.T) {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")

	done, err := MakeDirs(deep)
	if err != nil || !exists(deep) {
		t.Fatalf("MakeDirs: %v", err)
	}
	done(true)
	if exists(filepath.Join(root, "a")) || !exists(root) {
		t.Errorf("after a failure: a exists %v, the root exists %v; want only the root", exists(filepath.Join(root, "a")), exists(root))
	}

	// A file written into the middle one keeps it (and its parents).
	done, err = MakeDirs(deep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done(true)
	if exists(deep) || !exists(filepath.Join(root, "a", "b", "f")) {
		t.Errorf("after a failure with a file in a/b: c exists %v, the file %v; want c gone, the file kept", exists(deep), exists(filepath.Join(root, "a", "b", "f")))
	}

	// Success keeps even an empty directory; existing ones are never made
	// or removed.
	done, err = MakeDirs(deep)
	if err != nil {
		t.Fatal(err)
	}
	done(false)
	if !exists(deep) {
		t.Error("after success the directory is gone")
	}
	done, err = MakeDirs(deep)
	if err != nil {
		t.Fatal(err)
	}
	done(true)
	if !exists(deep) {
		t.Error("a directory that existed before was removed")
	}
	temps.Lock()
	defer temps.Unlock()
	if len(temps.dirs) != 0 || temps.sig != nil {
		t.Errorf("still tracked: %v, catching signals: %v", temps.dirs, temps.sig != nil)
	}
}

// A directory that cannot be made is an error, and nothing stays tracked.
func TestMakeDirsThroughAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, nil, 0o644)
	if _, err := MakeDirs(filepath.Join(f, "d")); err == nil {
		t.Fatal("made a directory under a file")
	}
	temps.Lock()
	defer temps.Unlock()
	if len(temps.dirs) != 0 || temps.sig != nil {
		t.Errorf("still tracked: %v", temps.dirs)
	}
}
