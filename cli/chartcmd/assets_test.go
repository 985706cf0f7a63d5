package chartcmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/cli/cmdutil"
)

// A build without echarts' JavaScript exits 2 from chart and report, as
// for any mistake its user must fix (here: make assets, then rebuild),
// also when the error arrives wrapped (cmdutil.WritePage).
func TestNoAssetsExitsTwo(t *testing.T) {
	for _, err := range []error{chart.ErrNoAssets, fmt.Errorf("rendering the page: %w", chart.ErrNoAssets)} {
		if got := cmdutil.ExitCode(err); got != cmdutil.ExitInvalid {
			t.Errorf("%v: exit %d, want %d", err, got, cmdutil.ExitInvalid)
		}
	}
	if err := chart.CheckAssets(); err == nil {
		return
	}
	// In this build (no assets) the command says so before reading its inputs.
	code, _, stderr := optimus.Run(t, nil, "chart", "loss", "-i", "no-such-file.csv", "-o", t.TempDir()+"/loss.html")
	if code != 2 || !strings.Contains(stderr, "this build has no chart assets: run make assets, then rebuild") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
