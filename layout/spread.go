package layout

// SpreadEvenly is w tasks (workers, GPUs) spread over n nodes as evenly as
// they go: n' = max(1, min(n, w)) nodes, the first w mod n' of them one
// task more than the others' ⌊w/n'⌋.
func SpreadEvenly(w, n int) []int {
	n = max(1, min(n, w))
	out := make([]int, n)
	for i := range out {
		out[i] = w / n
		if i < w%n {
			out[i]++
		}
	}
	return out
}
