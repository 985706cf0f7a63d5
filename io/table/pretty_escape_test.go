package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// A text table writes the control and bidi characters of names and headers
// as escapes: no ESC, BEL, backspace, carriage return, newline or bidi
// override reaches the terminal, and the columns stay aligned.
func TestPrettyEscapesNames(t *testing.T) {
	csv := "node,gpu\n" +
		"\"\x1b]0;pwned\x07title\",4\n" +
		"\"clear\x1b[2J\x1b[H\",4\n" +
		"\"back\b\b\bspace\",4\n" +
		"\"gpj.\u202eexe\",4\n" +
		"\"two\nlines\r\",4\n" +
		"\"c1\u009b31m\",4\n" +
		"plain,4\n"
	tb, err := Decode([]byte(csv), CSV, "cluster.csv", schema.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePretty(&buf, tb); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"\x1b", "\x07", "\b", "\r", "\u202e", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the table holds %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{`\x1b]0;pwned\atitle`, `clear\x1b[2J\x1b[H`, `back\b\b\bspace`, `gpj.\u202eexe`, `two\nlines\r`, `c1\u009b31m`} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %s:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2+7+1 {
		t.Fatalf("%d lines, want a header, a rule, 7 rows and a footer:\n%s", len(lines), out)
	}
	// gpu is right-aligned: every row ends at the same column.
	for _, l := range lines[:9] {
		if len([]rune(l)) != len([]rune(lines[0])) {
			t.Errorf("misaligned row %q (header %q)", l, lines[0])
		}
	}
}
