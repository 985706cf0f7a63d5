package escape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"resnet50-a", "resnet50-a"},
		{"", ""},
		{`back\slash "quoted" ünïcødé 日本`, `back\slash "quoted" ünïcødé 日本`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\a`},
		{"clear\x1b[2J\x1b[H", `clear\x1b[2J\x1b[H`},
		{"back\b\b\bspace", `back\b\b\bspace`},
		{"cr\rnl\ntab\tvt\vff\f", `cr\rnl\ntab\tvt\vff\f`},
		{"nul\x00del\x7f\x01\x1f", `nul\x00del\x7f\x01\x1f`},
		{"c1\u0085\u009b[31m", `c1\u0085\u009b[31m`},
		{"gpj.\u202eexe", `gpj.\u202eexe`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"raw\x9bbyte\xff", `raw\x9bbyte\xff`},
		{"\u2028\u200b", "\u2028\u200b"}, // separators and zero-width: shown as they are
	} {
		if got := Terminal(c.in); got != c.want {
			t.Errorf("Terminal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Whatever the input, the output holds no character a terminal acts on,
// and is valid UTF-8.
func FuzzTerminal(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\u202e", "\xff\x9b", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Terminal(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Terminal(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if needs(r, utf8.RuneLen(r)) {
				t.Fatalf("Terminal(%q) = %q holds %U", s, out, r)
			}
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return needs(r, utf8.RuneLen(r)) }) && utf8.ValidString(s) && out != s {
			t.Fatalf("Terminal(%q) = %q: changed safe text", s, out)
		}
	})
}
