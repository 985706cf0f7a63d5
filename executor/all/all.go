// Package all links every executor into the program: importing it
// registers the print, exec and kubernetes kinds (package executor's
// registry). An executor added to the tree is added here, one line.
package all

import (
	_ "github.com/optimus-sched/optimus/executor/exec"
	_ "github.com/optimus-sched/optimus/executor/kubernetes"
	_ "github.com/optimus-sched/optimus/executor/print"
)
