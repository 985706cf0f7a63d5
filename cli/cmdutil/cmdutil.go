// Package cmdutil holds what every optimus command shares: reading its input
// table, writing its output table, usage errors and exit codes.
package cmdutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // anything else: I/O failure, a bug
	ExitInvalid = 2 // bad usage or invalid input
)

// UsageError is a mistake in the command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// Args is a command's positional arguments, described for the error a
// wrong count gives: "metrics takes one argument, ROOT, the directory
// of the jobs' logs; got 2". what says what the arguments are.
func Args(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		count := map[int]string{1: "one argument", 2: "two arguments"}[n]
		if count == "" {
			count = fmt.Sprintf("%d arguments", n)
		}
		name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
		return Usagef("%s takes %s, %s; got %d", name, count, what, len(args))
	}
}

// ExitCode maps an error to the process exit status: 2 for usage errors and
// invalid input, 1 for anything else.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	var ie invalidInput
	if errors.As(err, &ue) || errors.Is(err, table.ErrInvalidInput) || errors.As(err, &ie) && ie.InvalidInput() {
		return ExitInvalid
	}
	return ExitFailure
}

// invalidInput is an error a library marks as caused by its caller's input
// (place.BlockError, say), without importing this package.
type invalidInput interface {
	error
	InvalidInput() bool
}

// ReadInput reads a command's main input table: from the file named by path,
// or from standard input when path is "" or "-". want says which table the
// command expects (nil: any).
func ReadInput(ios *iostreams.IOStreams, path string, want *schema.Table) (*table.Table, error) {
	if path == "" || path == "-" {
		if ios.IsStdinTTY() {
			kind := "a table"
			if want != nil {
				kind = "a " + want.Name + " table"
			}
			return nil, Usagef("no input: pipe %s in, or name a file with -i", kind)
		}
		t, err := table.Read(ios.In, "stdin", want)
		if err != nil {
			return nil, err
		}
		noteContent("input", t)
		return t, checkPair(t)
	}
	return readFile("input", path, want)
}

// readFile reads a table file and notes it among the command's inputs,
// with its content for the outputs' provenance.
func readFile(flag, path string, want *schema.Table) (*table.Table, error) {
	t, err := table.ReadFile(path, want)
	if err != nil {
		return nil, err
	}
	return noteRead(flag, path, t)
}

// noteRead notes a table read from a file among the command's inputs.
func noteRead(flag, path string, t *table.Table) (*table.Table, error) {
	noteInput(path, t.Name)
	noteContent(flag, t)
	if err := checkPair(t); err != nil {
		return nil, err
	}
	return t, nil
}

// MetaPair is the metadata key of the id that tables made together carry
// (the cluster and predictions of one `optimus datasets generate`): the
// inputs of one command must not carry different ones.
const MetaPair = "optimus.pair"

// SetPair stamps a pair id on a table.
func SetPair(t *table.Table, id string) {
	if t.Meta == nil {
		t.Meta = map[string]string{}
	}
	t.Meta[MetaPair] = id
}

// checkPair refuses an input whose pair id differs from that of an input
// read before by the same command.
func checkPair(t *table.Table) error {
	id := t.Meta[MetaPair]
	if id == "" {
		return nil
	}
	inputs.Lock()
	defer inputs.Unlock()
	for _, p := range inputs.pairs {
		if p.id != id {
			return &table.Error{Source: t.Source, Msg: fmt.Sprintf("was made by %q, but %s by %q: tables made together must be used together (regenerate both)", id, p.source, p.id)}
		}
	}
	inputs.pairs = append(inputs.pairs, pairOf{source: t.Source, id: id})
	return nil
}

type pairOf struct{ source, id string }

