package place

// Optimus places each job on the fewest nodes that hold an even split of its
// PS and workers (the theorem of the package documentation), jobs smallest
// first, and repairs (see Place): the default policy.
const Optimus Policy = "optimus"

// The optimus policy's methods.
const (
	MethodEven     = "even"     // its even split on the fewest nodes
	MethodFallback = "fallback" // its one-by-one first fit when no split fits
)

func init() {
	registerPolicy(&PolicyEntry{
		Name:  Optimus,
		Order: 1,
		Short: "the paper's placement: the fewest nodes that hold an even split",
		Long: "jobs smallest first, each on the fewest nodes that hold the same number of PS " +
			"and of workers each (the paper's theorem: least cross-server traffic); when no " +
			"such split fits, tasks one by one, first fit; when that leaves a job waiting or " +
			"short, the jobs that failed go where solve's node-level check fitted them " +
			"(alloc_nodes, written by optimus solve --capacity nodes, the default)",
		Methods:  []string{MethodEven, MethodFallback},
		Repair:   true,
		placeJob: (*placer).placeOptimus,
	})
}
