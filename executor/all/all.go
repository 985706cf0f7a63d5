// Package all links every executor kind and snapshot source into the
// program without client-go: importing it registers print, exec and the
// state source, and the Kubernetes family's entries (package kubeopts:
// the kubernetes and pytorchjob kinds and sources, their flags and checks),
// in package executor's registries. What the Kubernetes family does is
// linked by package allkube (optimus-kubernetes); in a program with this
// package alone, choosing one of them runs optimus-kubernetes (package
// cli/kubebin). An executor added to the tree is added here, one line.
package all

import (
	_ "github.com/optimus-sched/optimus/executor/exec"
	_ "github.com/optimus-sched/optimus/executor/kubeopts"
	_ "github.com/optimus-sched/optimus/executor/print"
	_ "github.com/optimus-sched/optimus/executor/state"
)
