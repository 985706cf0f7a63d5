package place

// Spread puts each task on the node with the most free capacity, as
// Kubernetes' default scoring (LeastAllocated) does.
const Spread Policy = "spread"

// MethodSpread is the spread policy's method.
const MethodSpread = "spread"

func init() {
	registerPolicy(&PolicyEntry{
		Name:    Spread,
		Order:   2,
		Short:   "each task on the node with the most free capacity (Kubernetes' default)",
		Long:    "each task on the node with the most free capacity (Kubernetes' default)",
		Methods: []string{MethodSpread},
		placeJob: func(pl *placer, j int) {
			pl.jobs[j].Method = MethodSpread
			pl.placeOneByOne(j, nil, pl.spreadNode)
		},
	})
}
