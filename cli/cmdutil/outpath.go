package cmdutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Output paths are checked before a command reads or computes anything:
// a path that cannot be written (its directory missing, or a file where a
// directory must be, or a directory this user cannot write in, on a
// read-only file system among others) is a usage error, exit 2, found in
// a millisecond rather than after a simulation or a solve of minutes. A
// full disk is left to the write, which reports it.

// CheckOutputFile refuses an output file that is a directory, or whose
// directory does not exist or is a file; flag names the option it came
// from ("-o").
func CheckOutputFile(flag, path string) error { return checkOutputFileIn(flag, path, "") }

// checkOutputFileIn is CheckOutputFile for a command that creates the
// directory made (when not "") before it writes path: path may be a file
// in made, which the command checks itself (CheckOutputDir).
func checkOutputFileIn(flag, path, made string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return Usagef("%s %s is a directory: name a file in it", flag, path)
	}
	dir := filepath.Dir(path)
	if made != "" && dir == filepath.Clean(made) {
		return nil
	}
	found, isDir, ok := nearestExisting(dir)
	switch {
	case !ok:
	case !isDir:
		return Usagef("%s %s: %s is a file, not a directory", flag, path, found)
	case found != dir:
		return Usagef("%s %s: there is no directory %s (optimus writes files into existing directories)", flag, path, dir)
	}
	if ok {
		if li, err := os.Lstat(path); err == nil && !li.Mode().IsRegular() {
			return nil // a link (written through to its target) or a device: left to the write
		}
		if err := writable(found); err != nil {
			return Usagef("%s %s: cannot write in %s: %v", flag, path, found, err)
		}
	}
	return nil
}

// CheckPageFile is CheckOutputFile for the -o of chart and report, whose
// page goes to standard output without one.
func CheckPageFile(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	return CheckOutputFile("-o", path)
}

// CheckOutputDir refuses an output directory (one the command creates when
// missing) that is a file or lies under one.
func CheckOutputDir(flag, dir string) error {
	if found, isDir, ok := nearestExisting(dir); ok && !isDir {
		if found == filepath.Clean(dir) {
			return Usagef("%s %s is a file: name a directory (it is created when missing)", flag, dir)
		}
		return Usagef("%s %s: %s is a file, not a directory", flag, dir, found)
	} else if ok {
		if err := writable(found); err != nil {
			return Usagef("%s %s: cannot write in %s: %v", flag, dir, found, err)
		}
	}
	return nil
}

// nearestExisting is path, or the nearest of its parents, that exists, and
// whether it is a directory (a link to one counts); ok is false when that
// could not be told (a permission error, say).
func nearestExisting(path string) (found string, isDir, ok bool) {
	p := filepath.Clean(path)
	for {
		fi, err := os.Stat(p)
		if err == nil {
			return p, fi.IsDir(), true
		}
		// ENOTDIR: a parent of p is a file; keep walking up to it.
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", false, false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false, false
		}
		p = parent
	}
}
