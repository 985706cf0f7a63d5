package simtables

import (
	"fmt"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/simulate"
	"github.com/optimus-sched/optimus/solve"
)

// workload1Runs are the runs of Pollux's workload-1 that the tests made,
// by configuration: several tests compare the same runs (Optimus and
// Tiresias with the oracle's knowledge, the fitted Optimus), each seconds
// of CPU, and a run is deterministic (simulate's Seed), so the second test
// asking for one reads the first's.
var workload1Runs struct {
	sync.Mutex
	m map[string]*workload1Run
}

type workload1Run struct {
	once sync.Once
	res  *simulate.Result
	err  error
}

// workload1 runs Pollux's workload-1 (PolluxInput at 0.02) as Pollux's
// simulator does (60 s rounds, no stop cost, a 30 s restore and a 30 s
// first start, the capacity checked every round) under policy p, with the
// oracle's knowledge or fitted, and SRTFWeight alpha (nil: the policy's
// default), once per test binary; it fails t unless every job finished.
func workload1(t *testing.T, p solve.Policy, oracle bool, alpha *float64) *simulate.Result {
	t.Helper()
	cfg := simulate.DefaultConfig(p)
	cfg.Interval, cfg.StopCost, cfg.RestoreCost, cfg.StartCost, cfg.Oracle, cfg.Check = 60, 0, 30, 30, oracle, true
	if alpha != nil {
		cfg.SRTFWeight = *alpha
	}
	// Every other field is DefaultConfig(p)'s.
	key := fmt.Sprintf("%s oracle=%t srtf-weight=%g", p, oracle, cfg.SRTFWeight)
	workload1Runs.Lock()
	if workload1Runs.m == nil {
		workload1Runs.m = map[string]*workload1Run{}
	}
	r := workload1Runs.m[key]
	if r == nil {
		r = &workload1Run{}
		workload1Runs.m[key] = r
	}
	workload1Runs.Unlock()
	r.once.Do(func() {
		jobs, profiles, err := datasets.PolluxWorkload1()
		if err != nil {
			r.err = err
			return
		}
		in, err := PolluxInput(jobs, profiles, 0.02)
		if err != nil {
			r.err = err
			return
		}
		if r.res, r.err = simulate.Run(in, cfg); r.err == nil && r.res.Summary.Finished != len(jobs) {
			r.err = fmt.Errorf("%s: %d of %d jobs finished", key, r.res.Summary.Finished, len(jobs))
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.res
}
