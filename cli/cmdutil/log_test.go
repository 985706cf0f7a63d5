package cmdutil

import (
	"math"
	"testing"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {3, "3"}, {32110, "32110"}, {1026710, "1026710"}, {19840.4, "19840"},
		{1542.6, "1543"}, {573.26, "573.3"}, {0.5, "0.5"}, {0.12345, "0.1235"}, {-2.5, "-2.5"},
		{1e-5, "1e-05"}, {2e15, "2e+15"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"},
	} {
		if got := Num(tc.x); got != tc.want {
			t.Errorf("Num(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// What each verbosity lets through, at a terminal and not.
func TestVerbosity(t *testing.T) {
	for _, tc := range []struct {
		v    iostreams.Verbosity
		tty  bool
		want string
	}{
		{iostreams.Quiet, true, ""},
		{iostreams.Normal, false, "optimus: warning: w\noptimus: n\n"},
		{iostreams.Normal, true, "optimus: warning: w\noptimus: n\noptimus: s\n"},
		{iostreams.Verbose, false, "optimus: warning: w\noptimus: n\noptimus: s\n"},
	} {
		ios, _, _, errOut := iostreams.Test()
		ios.SetVerbosity(tc.v)
		ios.SetStderrTTY(tc.tty)
		Warnf(ios, "w")
		Notef(ios, "n")
		Summaryf(ios, "s")
		if got := errOut.String(); got != tc.want {
			t.Errorf("verbosity %d, terminal %v: %q, want %q", tc.v, tc.tty, got, tc.want)
		}
	}
}

// A warning that quotes a name writes its control and bidi characters as
// escapes, on one line.
func TestLogEscapesNames(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	Warnf(ios, "job %s dropped", "a\x1b]0;pwned\x07\nb\u202ec")
	if got, want := errOut.String(), `optimus: warning: job a\x1b]0;pwned\a\nb\u202ec dropped`+"\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