// WriteFiles writes tables to files (each format by its extension) so that
// either all appear or none: every file is written whole first, then all
// are renamed into place. The files are encoded at the same time; two
// paths naming one file are refused, as one table would silently replace
// the other.
func WriteFiles(paths []string, ts []*table.Table) error {
	stamped := make([]*table.Table, len(paths))
	for i, path := range paths {
		for j, q := range paths[:i] {
			if sameFile(path, q) {
				return Usagef("%s and %s are the same file: the %s and %s tables need a file each", q, path, ts[j].Name, ts[i].Name)
			}
		}
		t, err := table.Conform(ts[i])
		if err != nil {
			return err
		}
		if err := checkNotAnInput(path, t.Name); err != nil {
			return err
		}
		stamped[i] = Stamp(t)
	}
	pending := make([]*table.Pending, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() { pending[i], errs[i] = table.PrepareFile(path, stamped[i]) })
	}
	wg.Wait()
	// The first error by position, as when written one by one.
	if i := slices.IndexFunc(errs, func(e error) bool { return e != nil }); i >= 0 {
		for _, p := range pending {
			if p != nil {
				p.Abort()
			}
		}
		return errs[i]
	}
	return table.CommitAll(pending)
}

// WriteDir makes the output directory dir (table.MakeDirs) and writes the
// tables into it as a set (WriteFiles, paths in dir); when the write fails
// or is interrupted, a directory it made is removed again if still empty,
// so that a command that wrote nothing leaves nothing.
func WriteDir(dir string, paths []string, ts []*table.Table) error {
	done, err := table.MakeDirs(dir)
	if err != nil {
		return err
	}
	err = WriteFiles(paths, ts)
	done(err != nil)
	return err
}

// WarnLeftOver warns of the tables in dir named one of names (with any
// table extension) that this run did not write (paths): a directory a
// round writes into again holds its last round's files, and a table this
// round left out (snapshot or metrics without --jobs, another --format)
// would be read by the next steps as this round's.
func WarnLeftOver(ios *iostreams.IOStreams, dir string, paths []string, names ...string) {
	written := map[string]bool{}
	for _, p := range paths {
		written[filepath.Clean(p)] = true
	}
	for _, name := range names {
		for _, ext := range []string{".parquet", ".arrow", ".arrows", ".csv"} {
			p := filepath.Join(dir, name+ext)
			if written[p] {
				continue
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				Warnf(ios, "%s was not written by this run: it is an earlier run's, beside this run's tables (remove it, or write into an empty directory)", p)
			}
		}
	}
}

// sameFile reports whether two output paths name one file: the same path
// once cleaned, or, when both exist, the same file (through a link too).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// inputs lists the files the running command has read (Validate starts the
// list afresh), so that Write can refuse to replace one with its output.
var inputs struct {
	sync.Mutex
	files []inputFile
	pairs []pairOf
}

type inputFile struct {
	path, kind string
	info       os.FileInfo
}

func noteInput(path, kind string) {
	info, err := os.Stat(path)
	if err != nil {
		return
	}
	inputs.Lock()
	defer inputs.Unlock()
	inputs.files = append(inputs.files, inputFile{path: path, kind: kind, info: info})
}

// checkNotAnInput refuses an output path that is one of the command's
// input files (the same file by device and inode, whatever the name: a
// hard link, a symbolic link, ./x and x) holding another kind of table:
// writing there would silently replace the input. An input of the output's
// own kind may be replaced: place --current plan.parquet -o plan.parquet
// updates the running plan, and the new file is only renamed over it once
// written whole.
func checkNotAnInput(path, kind string) error {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	inputs.Lock()
	defer inputs.Unlock()
	for _, in := range inputs.files {
		if in.kind != kind && os.SameFile(info, in.info) && stillNames(in.path, info) {
			what := "the " + in.kind + " table"
			if in.kind == "" {
				what = "an input"
			}
			return Usagef("-o %s is the file of %s read from %s: writing the %s table there would replace it; choose another file", path, what, in.path, kind)
		}
	}
	return nil
}

// stillNames reports whether path still names the file info describes: an
// input deleted since it was read (by another job, or a test's cleanup) can
// have its inode reused by a new file, which is then no input at all.
func stillNames(path string, info os.FileInfo) bool {
	now, err := os.Stat(path)
	return err == nil && os.SameFile(now, info)
}

// ReadOptionalInput reads the main input like ReadInput, but returns nil
// when there is none: no -i, and standard input a terminal or empty (as
// under cron). Commands whose inputs may all come by flag use it.
func ReadOptionalInput(ios *iostreams.IOStreams, path string, want *schema.Table) (*table.Table, error) {
	if path != "" && path != "-" {
		return readFile("input", path, want)
	}
	if ios.IsStdinTTY() {
		return nil, nil
	}
	data, err := table.ReadAll(ios.In, "stdin")
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, nil
	}
	t, err := table.Decode(data, table.Sniff(data), "stdin", want)
	if err != nil {
		return nil, err
	}
	noteContent("input", t)
	return t, checkPair(t)
}

