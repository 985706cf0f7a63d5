package metrics

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Configuration is a job's parameter servers and workers.
type Configuration struct{ PS, Workers int }

// LogFile is one log file of a job.
type LogFile struct {
	Path string // as found under the root
	// Config is the configuration named by the run directory the file is
	// in (see ConfigFromPath), or nil.
	Config *Configuration
	// Prefix is prepended to the file's tags: "validation/" for a file in
	// a directory named validation (Keras' and tf.summary's layout).
	Prefix string
}

// JobLogs are the log files of one job, in reading order.
type JobLogs struct {
	Job   string
	Files []LogFile
}

// Reader is an enabled source: its reader and the files it reads.
type Reader struct {
	Source *Source
	Files  string // patterns of base names
	Reader any    // a FileReader or a LineReader
}

// Discover maps the files under root to jobs: the first path component
// under root is the job (a directory holding any tree of runs, or a file
// whose name up to its first dot is the job's name). Hidden files and
// directories (a leading dot) are left out, and so are files that no reader
// reads. Jobs come sorted by name, each one's files by path. skip is told
// about entries whose name cannot be a job's.
func Discover(root string, readers []Reader, skip func(path, why string)) ([]JobLogs, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fileError(root, "%v", err)
	}
	if !info.IsDir() {
		return nil, fileError(root, "not a directory: give the directory that holds one directory (or log file) per job")
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fileError(root, "%v", err)
	}
	// The entries under root are walked on GOMAXPROCS goroutines (the
	// walk is system calls, most of them waiting on the file system), each
	// into its own slot; the slots are then taken in root's order, so the
	// jobs, skip's calls and the first error are those of one walk.
	walks := make([]entryWalk, len(entries))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(entries)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(entries) {
					return
				}
				walks[i].walk(root, entries[i], readers)
			}
		})
	}
	wg.Wait()
	byJob := map[string]*JobLogs{}
	for i := range walks {
		w := &walks[i]
		for _, s := range w.skips {
			skip(s[0], s[1])
		}
		if w.err != nil {
			return nil, w.err
		}
		for k, f := range w.files {
			job := w.jobs[k]
			jl := byJob[job]
			if jl == nil {
				jl = &JobLogs{Job: job}
				byJob[job] = jl
			}
			jl.Files = append(jl.Files, f)
		}
	}
	out := make([]JobLogs, 0, len(byJob))
	for _, jl := range byJob {
		sortFiles(jl.Files)
		out = append(out, *jl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Job < out[j].Job })
	return out, nil
}

// entryWalk is what the walk of one entry under Discover's root found:
// the files (and the job of each), in walk order, what skip was to be
// told, and the error that ended it.
type entryWalk struct {
	files []LogFile
	jobs  []string
	skips [][2]string
	err   error
}

func (w *entryWalk) walk(root string, top fs.DirEntry, readers []Reader) {
	w.err = walkDir(filepath.Join(root, top.Name()), top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fileError(path, "%v", err)
		}
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if len(parts) == 1 {
				if why := badJobName(parts[0]); why != "" {
					w.skips = append(w.skips, [2]string{path, why})
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			// A link to a file is read (log collectors link them); links to
			// directories are not followed (they may loop).
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
				return nil
			}
		}
		if !readable(readers, d.Name()) {
			return nil
		}
		job := parts[0]
		if len(parts) == 1 {
			job, _, _ = strings.Cut(job, ".")
			if why := badJobName(job); why != "" {
				w.skips = append(w.skips, [2]string{path, why})
				return nil
			}
		}
		f := LogFile{Path: path, Config: ConfigFromPath(parts[1:])}
		if len(parts) >= 3 {
			switch dir := parts[len(parts)-2]; dir {
			case "train", "validation", "eval", "test":
				f.Prefix = dir + "/"
			}
		}
		w.files = append(w.files, f)
		w.jobs = append(w.jobs, job)
		return nil
	})
}

