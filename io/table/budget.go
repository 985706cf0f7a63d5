package table

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
)

// The memory budget bounds what one input may decode to. An input whose
// decoded table would need more than the budget is refused before
// anything of that size is allocated, with a *BudgetError ("needs more
// than 4 GB to decode; raise --max-memory"): the Go runtime cannot
// recover from running out of memory, so a hostile or mistaken input
// must be measured first. What is measured, before any allocation of
// that size:
//   - Parquet: the rows of every row group, checked against the value
//     counts in the headers of its pages (a footer claiming more rows
//     than its pages hold is corrupt), times the width of each column's
//     values;
//   - Arrow IPC: the input itself, which holds every buffer (compressed
//     buffers are checked against what they can inflate to);
//   - CSV: the text, and the cells it splits into (three times the text
//     again);
//   - standard input: its bytes, read up to the budget and no further.
//
// The budget is, in order: SetMemoryBudget's (the root command's
// --max-memory flag), the Go runtime's soft memory limit (GOMEMLIMIT),
// or DefaultMemoryBudget, lowered to a third of the address space the process
// may map (ulimit -v) when that is smaller (the runtime reserves address
// space well beyond its heap).
var memoryBudget atomic.Int64

// DefaultMemoryBudget is the budget when neither --max-memory nor
// GOMEMLIMIT gives one: far above the largest table a cluster's
// scheduler reads (ten million loss points decode to about 250 MB), far
// below what a corrupt or hostile file can claim.
const DefaultMemoryBudget = 4 << 30

// SetMemoryBudget sets the memory budget in bytes (0: the default, from
// GOMEMLIMIT or DefaultMemoryBudget).
func SetMemoryBudget(n int64) { memoryBudget.Store(n) }

// MemoryBudget is the memory budget in bytes (see above).
func MemoryBudget() int64 {
	if n := memoryBudget.Load(); n > 0 {
		return n
	}
	if n := debug.SetMemoryLimit(-1); n > 0 && n < math.MaxInt64 {
		return n
	}
	n := int64(DefaultMemoryBudget)
	if as := addressSpaceLimit(); as > 0 && as/3 < n {
		n = as / 3
	}
	return n
}

// BudgetError is an input that needs more memory to decode than the
// budget allows. It is an input error (exit status 2): the command is
// refused, not crashed, and a larger budget lets it through.
type BudgetError struct {
	Source string
	Budget int64 // bytes
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s: needs more than %s to decode; raise --max-memory", e.Source, FormatBytes(e.Budget))
}

// Unwrap makes errors.Is(err, ErrInvalidInput) true.
func (e *BudgetError) Unwrap() error { return ErrInvalidInput }

// checkBudget refuses an input that needs need bytes to decode when that
// is more than the budget.
func checkBudget(source string, need int64) error {
	if b := MemoryBudget(); need > b || need < 0 {
		return &BudgetError{Source: source, Budget: b}
	}
	return nil
}

// FormatBytes writes a size as ParseBytes reads it: in GB (2^30 bytes)
// from 1 GB up, in MB below, in kB below that.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		g := strings.TrimRight(strconv.FormatFloat(float64(n)/(1<<30), 'f', 2, 64), "0")
		return strings.TrimSuffix(g, ".") + " GB"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(max(1, n>>10), 10) + " kB"
}

// ParseBytes reads a size: a number with an optional unit, B, k, M, G or
// T (powers of 1024, with or without B or iB: 512MB, 4GiB, 1.5G), no
// unit meaning bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a size: write a number and a unit, such as 512MB or 4GB", s)
	}
	scale := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[strings.ToLower(unit)]
	if scale == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q (use B, kB, MB, GB or TB)", s, unit)
	}
	n := f * scale
	if n < 1<<20 {
		return 0, fmt.Errorf("%q is out of range: give at least 1MB", s)
	}
	if n > 1<<62 {
		return 0, fmt.Errorf("%q is out of range: give at most %dTB", s, 1<<(62-40))
	}
	return int64(n), nil
}
