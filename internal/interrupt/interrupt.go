// Package interrupt says which signals end a command early: SIGINT and
// SIGTERM, less any the process was started with ignored. A shell starts
// a script's background jobs with SIGINT ignored, so that a Ctrl-C meant
// for the foreground does not reach them (a wrapper may ignore SIGTERM
// too); os/signal's Notify would undo that for the signals it is given
// (it installs a handler), so what was ignored at start is read once,
// before any Notify, and left out.
package interrupt

import (
	"os"
	"os/signal"
	"syscall"
)

var ending = func() []os.Signal {
	var s []os.Signal
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			s = append(s, sig)
		}
	}
	return s
}()

// Signals are the signals that end a command: those of SIGINT and SIGTERM
// the process was not started with ignored. It may be empty, and then
// nothing is to be notified (signal.Notify with no signals relays every
// signal).
func Signals() []os.Signal { return append([]os.Signal(nil), ending...) }
