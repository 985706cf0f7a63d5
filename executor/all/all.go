// Package all links every executor into the program: importing it
// registers the print, exec, kubernetes and pytorchjob kinds and the snapshot sources
// (kubernetes, and state for print and exec) in package executor's
// registries. An executor added to the tree is added here, one line.
package all

import (
	_ "github.com/optimus-sched/optimus/executor/exec"
	_ "github.com/optimus-sched/optimus/executor/kubernetes"
	_ "github.com/optimus-sched/optimus/executor/print"
	_ "github.com/optimus-sched/optimus/executor/pytorchjob"
	_ "github.com/optimus-sched/optimus/executor/state"
)
