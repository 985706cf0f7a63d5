package executor

import (
	"fmt"

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