// ReadSide reads a side input named by a flag (the cluster, the models); it
// must be a file, since standard input carries the main input.
func ReadSide(flag, path string, want *schema.Table) (*table.Table, error) {
	if path == "" {
		return nil, Usagef("--%s is required: the %s table", flag, want.Name)
	}
	if path == "-" {
		return nil, Usagef("--%s: give a file; standard input carries the main input", flag)
	}
	return readFile(flag, path, want)
}

// Side is a side input of ReadInputAndSides: a file named by --Flag.
type Side struct {
	Flag, Path string
	Want       *schema.Table
	Optional   bool // no --Flag: no table (nil), not an error
}

// ReadInputAndSides reads the main input as ReadInput does, then each side
// input as ReadSide does, and returns the same tables and the same first
// error. When the main input is a regular file, the side files are read
// while it is: no stage before can still be writing them (in a pipe such
// as generate | solve, the side file is complete only once standard input
// ends, so then they are read after it).
func ReadInputAndSides(ios *iostreams.IOStreams, path string, want *schema.Table, sides ...Side) (*table.Table, []*table.Table, error) {
	out := make([]*table.Table, len(sides))
	read := make([]*table.Table, len(sides))
	readErr := make([]error, len(sides))
	var wg sync.WaitGroup
	if info, err := os.Stat(path); path != "" && path != "-" && err == nil && info.Mode().IsRegular() {
		for i, s := range sides {
			if s.Path != "" && s.Path != "-" {
				wg.Go(func() { read[i], readErr[i] = table.ReadFile(s.Path, s.Want) })
			}
		}
	}
	t, err := ReadInput(ios, path, want)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	for i, s := range sides {
		switch {
		case s.Path == "" && s.Optional:
			continue
		case read[i] == nil && readErr[i] == nil: // not read beside the main input
			out[i], err = ReadSide(s.Flag, s.Path, s.Want)
		case readErr[i] != nil:
			err = readErr[i]
		default:
			out[i], err = noteRead(s.Flag, s.Path, read[i])
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return t, out, nil
}

// OutputOptions are the flags that say where a command's table goes.
type OutputOptions struct {
	Path   string // -o: a file, whose extension names the format
	Format string // --format: the format of standard output
	// Wide and Columns choose the columns printed at a terminal (text
	// output only: files and pipes always carry the whole table).
	Wide    bool
	Columns []string
	// MadeDir is a directory the command creates before it writes -o
	// (simulate's --dir): -o may name a file in it before it exists.
	MadeDir string
	// device is set by Validate when -o names an existing file that is
	// neither regular nor a directory (/dev/null, /dev/stdout, a FIFO, a
	// shell's >(...)): written straight through as standard output is,
	// in --format's format.
	device bool
}

// IsFile reports whether -o names a file, written atomically (not
// standard output, nor a device or pipe given by name). Valid after
// Validate.
func (o *OutputOptions) IsFile() bool { return o.Path != "" && o.Path != "-" && !o.device }

// AddOutputFlags registers -o/--output and --format.
func (o *OutputOptions) AddOutputFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.Path, "output", "o", "",
		"write the table to `FILE` (.parquet, .arrow, .arrows or .csv; written atomically) instead of standard output")
	cmd.Flags().StringVar(&o.Format, "format", "",
		"format of standard output: arrows (Arrow IPC stream, the default when piped), arrow, parquet, csv or text (the default at a terminal)")
	cmd.Flags().BoolVar(&o.Wide, "wide", false, "at a terminal (text output), print every column, not only the table's main ones")
	if cmd.Flags().Lookup("columns") == nil {
		cmd.Flags().StringSliceVar(&o.Columns, "columns", nil, "at a terminal (text output), print these `COLUMNS` (comma-separated, in this order)")
	}
}

// formatNames maps --format values to formats.
var formatNames = map[string]table.Format{
	"arrows": table.ArrowStream, "arrow": table.ArrowFile, "parquet": table.Parquet, "csv": table.CSV,
}

