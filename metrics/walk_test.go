package metrics

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// matchFiles and rotatedName agree with MatchFiles and the regular
// expression they replace, on names and patterns built from the bytes
// that matter to them.
func TestMatchFilesAndRotated(t *testing.T) {
	rotated := regexp.MustCompile(`^(.*)\.(\d+)$`)
	rng := rand.New(rand.NewPCG(9, 10))
	const alphabet = "ab.1*?[]\\/,\n -"
	str := func(n int) string {
		b := make([]byte, rng.IntN(n))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for _, p := range []string{"events.out.tfevents.*", "*.log,*.txt,*.out", "*.jsonl,*.ndjson", "*.csv", "", ",", "*", "a*,b"} {
		for _, b := range []string{"events.out.tfevents.1.host", "train.log", "train.log.3", "x/train.log", "a", "", "metrics.jsonl"} {
			if got, want := matchFiles(p, b), MatchFiles(p, b); got != want {
				t.Errorf("matchFiles(%q, %q) = %v, MatchFiles says %v", p, b, got, want)
			}
		}
	}
	for range 200000 {
		p, b := str(8), str(8)
		if rng.IntN(2) == 0 {
			b = p // a pattern as a name: its literals match
		}
		if got, want := matchFiles(p, b), MatchFiles(p, b); got != want {
			t.Fatalf("matchFiles(%q, %q) = %v, MatchFiles says %v", p, b, got, want)
		}
		name, num, ok := rotatedName(b)
		m := rotated.FindStringSubmatch(b)
		if ok != (m != nil) || ok && (name != m[1] || num != m[2]) {
			t.Fatalf("rotatedName(%q) = %q %q %v, the expression says %q", b, name, num, ok, m)
		}
	}
}

// Discover, which walks the entries under root in parallel, finds what one
// filepath.WalkDir over root finds (discoverWalk, Discover as it was
// before): the same jobs and files in the same order, the same calls of
// skip in the same order, the same first error. The tree has jobs as
// directories and as files (one job both), names that cannot be jobs',
// hidden entries, links to files and to directories, rotated logs,
// prefixes, files no reader reads, and an unreadable directory.
func TestDiscoverAsOneWalk(t *testing.T) {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	names := []string{"events.out.tfevents.1.h", "train.log", "train.log.3", "metrics.jsonl", "model.ckpt", ".x.log", "log.csv"}
	for j := range 150 {
		job := fmt.Sprintf("job-%03d", j)
		switch j % 10 {
		case 3:
			job = fmt.Sprintf("bad\x01%d", j)
		case 5:
			writeFile(t, root, job+".log", nil)
		case 7:
			job = "." + job
		}
		for range 1 + rng.IntN(4) {
			dir := []string{"", "ps2-w4/", "train/", "validation/", "gen1-w8/eval/", ".hidden/"}[rng.IntN(6)]
			writeFile(t, root, job+"/"+dir+names[rng.IntN(len(names))], nil)
		}
	}
	writeFile(t, root, "bad\x02.log", nil)
	if err := os.Symlink(filepath.Join(root, "job-000"), filepath.Join(root, "job-000", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "job-005.log"), filepath.Join(root, "job-001", "linked.log")); err != nil {
		t.Fatal(err)
	}
	readers := allReaders(t)
	type found struct {
		jobs  []JobLogs
		skips []string
		err   string
	}
	run := func(discover func(string, []Reader, func(string, string)) ([]JobLogs, error)) found {
		var f found
		var err error
		f.jobs, err = discover(root, readers, func(p, why string) { f.skips = append(f.skips, p+": "+why) })
		if err != nil {
			f.err = err.Error()
		}
		return f
	}
	got, want := run(Discover), run(discoverWalk)
	if !reflect.DeepEqual(got, want) || len(want.jobs) < 100 || len(want.skips) < 10 {
		t.Fatalf("Discover found %d jobs, %d skips, error %q; one walk %d, %d, %q", len(got.jobs), len(got.skips), got.err, len(want.jobs), len(want.skips), want.err)
	}
	locked := filepath.Join(root, "job-080", "locked")
	writeFile(t, locked, "train.log", nil)
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	got, want = run(Discover), run(discoverWalk)
	if !reflect.DeepEqual(got, want) || os.Geteuid() != 0 && want.err == "" {
		t.Fatalf("with an unreadable directory, Discover gives %d jobs, %d skips, %q; one walk %d, %d, %q", len(got.jobs), len(got.skips), got.err, len(want.jobs), len(want.skips), want.err)
	}
}

func discoverWalk(root string, readers []Reader, skip func(path, why string)) ([]JobLogs, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fileError(root, "%v", err)
	}
	if !info.IsDir() {
		return nil, fileError(root, "not a directory: give the directory that holds one directory (or log file) per job")
	}
	byJob := map[string]*JobLogs{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fileError(path, "%v", err)
		}
		if path == root {
			return nil
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
					skip(path, why)
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
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
				skip(path, why)
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
		jl := byJob[job]
		if jl == nil {
			jl = &JobLogs{Job: job}
			byJob[job] = jl
		}
		jl.Files = append(jl.Files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]JobLogs, 0, len(byJob))
	for _, jl := range byJob {
		sortFiles(jl.Files)
		out = append(out, *jl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Job < out[j].Job })
	return out, nil
}
