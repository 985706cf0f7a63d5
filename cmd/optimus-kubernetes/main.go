// Command optimus-kubernetes is optimus with every executor, snapshot
// source and metrics source linked in, the Kubernetes family's client-go
// too: the commands that reach a cluster (apply --executor kubernetes or
// pytorchjob, print --manifests, snapshot kubernetes or pytorchjob,
// metrics --source kubernetes) run here. optimus (cmd/optimus), which
// starts without initialising client-go, runs this binary for them; run
// directly, it is the whole CLI.
package main

import (
	"os"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/kubebin"
	"github.com/optimus-sched/optimus/cli/root"
	_ "github.com/optimus-sched/optimus/executor/allkube" // every executor and source, client-go's too
)

func main() {
	kubebin.MarkFull()
	os.Exit(root.Main(iostreams.System(), os.Args[1:]))
}
