// Package escape makes untrusted text (job, node and model names, file
// names, column names) safe to print to a terminal: the characters a
// terminal acts on rather than shows become visible escapes.
package escape

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Terminal returns s with every character a terminal would act on written
// as an escape, so that a name can neither send control sequences (ESC
// sequences that retitle the window or clear the screen, BEL, backspaces,
// carriage returns) nor reorder the text around it (bidi overrides and
// isolates):
//
//   - C0 controls and DEL: \a \b \t \n \v \f \r as in Go, the others \xNN
//     (ESC is \x1b);
//   - C1 controls (U+0080 to U+009F) and the bidi embeddings, overrides and
//     isolates U+202A to U+202E and U+2066 to U+2069: \uNNNN;
//   - bytes that are not UTF-8 (a lone 0x9b is CSI to an 8-bit terminal):
//     \xNN.
//
// Everything else, backslashes included, is kept as it is, so that text
// without such characters comes back unchanged (and unallocated).
func Terminal(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needs(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !needs(r, n) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		switch {
		case r == utf8.RuneError: // n == 1: a byte that is not UTF-8
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r < 0x80:
			if e, ok := short[r]; ok {
				b.WriteString(e)
			} else {
				b.WriteString(`\x`)
				b.WriteString(hex2(byte(r)))
			}
		default:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		}
		i += n
	}
	return b.String()
}

var short = map[rune]string{'\a': `\a`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// needs reports whether the rune r, n bytes long, is escaped.
func needs(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
