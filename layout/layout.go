// Package layout holds what solve and place share about where a job's
// tasks sit on the nodes: a Slot (how many parameter servers and workers of
// a job are on one node) and the key that identifies a demand vector.
package layout

import (
	"encoding/binary"
	"math"
)

// MaxJobTasks is the most parameter servers, and the most workers, one job
// may have, run or be allocated: far beyond any cluster (the paper plans
// 100,000 tasks in all), and a bound on the work and memory a plan of one
// job can take, whatever its input says.
const MaxJobTasks = 1 << 20

// Slot is how many PS and workers of a job are on one node.
type Slot struct {
	Node        int // index into the cluster's nodes
	PS, Workers int
}

// DemandKey identifies a demand vector (one task's demand of each resource)
// exactly, for maps keyed by demand.
func DemandKey(d []float64) string {
	b := make([]byte, 0, 8*len(d))
	for _, x := range d {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return string(b)
}
