package root

// The main packages link the executors and sources (cmd/optimus the light
// entries, cmd/optimus-kubernetes all of them): these tests run the
// Kubernetes family in-process, so they link what the full binary links.
import _ "github.com/optimus-sched/optimus/executor/allkube"
