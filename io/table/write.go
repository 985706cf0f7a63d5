package table

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/optimus-sched/optimus/internal/interrupt"
)

// Write encodes t in the given format.
func Write(w io.Writer, format Format, t *Table) error {
	switch format {
	case ArrowStream:
		return writeArrowStream(w, t)
	case ArrowFile:
		return writeArrowFile(w, t)
	case Parquet:
		return writeParquet(w, t)
	case CSV:
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := writeCSV(bw, t); err != nil {
			return err
		}
		return bw.Flush()
	}
	return fmt.Errorf("table: cannot write format %v", format)
}

// WriteStream writes t as an Arrow IPC stream, the format of pipes.
func WriteStream(w io.Writer, t *Table) error { return writeArrowStream(w, t) }

// WriteFile writes t to path in the format its extension names. The file
// appears complete or not at all: the table is written to a temporary file
// in the same directory, synced, and renamed over path.
func WriteFile(path string, t *Table) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	return AtomicWrite(path, func(w io.Writer) error { return Write(w, format, t) })
}

// PrepareFile writes t to a temporary file beside path, in the format
// path's extension names, to be renamed into place by Commit (see
// Prepare).
func PrepareFile(path string, t *Table) (*Pending, error) {
	format, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	return Prepare(path, func(w io.Writer) error { return Write(w, format, t) })
}

// AtomicWrite creates path with the content fill writes, through a temporary
// file renamed into place only when fill succeeded; on failure nothing is
// left behind and an existing file at path is untouched. The temporary file
// is also removed when the process is interrupted (SIGINT, SIGTERM, unless
// ignored from the start: internal/interrupt) while writing. A path that
// is a directory is refused. The file gets the permissions a new file
// gets (0666 less the umask). A symbolic link at path is written through:
// its target is replaced and the link stays. Errors name path, not the
// temporary file.
func AtomicWrite(path string, fill func(io.Writer) error) error {
	p, err := Prepare(path, fill)
	if err != nil {
		return err
	}
	return p.Commit()
}

// Pending is a file written whole to a temporary file beside its path and
// not yet renamed into place: Commit or Abort it. Writing several files
// through Prepare before committing any keeps a set of outputs consistent
// (nothing is renamed unless every one was written).
type Pending struct {
	path, target, tmp string
}

// Prepare writes a file as AtomicWrite does, up to the rename.
func Prepare(path string, fill func(io.Writer) error) (_ *Pending, err error) {
	target := resolveLink(path)
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return nil, Errorf(path, "is a directory: name a file in it")
	}
	removeStaleTemps(target)
	f, err := createTracked(filepath.Dir(target), tempPrefix(target)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, userPath(err, path)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			untrack(tmp)
			err = userPath(err, path, tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return nil, err
	}
	if err = bw.Flush(); err != nil {
		return nil, err
	}
	if err = f.Chmod(0o666 &^ umask()); err != nil {
		return nil, err
	}
	if err = f.Sync(); err != nil {
		return nil, err
	}
	if err = f.Close(); err != nil {
		return nil, err
	}
	return &Pending{path: path, target: target, tmp: tmp}, nil
}

// Commit renames the file into place.
func (p *Pending) Commit() error {
	defer untrack(p.tmp)
	if err := os.Rename(p.tmp, p.target); err != nil {
		os.Remove(p.tmp)
		return userPath(err, p.path, p.tmp, p.target)
	}
	return nil
}

// CommitAll renames every file of a set into place in one step as far as
// the signals are concerned: one that arrives meanwhile ends the process
// only after the last rename (its handler waits for the lock held here),
// so a signal never leaves the set half renamed. When a rename fails, the
// files after it are removed (those before it stay in place) and its
// error is returned.
func CommitAll(ps []*Pending) error {
	temps.Lock()
	defer temps.Unlock()
	for i, p := range ps {
		err := os.Rename(p.tmp, p.target)
		untrackLocked(p.tmp)
		if err != nil {
			os.Remove(p.tmp)
			for _, q := range ps[i+1:] {
				os.Remove(q.tmp)
				untrackLocked(q.tmp)
			}
			return userPath(err, p.path, p.tmp, p.target)
		}
	}
	return nil
}

// Abort removes the temporary file.
func (p *Pending) Abort() {
	os.Remove(p.tmp)
	untrack(p.tmp)
}

// tempPrefix starts the names of the temporary files written for path:
// .NAME.tmp-PID-RANDOM, hidden beside it, with the writer's process id.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// removeStaleTemps removes the temporary files of path that a writer left
// when it was killed without a chance to clean up (kill -9, a crash): those
// whose process no longer exists. Files of live processes, other writers of
// the same path among them, are left alone.
func removeStaleTemps(path string) {
	prefix := tempPrefix(path)
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(prefix)+"*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processExists(pid) {
			continue
		}
		os.Remove(m)
	}
}

