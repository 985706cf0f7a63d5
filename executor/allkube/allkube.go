// Package allkube links everything package all registers and what the
// Kubernetes family does: the kubernetes and pytorchjob executors and
// snapshot sources, and the kubernetes metrics source (client-go). The
// full binary, optimus-kubernetes, and the tests that run these entries
// in-process import it.
package allkube

import (
	_ "github.com/optimus-sched/optimus/executor/all"
	_ "github.com/optimus-sched/optimus/executor/kubernetes"
	_ "github.com/optimus-sched/optimus/executor/pytorchjob"
	_ "github.com/optimus-sched/optimus/metrics/kubelogs"
)