// walkDir is filepath.WalkDir from an entry already read (no Lstat of
// it): fn is called for path, then, for a directory fn did not skip, with
// the error of reading it if that failed, else for each entry in name
// order, depth first.
func walkDir(path string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	err := fn(path, d, nil)
	if err != nil || !d.IsDir() {
		if err == filepath.SkipDir && d.IsDir() {
			return nil
		}
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		if err = fn(path, d, err); err != nil {
			if err == filepath.SkipDir {
				return nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := walkDir(filepath.Join(path, e.Name()), e, fn); err != nil {
			if err == filepath.SkipDir {
				return nil // the rest of this directory
			}
			return err
		}
	}
	return nil
}

func readable(readers []Reader, base string) bool {
	for _, r := range readers {
		if matchLog(r.Files, base) {
			return true
		}
	}
	return false
}

// matchLog matches a log's base name, or that of the log it was rotated
// from (train.log.1 is a train.log).
func matchLog(patterns, base string) bool {
	if matchFiles(patterns, base) {
		return true
	}
	name, _, ok := rotatedName(base)
	return ok && matchFiles(patterns, name)
}

// matchFiles is MatchFiles without its allocations, and without
// path.Match for the patterns every source has: a literal, *literal,
// literal* (each file of a tree is matched against every source's).
func matchFiles(patterns, base string) bool {
	for more := true; more; {
		p := patterns
		if i := strings.IndexByte(patterns, ','); i >= 0 {
			p, patterns = patterns[:i], patterns[i+1:]
		} else {
			more = false // as strings.Split, "" is one empty pattern
		}
		p = strings.TrimSpace(p)
		if lit := p[min(1, len(p)):]; strings.HasPrefix(p, "*") && !strings.ContainsAny(lit, `*?[\`) {
			// * matches any run of bytes but /.
			if strings.HasSuffix(base, lit) && !strings.Contains(base[:len(base)-len(lit)], "/") {
				return true
			}
			continue
		}
		if lit := strings.TrimSuffix(p, "*"); !strings.ContainsAny(lit, `*?[\`) {
			if lit == p && base == p || lit != p && strings.HasPrefix(base, lit) && !strings.Contains(base[len(lit):], "/") {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, base); ok {
			return true
		}
	}
	return false
}

// rotatedName splits a rotated log's name into the log's and the number
// (train.log.1: train.log, 1), as ^(.*)\.(\d+)$ does: the digits after
// the last dot, with no newline before it.
func rotatedName(base string) (name, num string, ok bool) {
	i := strings.LastIndexByte(base, '.')
	if i < 0 || i == len(base)-1 || strings.IndexByte(base[:i], '\n') >= 0 {
		return "", "", false
	}
	for j := i + 1; j < len(base); j++ {
		if base[j] < '0' || base[j] > '9' {
			return "", "", false
		}
	}
	return base[:i], base[i+1:], true
}

// badJobName says why a directory or file name cannot name a job ("" when
// it can): job names reach tables, terminals and pod labels.
func badJobName(name string) string {
	switch {
	case name == "":
		return "an empty job name"
	case !utf8.ValidString(name):
		return "the job name is not valid UTF-8"
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "the job name has control characters"
	case len(name) > 253:
		return "the job name is longer than 253 bytes"
	}
	return ""
}

// sortFiles orders a job's files oldest first: by directory, then rotated
// logs before the file they were rotated from (higher numbers first), then
// by name (event files' names start with their creation time, and end
// in a number that is not a rotation).
func sortFiles(files []LogFile) {
	key := func(p string) (string, string, int) {
		dir, base := filepath.Split(p)
		if name, num, ok := rotatedName(base); ok && !strings.HasPrefix(base, "events.out.tfevents.") {
			n, _ := strconv.Atoi(num)
			if n < 1<<30 {
				return dir, name, 1<<30 - n
			}
		}
		return dir, base, 1 << 30
	}
	sort.SliceStable(files, func(i, j int) bool {
		di, bi, ni := key(files[i].Path)
		dj, bj, nj := key(files[j].Path)
		if di != dj {
			return di < dj
		}
		if bi != bj {
			return bi < bj
		}
		return ni < nj
	})
}

// configName matches a run directory named for its configuration: ps2-w4,
// p2w4, ps2_workers4 (parameter servers and workers), or w8, workers8
// (all-reduce: no parameter servers), alone or within a longer name
// separated by - _ or . (gen3-ps2-w4). They are compiled on first use, not
// at every start of the binary.
var (
	configPSW = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[-_.])ps?(\d{1,6})[-_.]?w(?:orkers?)?(\d{1,6})(?:$|[-_.])`)
	})
	configW = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[-_.])w(?:orkers?)?(\d{1,6})(?:$|[-_.])`)
	})
)

// ConfigFromPath is the configuration named by the deepest directory of
// dirs (the path components between the job's directory and the file,
// the file's own name last) that names one, or nil.
func ConfigFromPath(parts []string) *Configuration {
	for i := len(parts) - 2; i >= 0; i-- {
		if m := configPSW().FindStringSubmatch(parts[i]); m != nil {
			p, _ := strconv.Atoi(m[1])
			w, _ := strconv.Atoi(m[2])
			if w > 0 {
				return &Configuration{PS: p, Workers: w}
			}
		}
		if m := configW().FindStringSubmatch(parts[i]); m != nil {
			w, _ := strconv.Atoi(m[1])
			if w > 0 {
				return &Configuration{Workers: w}
			}
		}
	}
	return nil
}

func (c Configuration) String() string { return fmt.Sprintf("ps=%d workers=%d", c.PS, c.Workers) }