// globEscape quotes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resolveLink follows symbolic links at path to the file they name (which
// need not exist yet); path itself when it is no link.
func resolveLink(path string) string {
	for range 40 {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			return path
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return path
}

// userPath rewrites a file error about one of the temporary or resolved
// names into one about path, the name the user gave.
func userPath(err error, path string, internal ...string) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: "write", Path: path, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.PathError{Op: "write", Path: path, Err: le.Err}
	}
	msg := err.Error()
	for _, name := range internal {
		msg = strings.ReplaceAll(msg, name, path)
	}
	if msg != err.Error() {
		return fmt.Errorf("%s", msg)
	}
	return err
}

// Temporary files being written, removed if a signal ends the process,
// and the output directories made for them (MakeDirs), removed after the
// files when they are then empty.
var temps struct {
	sync.Mutex
	files map[string]bool
	dirs  map[*madeDirs]bool
	sig   chan os.Signal
}

// createTracked creates a temporary file (os.CreateTemp) that a signal
// ending the process removes. The signals are caught before the file
// exists, and the file is created and recorded under the lock that the
// signal's handler takes and keeps until the process exits: a signal
// arriving at any point leaves no file behind (one arriving between the
// creation and the record once did, when the handler was set up after).
func createTracked(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.files == nil {
		temps.files = map[string]bool{}
	}
	catchLocked()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		releaseLocked()
		return nil, err
	}
	temps.files[f.Name()] = true
	return f, nil
}

// catchLocked catches the signals, when nothing is tracked yet, with a
// handler that removes what is tracked and ends the process.
func catchLocked() {
	sigs := interrupt.Signals()
	if len(temps.files) > 0 || len(temps.dirs) > 0 || temps.sig != nil || len(sigs) == 0 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	temps.sig = ch
	go func() {
		sig, ok := <-ch
		if !ok {
			return
		}
		temps.Lock() // kept: no file is created after these are removed
		for f := range temps.files {
			os.Remove(f)
		}
		for made := range temps.dirs {
			removeEmpty(made.dirs)
		}
		code := 128 + 15
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}

// releaseLocked stops catching the signals when nothing is tracked.
func releaseLocked() {
	if len(temps.files) == 0 && len(temps.dirs) == 0 && temps.sig != nil {
		signal.Stop(temps.sig)
		close(temps.sig)
		temps.sig = nil
	}
}

func untrack(name string) {
	temps.Lock()
	defer temps.Unlock()
	untrackLocked(name)
}

// untrackLocked is untrack with temps locked.
func untrackLocked(name string) {
	if !temps.files[name] {
		return
	}
	delete(temps.files, name)
	releaseLocked()
}

// umask is the process's file mode creation mask.
func umask() os.FileMode {
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return os.FileMode(m)
				}
			}
		}
	}
	return 0o022
}

func writeArrowStream(w io.Writer, t *Table) error {
	rec := t.Record()
	defer rec.Release()
	iw := ipc.NewWriter(w, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
	if err := iw.Write(rec); err != nil {
		return err
	}
	return iw.Close()
}

func writeArrowFile(w io.Writer, t *Table) error {
	rec := t.Record()
	defer rec.Release()
	iw, err := ipc.NewFileWriter(w, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
	if err != nil {
		return err
	}
	if err := iw.Write(rec); err != nil {
		return err
	}
	return iw.Close()
}

// parquetRowGroup bounds the rows per row group, so that readers can stream
// large tables.
const parquetRowGroup = 1 << 20

func writeParquet(w io.Writer, t *Table) error {
	rec := t.Record()
	defer rec.Release()
	// Hide w's Close method: the Parquet writer closes a sink that has one,
	// and closing is the caller's business.
	return encodeParquet(struct{ io.Writer }{w}, rec, parquetProperties(t))
}

// parquetProperties are the writer's settings for t: Snappy, row groups
// of parquetRowGroup rows, and dictionary encoding except for the columns
// whose dictionary would overflow its page.
func parquetProperties(t *Table) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(parquetRowGroup),
		parquet.WithCreatedBy("optimus"),
	}
	// Each column's answer on its own goroutine: the counts of a large
	// table's mostly distinct columns are independent work.
	overflows := make([]bool, len(t.fields))
	forEachColumn(len(t.fields), func(i int) {
		overflows[i] = dictionaryOverflows(t.cols[i], parquet.DefaultDictionaryPageSizeLimit)
	})
	for i, f := range t.fields {
		if overflows[i] {
			opts = append(opts, parquet.WithDictionaryFor(f.Name, false))
		}
	}
	return parquet.NewWriterProperties(opts...)
}

// cellText is a value as CSV writes it; "" for null.
func cellText(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return ""
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(r)
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Float64:
		return FormatFloat(a.Value(r))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(r))
	}
	return a.ValueStr(r)
}
