package root

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/executor/state"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// Two exec applies on one state that overlap (a cron round that outlasts
// its interval) take turns: the first starts every job; the second waits
// for its lock, then reads the state the first recorded, finds every job
// running and calls nothing. Without the lock both read the empty state
// and every job is started twice. An apply that finds the lock held past
// --state-wait changes nothing, writes nothing and exits 1.
func TestOverlappingAppliesTakeTurns(t *testing.T) {
	dir := plannedTestbed.Copy(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	if code, _, stderr := run(t, nil, "init", p("state.parquet")); code != 0 {
		t.Fatal(stderr)
	}
	calls := p("calls.log")
	launch := "#!/usr/bin/env bash\nset -eu\ncat >/dev/null\necho \"$1 $2\" >> " + shellQuote(calls) + "\nsleep 0.2\n"
	if err := os.WriteFile(p("launch"), []byte(launch), 0o755); err != nil {
		t.Fatal(err)
	}
	apply := func(out string, more ...string) []string {
		return append([]string{"apply", "-i", p("plan.parquet"), "--jobs", p("jobs.parquet"), "--executor", "exec",
			"--program", p("launch"), "--state", p("state.parquet"), "-q", "-o", p(out)}, more...)
	}

	// Two at once, as processes.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.Command(self, apply("actions-"+string(rune('1'+i))+".parquet")...)
			cmd.Env = append(os.Environ(), "OPTIMUS_TEST_MAIN=1")
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		})
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("apply %d: %v: %s", i+1, errs[i], outs[i])
		}
	}
	raw, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	slices.Sort(lines)
	if len(lines) != 9 || len(slices.Compact(slices.Clone(lines))) != 9 {
		t.Errorf("the program was called %d times, want each of the 9 jobs started once:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	st, err := table.ReadFile(p("state.parquet"), schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if jobs := slices.Compact(slices.Sorted(slices.Values(st.Strings("job")))); len(jobs) != 9 {
		t.Errorf("the state records %d jobs running, want 9: %v", len(jobs), jobs)
	}

	// Held by another: nothing called, recorded or written.
	os.Remove(calls)
	os.Remove(p("state.parquet"))
	if code, _, stderr := run(t, nil, "init", p("state.parquet")); code != 0 {
		t.Fatal(stderr)
	}
	before, _ := os.ReadFile(p("state.parquet"))
	unlock, err := state.Lock(context.Background(), p("state.parquet"), 0)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, apply("held.parquet", "--state-wait", "100ms")...)
	unlock()
	if code != 1 || !strings.Contains(stderr, "--state "+p("state.parquet")+": another optimus apply holds it") {
		t.Errorf("with the lock held: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(calls); err == nil {
		t.Error("the program was called while the lock was held")
	}
	if _, err := os.Stat(p("held.parquet")); err == nil {
		t.Error("the actions table was written while the lock was held")
	}
	if after, _ := os.ReadFile(p("state.parquet")); string(after) != string(before) {
		t.Error("the state changed while the lock was held")
	}
}
