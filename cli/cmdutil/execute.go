package cmdutil

import (
	"errors"
	"fmt"
	"github.com/optimus-sched/optimus/io/escape"
	"github.com/optimus-sched/optimus/io/table"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

// ExitBug is the exit status of a panic: a bug in optimus.
const ExitBug = 3

// Execute runs a command tree with args and returns the exit status,
// printing any error to standard error as one line prefixed "optimus: ":
// ExitOK, ExitInvalid for usage errors and invalid input, ExitFailure for
// the rest and ExitBug for a panic. optimus' main runs its root command
// through it, and tests run single commands the same way.
func Execute(ios *iostreams.IOStreams, cmd *cobra.Command, args []string) (code int) {
	// The memory budget and soft limit a command sets (--max-memory) last
	// as long as it does: tests run many commands in one process.
	limit := debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetMemoryLimit(limit)
		table.SetMemoryBudget(0)
	}()
	defer func() {
		// A panic is a bug, whatever the input: say so, with the stack,
		// and exit 3, not Go's 2, which means invalid input here.
		if v := recover(); v != nil {
			fmt.Fprintf(ios.ErrOut, "optimus: internal error (a bug in optimus: please report it with the command and its input): %s\n%s", escape.Terminal(fmt.Sprint(v)), debug.Stack())
			code = ExitBug
		}
	}()
	cmd.SetArgs(args)
	err := unknownSubcommand(cmd, args)
	if err == nil {
		err = cmd.Execute()
	}
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(ios.ErrOut, "optimus: %s\n", escape.Terminal(err.Error()))
	if isCobraUsage(err) {
		return ExitInvalid
	}
	return ExitCode(err)
}

// isCobraUsage recognises the argument errors cobra itself returns (unknown
// commands, wrong number of arguments), which carry no type of their own.
func isCobraUsage(err error) bool {
	var ue *UsageError
	if errors.As(err, &ue) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "invalid argument", "unknown flag", "unknown shorthand flag", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// unknownSubcommand refuses an argument to a command that only groups
// others (eval, datasets, completion) that names none of them, as the
// root refuses one: cobra shows such a command's help for any argument
// and exits 0, so `optimus datasets exprot testbed` succeeded doing
// nothing. Without an argument, with --help or "help", cobra shows the
// help.
func unknownSubcommand(root *cobra.Command, args []string) error {
	root.InitDefaultCompletionCmd(args...) // cobra adds it as it executes; Find needs it now
	found, rest, err := root.Find(args)
	if err != nil || !found.HasParent() || found.Runnable() || !found.HasSubCommands() {
		return nil
	}
	if err := found.ParseFlags(rest); err != nil {
		return nil // cobra reports it
	}
	if help, err := found.Flags().GetBool("help"); err == nil && help {
		return nil
	}
	pos := found.Flags().Args()
	if len(pos) == 0 || pos[0] == "help" {
		return nil
	}
	var names []string
	for _, sub := range found.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return Usagef("unknown command %q for %q (its commands: %s)", pos[0], found.CommandPath(), strings.Join(names, ", "))
}
