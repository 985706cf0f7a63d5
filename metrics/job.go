package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// Sample is one point of a job's timeline: a scalar, with where it came
// from.
type Sample struct {
	Point
	file int32 // index of the file in JobLogs.Files
}

// Series are a job's points of one tag.
type Series struct {
	Tag     string
	Samples []Sample // the points unless they are in col
	col     *column  // the points while colOn (see column)
	colOn   bool
}

// Points returns the series' points as Samples.
func (s *Series) Points() []Sample {
	if s.colOn {
		return s.col.spill(nil)
	}
	return s.Samples
}

// Len is the number of points.
func (s *Series) Len() int {
	if s.colOn {
		return s.col.len()
	}
	return len(s.Samples)
}

// view is the series' points as Latest would keep them when they are in
// the column (already in order), else as logged.
func (s *Series) view() view {
	if s.colOn {
		return view{c: s.col}
	}
	return view{s: s.Samples}
}

// JobRead is what was read of one job.
type JobRead struct {
	Job    string
	Files  []LogFile
	Series []Series // sorted by tag
	// Skipped counts records and lines skipped (each also told to warn).
	Skipped int
	spare   []Series // reusable buffers this job did not need (Release)
}

// ReadJob reads every file of a job with the readers that read it. A text
// file is read once, by all its line readers at the same time. warn is
// told of every record or line skipped; an unusable file is an error.
func ReadJob(jl JobLogs, readers []Reader, warn Warn) (*JobRead, error) {
	byTag := map[string]int{}
	jr := &JobRead{Job: jl.Job, Files: jl.Files}
	var spare []Series
	if p, ok := spareSeries.Get().(*[]Series); ok {
		spare = *p
	}
	for i, f := range jl.Files {
		fi := int32(i)
		// The file's own tags (before its prefix) and their series, so
		// that a record of a tag seen before costs a lookup, not a copy.
		type seen struct {
			raw    string
			series int
		}
		var last seen
		var cur *Series // jr.Series[last.series]; nil before the first point
		byRaw := map[string]seen{}
		lookup := func(tag string) {
			e, ok := byRaw[tag]
			if !ok {
				// A reader's tag may point into its buffer: keep copies.
				e.raw = strings.Clone(tag)
				full := e.raw
				if f.Prefix != "" {
					full = f.Prefix + e.raw
				}
				if e.series, ok = byTag[full]; !ok {
					e.series = len(jr.Series)
					byTag[full] = e.series
					var samples []Sample
					var col *column
					if e.series < len(spare) {
						samples = spare[e.series].Samples[:0]
						col = spare[e.series].col
					}
					if col == nil {
						col = new(column)
					}
					col.reset()
					jr.Series = append(jr.Series, Series{Tag: full, Samples: samples, col: col, colOn: !columnsOff})
				}
				byRaw[e.raw] = e
			}
			// Only lookup grows jr.Series: cur stays valid until the next.
			last, cur = e, &jr.Series[e.series]
		}
		emit := func(tag string, p Point) {
			if cur == nil || tag != last.raw {
				lookup(tag)
			}
			s := cur
			if s.colOn {
				if s.col.add(p, fi) {
					return
				}
				// Out of the column's order: the general path from here.
				s.Samples = s.col.spill(s.Samples[:0])
				s.colOn = false
			}
			s.Samples = append(s.Samples, Sample{Point: p, file: fi})
		}
		count := func(e *Error) {
			jr.Skipped++
			warn(e)
		}
		if err := readFile(f.Path, readers, emit, count); err != nil {
			return nil, err
		}
	}
	if len(spare) > len(jr.Series) {
		jr.spare = spare[len(jr.Series):]
	}
	sort.Slice(jr.Series, func(i, j int) bool { return jr.Series[i].Tag < jr.Series[j].Tag })
	return jr, nil
}

// spareSeries holds the sample buffers of jobs already reduced (Release),
// so that reading thousands of jobs one after another grows them once
// rather than once per job.
var spareSeries sync.Pool

// Release hands the job's samples back for the next ReadJob to reuse:
// jr.Series is empty afterwards. Call it once nothing needs the samples
// any more (a Result of Reduce keeps copies of what it uses).
func (jr *JobRead) Release() {
	series := append(jr.Series, jr.spare...)
	jr.Series, jr.spare = nil, nil
	if len(series) == 0 {
		return
	}
	for i := range series {
		series[i].Tag = ""
		series[i].colOn = false
	}
	spareSeries.Put(&series)
}

