package place

// Pack puts each task on the first node, in cluster order, where it fits
// (first fit).
const Pack Policy = "pack"

// MethodPack is the pack policy's method.
const MethodPack = "pack"

func init() {
	registerPolicy(&PolicyEntry{
		Name:    Pack,
		Order:   3,
		Short:   "each task on the first node where it fits (first fit)",
		Long:    "each task on the first node, in cluster order, where it fits",
		Methods: []string{MethodPack},
		placeJob: func(pl *placer, j int) {
			pl.jobs[j].Method = MethodPack
			pl.placeOneByOne(j, nil, pl.packNode)
		},
	})
}
