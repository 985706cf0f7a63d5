package solve

// FIFO gives every job what it requested, in arrival order (baselines.go).
const FIFO Policy = "fifo"

func init() {
	registerPolicy(&PolicyEntry{
		Name:  FIFO,
		Order: 4,
		Short: "each job its request, first come first served",
		Long:  "each job its request (max_ps, max_workers) in arrival order",
		plan:  func(in *instance, _ Options) *plan { return in.fifo() },
	})
}
