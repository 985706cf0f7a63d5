package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"path"
	"strings"
	"time"

	"github.com/optimus-sched/optimus/registry"
)

// Point is one scalar a job logged.
type Point struct {
	// Step is the global training step, or -1 when the log counts epochs
	// only (Keras' CSVLogger, MXNet's epoch lines): then the step is
	// Epoch x epoch_steps + Batch, resolved per job (see Resolve).
	Step  int64
	Epoch int64 // epochs completed; used only when Step is -1
	// Wall is when it was logged, in seconds since the Unix epoch; NaN
	// when the log carries no time.
	Wall  float64
	Value float64
	Batch int32 // batches into the current epoch; used only when Step is -1
}

// Emit receives the scalars of a file, by tag, in file order.
type Emit func(tag string, p Point)

// Warn receives a problem with one record or line that was skipped; the
// rest of the file is read.
type Warn func(e *Error)

// Error is a problem with a log file, located by byte offset (records of
// an event file) or line (text logs).
type Error struct {
	File   string
	Offset int64 // byte offset of the record, or -1
	Line   int   // 1-based line, or 0
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s: line %d: %s", e.File, e.Line, e.Msg)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: record at offset %d: %s", e.File, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// InvalidInput marks the error as caused by the input (exit status 2).
func (e *Error) InvalidInput() bool { return true }

func fileError(file string, format string, args ...any) *Error {
	return &Error{File: file, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// FileReader reads one whole file of its format; like a LineReader it
// keeps no state between files.
type FileReader interface {
	// ReadFile reads r, which holds size bytes (the file's size when it
	// was opened: what a writer appends later is read next time), calls
	// emit for every scalar and warn for every record skipped. It returns
	// an *Error when the file is unusable.
	ReadFile(name string, r io.Reader, size int64, emit Emit, warn Warn) error
}

// LineReader reads one line of a text log. Several line readers share one
// pass over a file (an MXNet log interleaved with MLPerf lines). Readers
// are shared by the goroutines that read jobs at the same time: they keep
// no state, and the tags they emit may point into the line.
type LineReader interface {
	// ReadLine parses a line (without its newline). It reports whether
	// the line was one of its format (whether or not it held a scalar); an
	// error is about the line only, which is skipped and counted.
	ReadLine(line []byte, emit Emit) (bool, error)
}

// Option is a setting of a source, given on the command line as
// --<source>-<name>.
type Option struct {
	Name    string
	Doc     string
	Default string
}

// Source is one format of training log.
type Source struct {
	Name  string
	Short string // one line, for lists and help
	Long  string // what is read, and how steps and times are found
	// Files are the patterns (path.Match, comma-separated) of the base
	// names of the files it reads; --<source>-files replaces them.
	Files string
	// Explicit sources are read only when one of their options is given
	// (the user's regular expression), never by default.
	Explicit bool
	Options  []Option
	// Collects is true for a source whose reader is a Collector: it
	// fetches logs into the root rather than reading a format, so the text
	// sources read what it fetched even when --source names it alone.
	Collects bool
	// New returns a FileReader, a LineReader or a Collector for the
	// options (every option present, defaults filled in); an error is a
	// usage mistake.
	New func(opts map[string]string) (any, error)
}

// Collector fetches logs that are not files yet (a pod's log through the
// Kubernetes API) into files under the root, before the root is read. It
// keeps what it fetched there: the files are its state between runs.
type Collector interface {
	// Collect appends what is new since the last run to the files it keeps
	// under root. warn is told of every line it skipped and of every log
	// it could not read this time; an error means the run cannot go on.
	Collect(ctx context.Context, root string, warn Warn) error
}

// LockWaiter is a Collector that says how long a run waits for another
// run collecting into the same root (one collects at a time: metricscmd
// locks the root), and which flag sets it; others wait 30 s.
type LockWaiter interface {
	LockWait() (wait time.Duration, flag string)
}

// PodLogSuffix ends the name of a file a Collector keeps: each of its lines
// is the time the line was logged (RFC 3339, as the kubelet stamps it), a
// space and the line. Every enabled line reader reads it, and a point
// without a time of its own gets the line's.
const PodLogSuffix = ".podlog"

var sources = registry.New[*Source]("metric source")

// register adds a source; each source's file calls it from init.
func register(s *Source) {
	sources.Add(s.Name, 0, s)
}

// Register adds a source from another package: one whose dependencies the
// metrics package does without (the kubernetes source and client-go).
func Register(s *Source) { register(s) }

// Sources lists the registered sources by name.
func Sources() []*Source { return sources.List() }

// Lookup returns the source called name, or nil.
func Lookup(name string) *Source {
	s, _ := sources.Lookup(name)
	return s
}

// Names lists the sources' names, sorted.
func Names() []string { return sources.Names() }

// Reader returns the source's reader for opts (missing options take their
// defaults; unknown ones are an error).
func (s *Source) Reader(opts map[string]string) (any, error) {
	full := map[string]string{}
	for _, o := range s.Options {
		full[o.Name] = o.Default
	}
	for k, v := range opts {
		if _, ok := full[k]; !ok {
			return nil, fmt.Errorf("source %s has no option %q", s.Name, k)
		}
		full[k] = v
	}
	return s.New(full)
}

// MatchFiles reports whether a base name matches one of the
// comma-separated patterns.
func MatchFiles(patterns, base string) bool {
	for _, p := range strings.Split(patterns, ",") {
		if ok, _ := path.Match(strings.TrimSpace(p), base); ok {
			return true
		}
	}
	return false
}

// CheckPatterns says whether comma-separated patterns are well formed.
func CheckPatterns(patterns string) error {
	for _, p := range strings.Split(patterns, ",") {
		if _, err := path.Match(strings.TrimSpace(p), ""); err != nil {
			return fmt.Errorf("pattern %q: %v", p, err)
		}
	}
	return nil
}

var nan = math.NaN()

// validTag reports whether a tag may name a metric: valid UTF-8 without
// control characters (tags reach terminals and flags).
func validTag(tag string) bool {
	if tag == "" || !isUTF8(tag) {
		return false
	}
	return !strings.ContainsFunc(tag, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
