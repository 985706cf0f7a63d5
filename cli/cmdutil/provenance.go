package cmdutil

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// Provenance: every table a command writes carries in its metadata the
// optimus version, the command line and a run id, so that a notebook that
// concatenates a month of cron outputs can tell runs apart and trace each
// file to what made it. Identical inputs must still give identical bytes,
// through a file or a pipe, from any folder: so the command line names each
// input table by its content (@ and 16 hex digits of the SHA-256 of its
// Arrow IPC stream, which is the same however it was read), not by its path,
// and leaves out the flags that only say where output goes or how it is
// shown. The run id is derived from that command line.
const (
	MetaVersion = schema.MetaOptimus
	MetaCommand = schema.MetaCommand
	MetaRunID   = schema.MetaRunID
)

// notProvenance are the flags that change no table's content.
var notProvenance = map[string]bool{
	"output": true, "dir": true, "format": true, "parallel": true, "quiet": true, "verbose": true, "wide": true, "help": true,
}

var run struct {
	sync.Mutex
	version, path string
	args          []string
	flags         map[string]string
	contents      map[string]func() string // flag -> content digest of the table it read ("" if none)
}

// StartCommand records the command line of the command about to run (the
// root command calls it before every command).
func StartCommand(version string, c *cobra.Command, args []string) {
	run.Lock()
	defer run.Unlock()
	run.version, run.path, run.args = version, c.CommandPath(), slices.Clone(args)
	run.flags, run.contents = map[string]string{}, map[string]func() string{}
	c.Flags().Visit(func(f *pflag.Flag) {
		if !notProvenance[f.Name] {
			run.flags[f.Name] = f.Value.String()
		}
	})
}

// noteContent records the content of an input table read by flag ("input"
// for the main input, by -i or standard input). The digest is computed
// while the command works (it needs a pass over the whole table) and
// waited for when an output is stamped.
func noteContent(flag string, t *table.Table) {
	// The content only: not the provenance of whatever wrote the table
	// (the same table converted, or piped instead of written, is the same
	// input).
	c := t.Clone()
	for _, k := range []string{MetaVersion, MetaCommand, MetaRunID} {
		delete(c.Meta, k)
	}
	digest := make(chan string, 1)
	go func() {
		h := sha256.New()
		if err := table.WriteStream(h, c); err != nil {
			digest <- ""
			return
		}
		digest <- "@" + hex.EncodeToString(h.Sum(nil))[:16]
	}()
	run.Lock()
	defer run.Unlock()
	if run.contents == nil {
		run.contents = map[string]func() string{}
	}
	run.contents[flag] = sync.OnceValue(func() string { return <-digest })
}

// commandLine is the recorded command line, inputs named by content.
func commandLine() string {
	run.Lock()
	defer run.Unlock()
	vals := maps.Clone(run.flags)
	if vals == nil {
		vals = map[string]string{}
	}
	for flag, digest := range run.contents {
		if d := digest(); d != "" {
			vals[flag] = d
		}
	}
	var b strings.Builder
	b.WriteString(run.path)
	if run.path == "" {
		b.WriteString("optimus")
	}
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		b.WriteString(" --" + name + "=" + vals[name])
	}
	for _, a := range run.args {
		b.WriteString(" " + a)
	}
	return b.String()
}

// Stamp returns t with the provenance of the running command in its
// metadata (t itself is not changed).
func Stamp(t *table.Table) *table.Table {
	cmd := commandLine()
	sum := sha256.Sum256([]byte(cmd))
	out := *t
	out.Meta = maps.Clone(t.Meta)
	if out.Meta == nil {
		out.Meta = map[string]string{}
	}
	run.Lock()
	version := run.version
	run.Unlock()
	out.Meta[MetaVersion] = version
	out.Meta[MetaCommand] = cmd
	out.Meta[MetaRunID] = hex.EncodeToString(sum[:])[:16]
	return &out
}
