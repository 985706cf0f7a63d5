package executor

import (
	"fmt"
	"strings"

	"github.com/mattn/go-shellwords"
)

// SplitCommand splits a job's command column into argv the way a POSIX shell
// splits words: blanks separate arguments, single and double quotes group
// them, a backslash escapes the next character. No shell runs and nothing is
// expanded: $VAR, $(...) and backquotes stay literal (Kubernetes itself
// expands $(VAR) from the container's environment). A command using shell
// operators (; & | < >) cannot run without a shell and is an error; write
// `sh -c '...'` explicitly if that is what the job needs. An empty or blank
// command gives no arguments and no error (the image's own entrypoint runs).
func SplitCommand(s string) ([]string, error) {
	p := shellwords.NewParser()
	args, err := p.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("command %q: %v (unbalanced quotes or parentheses?)", s, err)
	}
	if p.Position >= 0 {
		return nil, fmt.Errorf("command %q: shell operator at byte %d: no shell runs, so write sh -c '...' if the job needs one", s, p.Position)
	}
	if len(args) == 0 {
		return nil, nil
	}
	return args, nil
}

// ShellQuote joins argv into one line that a POSIX shell (and SplitCommand)
// splits back into exactly argv: a word of only safe characters (letters,
// digits and @%+=:,./_-) is kept as it is, any other is put in single
// quotes (a single quote in it ends the quotes, is escaped with a
// backslash and they start again). Nothing in the line is
// expanded, so $(...), backquotes and ; in a word stay literal. Control
// characters are kept inside the quotes: a caller printing the line to a
// terminal must refuse them first (a terminal would act on them).
func ShellQuote(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && strings.IndexFunc(w, unsafeInShell) < 0 {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

func unsafeInShell(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+=:,./_-", r)
}