// Validate checks the output flags before any work is done. It also starts
// the command's list of inputs (see checkNotAnInput).
func (o *OutputOptions) Validate() error {
	inputs.Lock()
	inputs.files, inputs.pairs = nil, nil
	inputs.Unlock()
	if err := CheckColumnList("--columns", o.Columns); err != nil {
		return err
	}
	if o.Format != "" && o.Format != "text" {
		if _, ok := formatNames[o.Format]; !ok {
			return Usagef("--format %q: use arrows, arrow, parquet, csv or text", o.Format)
		}
	}
	o.device = false
	if o.Path != "" && o.Path != "-" {
		fi, err := os.Stat(o.Path)
		if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			o.device = true
			return nil
		}
		if o.Format != "" {
			return Usagef("--format applies to standard output, or to -o naming a device or a pipe (/dev/null, a FIFO); with -o FILE the file's extension names the format")
		}
		if err == nil && fi.IsDir() {
			return Usagef("-o %s is a directory: name a file in it (.parquet, .arrow, .arrows or .csv)", o.Path)
		}
		if _, err := table.FormatOf(o.Path); err != nil {
			return err
		}
		return checkOutputFileIn("-o", o.Path, o.MadeDir)
	}
	return nil
}

// CheckColumnList refuses a list of columns (--columns, convert's -c) that
// names a column twice: a table with two columns of one name is one that
// no reader (optimus' own among them) takes back.
func CheckColumnList(flag string, names []string) error {
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return Usagef("%s %s: column %q is named twice", flag, strings.Join(names, ","), n)
		}
	}
	return nil
}

// Write writes t where the options say: a file (atomically), or standard
// output as an Arrow IPC stream when piped and as aligned text at a terminal.
func (o *OutputOptions) Write(ios *iostreams.IOStreams, t *table.Table) error {
	t, err := table.Conform(t)
	if err != nil {
		return err
	}
	if o.IsFile() {
		if err := checkNotAnInput(o.Path, t.Name); err != nil {
			return err
		}
		return table.WriteFile(o.Path, Stamp(t))
	}
	if o.device {
		f, err := os.OpenFile(o.Path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := o.writeStream(f, false, t); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return o.writeStream(ios.Out, ios.IsStdoutTTY(), t)
}

// writeStream writes t to a stream: aligned text at a terminal (or with
// --format text), else --format's format, an Arrow IPC stream by default.
func (o *OutputOptions) writeStream(out io.Writer, tty bool, t *table.Table) error {
	if o.Format == "text" || o.Format == "" && tty {
		shown, note, err := o.forTerminal(t)
		if err != nil {
			return err
		}
		if err := table.WritePretty(out, shown); err != nil {
			return err
		}
		if note != "" {
			_, err = fmt.Fprintln(out, note)
		}
		return err
	}
	// The Arrow writer writes each buffer of each column on its own: one
	// system call each on an unbuffered pipe.
	w := bufio.NewWriterSize(out, 1<<20)
	format := table.ArrowStream
	if o.Format != "" {
		format = formatNames[o.Format]
	}
	if err := table.Write(w, format, Stamp(t)); err != nil {
		return err
	}
	return w.Flush()
}

// InputFlag registers -i/--input.
func InputFlag(cmd *cobra.Command, p *string, what string) {
	cmd.Flags().StringVarP(p, "input", "i", "", "read the "+what+" table from `FILE` (any format) instead of standard input")
}

// Progress reports progress of long work on standard error when it is a
// terminal, and stays silent otherwise. Call it with done == total to end
// the line.
func Progress(ios *iostreams.IOStreams, label string) func(done, total int) {
	if !ios.IsStderrTTY() || ios.Verbosity() == iostreams.Quiet {
		return func(int, int) {}
	}
	last := -1
	return func(done, total int) {
		pct := 100
		if total > 0 {
			pct = done * 100 / total
		}
		if pct == last && done != total {
			return
		}
		last = pct
		fmt.Fprintf(ios.ErrOut, "\r%s %3d%% (%d/%d)", label, pct, done, total)
		if done >= total {
			io.WriteString(ios.ErrOut, "\n")
		}
	}
}