// readFile reads one file with the readers whose patterns match it: the
// first file reader, or else every line reader in one pass.
func readFile(path string, readers []Reader, emit Emit, warn Warn) error {
	base := baseName(path)
	var lines []LineReader
	var file FileReader
	for _, r := range readers {
		if !matchLog(r.Files, base) {
			continue
		}
		switch rd := r.Reader.(type) {
		case FileReader:
			if file == nil {
				file = rd
			}
		case LineReader:
			lines = append(lines, rd)
		}
	}
	podLog := strings.HasSuffix(base, PodLogSuffix)
	if podLog {
		// A collector's file: any format a pod prints, so every line
		// reader, and no file reader.
		file, lines = nil, nil
		for _, r := range readers {
			if lr, ok := r.Reader.(LineReader); ok {
				lines = append(lines, lr)
			}
		}
	}
	if file == nil && lines == nil {
		return nil
	}
	f, err := openLog(path)
	if err != nil {
		return fileError(path, "%v", err)
	}
	defer f.close()
	// The size when opened: what a writer appends meanwhile is read next
	// time, so that a run reads a consistent prefix of every file.
	size, err := f.size()
	if err != nil {
		return fileError(path, "%v", err)
	}
	if file != nil {
		return wrapIO(path, file.ReadFile(path, f, size, emit, warn))
	}
	return wrapIO(path, scanLines(path, f, size, warn, func(line []byte, no int) error {
		lineEmit := emit
		if podLog {
			stamp, rest, err := SplitStamp(line)
			if err != nil {
				return &Error{File: path, Offset: -1, Line: no, Msg: err.Error() + " (not a file the kubernetes source wrote?)"}
			}
			line = rest
			lineEmit = func(tag string, p Point) {
				if math.IsNaN(p.Wall) {
					p.Wall = stamp
				}
				emit(tag, p)
			}
		}
		for _, lr := range lines {
			ok, err := lr.ReadLine(line, lineEmit)
			if err != nil {
				warn(&Error{File: path, Line: no, Msg: err.Error() + ": line skipped"})
				return nil
			}
			if ok {
				return nil
			}
		}
		return nil
	}))
}

func wrapIO(path string, err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if os.IsPathSeparator(p[i]) {
			return p[i+1:]
		}
	}
	return p
}

// Resolve gives every point its step: points that count epochs (Step -1)
// get Epoch x epochSteps + Batch. It is an error naming the file when a
// job logs epochs and epochSteps is unknown (0).
func (jr *JobRead) Resolve(epochSteps int64) error {
	for si := range jr.Series {
		s := jr.Series[si].Samples
		for i := range s {
			if s[i].Step >= 0 {
				continue
			}
			if epochSteps <= 0 {
				return fileError(jr.Files[s[i].file].Path, "job %q logs %s by epoch, not by step: give its epoch_steps (--jobs, or --epoch-steps)", jr.Job, quoteTag(jr.Series[si].Tag))
			}
			if s[i].Epoch > math.MaxInt64/epochSteps-1 {
				return fileError(jr.Files[s[i].file].Path, "job %q: epoch %d is too large", jr.Job, s[i].Epoch)
			}
			s[i].Step = s[i].Epoch*epochSteps + int64(s[i].Batch)
		}
	}
	return nil
}

func quoteTag(tag string) string { return fmt.Sprintf("%q", tag) }

// ordered returns a series' samples in the order they were logged: by wall
// time when every sample has one (several files of one run interleave),
// else as read (files oldest first).
func ordered(s []Sample) []Sample {
	inOrder := true
	for i, x := range s {
		if math.IsNaN(x.Wall) {
			return s
		}
		if i > 0 && x.Wall < s[i-1].Wall {
			inOrder = false
		}
	}
	if inOrder {
		return s // the usual case: one file, or files one after another
	}
	out := append([]Sample(nil), s...)
	// Stable: points logged at the same time keep the order they were read.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Wall < out[j].Wall })
	return out
}

// Latest returns a series' points as the job last trained them: in logging
// order, where the same step logged again replaces the point before, and a
// step below the one before (a restart from a checkpoint) supersedes every
// earlier point at that step or after it. It also returns how many points
// were superseded, and how many restarts there were. kept may share s's
// memory.
func Latest(s []Sample) (kept []Sample, superseded, restarts int) {
	s = ordered(s)
	// The usual case, steps increasing throughout, needs no copy.
	first := len(s)
	for i := 1; i < len(s); i++ {
		if s[i].Step <= s[i-1].Step {
			first = i
			break
		}
	}
	if first == len(s) {
		return s, 0, 0
	}
	kept = append(make([]Sample, 0, len(s)), s[:first]...)
	for _, x := range s[first:] {
		if n := len(kept); n > 0 && x.Step <= kept[n-1].Step {
			if x.Step < kept[n-1].Step {
				restarts++
			}
			for n > 0 && kept[n-1].Step >= x.Step {
				n--
				superseded++
			}
			kept = kept[:n]
		}
		kept = append(kept, x)
	}
	return kept, superseded, restarts
}

// SplitStamp splits a line of a collector's file into the time it was
// logged (seconds since the Unix epoch) and the line as the job printed
// it.
func SplitStamp(line []byte) (float64, []byte, error) {
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		i = len(line)
	}
	t, err := time.Parse(time.RFC3339Nano, string(line[:i]))
	if err != nil {
		return 0, nil, fmt.Errorf("the line does not start with an RFC 3339 time")
	}
	rest := line[i:]
	if len(rest) > 0 {
		rest = rest[1:]
	}
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9, rest, nil
}
