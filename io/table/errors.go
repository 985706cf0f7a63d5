package table

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidInput marks errors caused by the input rather than by the
// machine: a command exits with status 2 on them. Error values of this
// package wrap it.
var ErrInvalidInput = errors.New("invalid input")

// InvalidInput marks err as caused by the input (errors.Is(_, ErrInvalidInput),
// exit 2) without changing its message: for readers of other formats (a
// simulator's workload, a trace) whose errors already say where.
func InvalidInput(err error) error {
	if err == nil {
		return nil
	}
	return invalidInput{err}
}

type invalidInput struct{ err error }

func (e invalidInput) Error() string   { return e.err.Error() }
func (e invalidInput) Unwrap() []error { return []error{ErrInvalidInput, e.err} }

// Error is a problem with an input table, located as precisely as possible.
type Error struct {
	Source string // file name, or "stdin"
	Column string // "" when the problem is not about one column
	Row    int    // 1-based data row, 0 when not about one row
	Line   int    // 1-based line in a CSV file, 0 when unknown
	Msg    string
	More   int // further problems found but not shown
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	b.WriteString(": ")
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q", e.Column)
	}
	if e.Row > 0 {
		if e.Column != "" {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "row %d", e.Row)
		if e.Line > 0 {
			fmt.Fprintf(&b, " (line %d)", e.Line)
		}
	}
	if e.Column != "" || e.Row > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.More > 0 {
		fmt.Fprintf(&b, " (and %d more problem", e.More)
		if e.More > 1 {
			b.WriteString("s")
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalidInput) true.
func (e *Error) Unwrap() error { return ErrInvalidInput }

// Errorf is an input error about a whole source.
func Errorf(source, format string, args ...any) *Error {
	return &Error{Source: source, Msg: fmt.Sprintf(format, args...)}
}

// problems collects validation errors and reports the first with a count of
// the rest, so that one line says where to look and how much is wrong.
type problems struct {
	first *Error
	n     int
}

func (p *problems) add(e *Error) {
	if p.first == nil {
		p.first = e
	}
	p.n++
}

func (p *problems) err() error {
	if p.first == nil {
		return nil
	}
	e := *p.first
	e.More = p.n - 1
	return &e
}
