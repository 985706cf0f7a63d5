package table

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MakeDirs creates the output directory dir and its missing parents, as
// os.MkdirAll does, for a command that then writes its files into it, and
// returns done, to call when the command has written them or failed. On a
// failure (done(true)) the directories MakeDirs created are removed again
// where they are still empty, deepest first, so that a command that wrote
// nothing leaves nothing; a signal that ends the process before done
// removes them the same way, after the temporary files (AtomicWrite).
// Directories that existed before are never removed.
func MakeDirs(dir string) (done func(failed bool), err error) {
	var made []string // deepest first
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	set := &madeDirs{dirs: made}
	temps.Lock()
	if len(made) > 0 {
		catchLocked()
		if temps.dirs == nil {
			temps.dirs = map[*madeDirs]bool{}
		}
		temps.dirs[set] = true
	}
	temps.Unlock()
	forget := func() {
		temps.Lock()
		defer temps.Unlock()
		delete(temps.dirs, set)
		releaseLocked()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeEmpty(made)
		forget()
		return nil, err
	}
	return func(failed bool) {
		if failed {
			removeEmpty(made)
		}
		forget()
	}, nil
}

// madeDirs are the directories one MakeDirs created, deepest first.
type madeDirs struct{ dirs []string }

// removeEmpty removes each of dirs (deepest first) that is empty; a
// directory that holds anything stays, and so do its parents.
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
