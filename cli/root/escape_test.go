package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Names reach the terminal escaped: convert --format text prints a node
// named with ESC sequences, BEL, backspaces and a bidi override as
// escapes, and an error naming a file or a job does the same, on one line.
func TestTextAndErrorsEscapeNames(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "cluster.csv")
	csv := "node,gpu,cpu\n\"\x1b]0;pwned\x07\",4,16\n\"clear\x1b[2J\x1b[H\",4,16\n\"back\b\bspace\",4,16\n\"gpj.\u202eexe\",4,16\n"
	if err := os.WriteFile(cluster, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := []string{"\x1b", "\x07", "\b", "\u202e"}
	code, out, stderr := run(t, nil, "convert", "-i", cluster, "--format", "text")
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	for _, bad := range raw {
		if strings.Contains(string(out), bad) {
			t.Errorf("convert --format text printed %q raw:\n%s", bad, out)
		}
	}
	for _, want := range []string{`\x1b]0;pwned\a`, `clear\x1b[2J\x1b[H`, `back\b\bspace`, `gpj.\u202eexe`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("convert --format text lacks %s:\n%s", want, out)
		}
	}
	for _, args := range [][]string{
		{"convert", "-i", filepath.Join(dir, "no\x1b[2Jsuch\u202e.csv"), "--format", "text"},
		{"chart", "loss", "-i", cluster, "-o", filepath.Join(dir, "x.html")},
		{"chart", "plan", "-i", cluster, "--job", "j\x1b[2J\u202e", "-o", filepath.Join(dir, "y.html")},
	} {
		code, _, stderr := run(t, nil, args...)
		if code == 0 {
			t.Errorf("%q: exit 0", args)
		}
		for _, bad := range raw {
			if strings.Contains(stderr, bad) {
				t.Errorf("%q: the error holds %q raw: %q", args, bad, stderr)
			}
		}
		if !strings.HasPrefix(stderr, "optimus: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: not one line: %q", args, stderr)
		}
	}
}
