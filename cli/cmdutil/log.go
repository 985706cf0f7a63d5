package cmdutil

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/escape"
)

// What a command says on standard error besides its errors goes through
// log/slog at one of three levels, each line prefixed "optimus: " like the
// errors (and a warning "optimus: warning: "):
//
//   - Warnf (slog.LevelWarn): something the user should know about the
//     result (points dropped, nodes left out); hidden by --quiet;
//   - Notef (slog.LevelInfo): a result printed on standard error (eval's
//     coverage); hidden by --quiet;
//   - Summaryf (slog.LevelDebug): what a step decided (solve's plan, place's
//     placement, files written); shown with --verbose or when standard error
//     is a terminal, never with --quiet.
//
// A cron job that runs optimus with --quiet is mailed its errors only.
//
// Messages quote names from the tables, which are untrusted: a line is
// written through escape.Terminal, so that control and bidi characters in
// a name show as escapes and every message stays one line.

// Warnf logs a warning.
func Warnf(ios *iostreams.IOStreams, format string, args ...any) {
	logf(ios, slog.LevelWarn, format, args...)
}

// Notef logs a result worth reading.
func Notef(ios *iostreams.IOStreams, format string, args ...any) {
	logf(ios, slog.LevelInfo, format, args...)
}

// Summaryf logs what a step decided.
func Summaryf(ios *iostreams.IOStreams, format string, args ...any) {
	logf(ios, slog.LevelDebug, format, args...)
}

func logf(ios *iostreams.IOStreams, level slog.Level, format string, args ...any) {
	l := slog.New(&lineHandler{ios: ios})
	ctx := context.Background()
	if l.Enabled(ctx, level) {
		l.Log(ctx, level, fmt.Sprintf(format, args...))
	}
}

// lineHandler writes a record as one line, "optimus: " and its message,
// and its attributes as key=value.
type lineHandler struct {
	ios   *iostreams.IOStreams
	attrs []slog.Attr
}

func (h *lineHandler) Enabled(_ context.Context, level slog.Level) bool {
	switch h.ios.Verbosity() {
	case iostreams.Quiet:
		return level >= slog.LevelError
	case iostreams.Verbose:
		return true
	}
	return level >= slog.LevelInfo || h.ios.IsStderrTTY()
}

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("optimus: ")
	if r.Level >= slog.LevelWarn {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	_, err := h.ios.ErrOut.Write([]byte(escape.Terminal(b.String()) + "\n"))
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &lineHandler{ios: h.ios, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }

// Num writes a number for a person: whole numbers and numbers of 1000 or
// more as whole numbers, others with four significant digits; never in
// exponent form between 1e-4 and 1e15.
func Num(x float64) string {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || a >= 1e15 || a < 1e-4 && a != 0:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case x == math.Trunc(x) || a >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	decimals := 3 - int(math.Floor(math.Log10(a)))
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
