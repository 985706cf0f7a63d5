// Command optimus schedules deep-learning training jobs on GPU clusters the
// way the Optimus paper (Peng et al., EuroSys 2018) does. See README.md.
//
// This binary links no Kubernetes client, so that it starts fast (issue
// 25): it knows the Kubernetes family's executors and sources (their help,
// flags and checks) and hands a command that chooses one over to
// optimus-kubernetes (cmd/optimus-kubernetes, package cli/kubebin).
package main

import (
	"os"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/root"
	_ "github.com/optimus-sched/optimus/executor/all"         // the executors and snapshot sources; the Kubernetes family's entries only
	_ "github.com/optimus-sched/optimus/metrics/kubelogsopts" // the kubernetes metrics source's entry only
)

func main() {
	os.Exit(root.Main(iostreams.System(), os.Args[1:]))
}
