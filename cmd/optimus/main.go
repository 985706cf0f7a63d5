// Command optimus schedules deep-learning training jobs on GPU clusters the
// way the Optimus paper (Peng et al., EuroSys 2018) does. See README.md.
package main

import (
	"os"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/root"
)

func main() {
	os.Exit(root.Main(iostreams.System(), os.Args[1:]))
}
